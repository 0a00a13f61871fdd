//! Post-processing that optimization and validation need (docs/architecture.md, "figures"): blade-surface
//! isentropic Mach number, pitchwise cuts, and mass-flow averages on planes (entropy rise,
//! exit flow angle, total-pressure loss, mass flow, exit isentropic Mach).

pub mod coefficients;
pub mod grid_convergence;
pub mod compare;
pub mod pictures;
pub mod planes;
pub mod surface;

pub use coefficients::{cascade_coefficients, CascadeCoefficients};
pub use compare::{read_measured_mis, rms_against_measured, MeasuredMis, MisComparison};
pub use pictures::{draw_isentropic_mach, plot_isentropic_mach, plot_skin_friction};
pub use planes::{cascade_performance, mixed_out, pitchwise_cut, plane_averages, CascadePerformance, CutSample, MixedOut, PerformanceCuts, PitchwiseCut, PlaneAverages};
pub use surface::{blade_surface, side_layers, BladeSide, SideLayer, SurfacePoint, LAYER_CELLS, TURBULENT_EDDY_VISCOSITY_RATIO};
