//! Pitchwise cuts (lines of constant axial position x across one pitch) and the mass-flow
//! averages that define a cascade's performance (docs/architecture.md, "figures"; LS89 test case 1:
//! entropy rise between the inlet plane and the outlet plane, exit flow angle).

use crate::flow::case::{isentropic_mach, OperatingPoint};
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use serde::Serialize;

/// A piece of a cut: the part of one cell crossed by the line x = const.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CutSample {
    /// Pitchwise length of the piece \[m\] (the cut's normal is +x).
    pub dy: f64,
    pub rho: f64,
    pub u: f64,
    pub v: f64,
    pub p: f64,
    /// Spalart-Allmaras working variable nu_tilde [m^2/s] (zero without SA).
    pub nu_tilde: f64,
}

/// The cells a line x = `x_cut` crosses, with the pitchwise length of each crossing: geometry
/// of the mesh alone, found once per mesh and plane, so that a solve looking at its figures
/// every few iterations does not scan every cell each time (on LS89's fine mesh the scan of the
/// three planes took 85 % of a look's figures).
///
/// Each cell quadrilateral is intersected with the line; cell states are cell averages (the
/// cut is first-order in the pitchwise direction: plenty for averages over ~100 cells). In a
/// single-passage cascade domain the pieces add up to exactly one pitch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PitchwiseCut {
    /// (block, cell, pitchwise length of the crossing \[m\]).
    crossings: Vec<(usize, usize, f64)>,
}

impl PitchwiseCut {
    pub fn new(mesh: &Mesh, x_cut: f64) -> Self {
        let mut crossings = Vec::new();
        for (b, block) in mesh.blocks.iter().enumerate() {
            for j in 0..block.nj {
                for i in 0..block.ni {
                    let corners = [block.node(i, j), block.node(i + 1, j), block.node(i + 1, j + 1), block.node(i, j + 1)];
                    let quad = corners.map(|n| [block.x[n], block.y[n]]);
                    if let Some(dy) = crossing_length(&quad, x_cut) {
                        crossings.push((b, block.cell(i, j), dy));
                    }
                }
            }
        }
        PitchwiseCut { crossings }
    }

    /// The state of `sol` on the cut, one sample per crossed cell.
    pub fn samples(&self, sol: &Solution, gamma: f64) -> Vec<CutSample> {
        self.crossings
            .iter()
            .map(|&(b, c, dy)| {
                let bs = &sol.blocks[b];
                let rho = bs.rho[c];
                CutSample { dy, rho, u: bs.rho_u[c] / rho, v: bs.rho_v[c] / rho, p: bs.pressure(c, gamma), nu_tilde: bs.nu_tilde.get(c).copied().unwrap_or(0.0) }
            })
            .collect()
    }
}

/// All cells crossed by the line x = `x_cut`, with the pitchwise length of each crossing and the
/// state of `sol` there ([`PitchwiseCut`] found and sampled in one call).
pub fn pitchwise_cut(mesh: &Mesh, sol: &Solution, gamma: f64, x_cut: f64) -> Vec<CutSample> {
    PitchwiseCut::new(mesh, x_cut).samples(sol, gamma)
}

/// Length of the intersection of the vertical line x = xc with a convex quad, if positive.
fn crossing_length(quad: &[[f64; 2]], xc: f64) -> Option<f64> {
    let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..quad.len() {
        let (a, b) = (quad[k], quad[(k + 1) % quad.len()]);
        let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
        // Half-open in x so a line through a node is counted once per cell.
        if xc < lo[0] || xc >= hi[0] || hi[0] == lo[0] {
            continue;
        }
        let y = lo[1] + (hi[1] - lo[1]) * (xc - lo[0]) / (hi[0] - lo[0]);
        ymin = ymin.min(y);
        ymax = ymax.max(y);
    }
    (ymax > ymin).then_some(ymax - ymin)
}

/// Mass-flow averages on one cut.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PlaneAverages {
    /// Mass flow per unit span [kg/(s m)].
    pub mass_flow: f64,
    /// Mass-averaged entropy function s = p / rho^gamma.
    pub entropy: f64,
    /// Mass-averaged total pressure \[Pa\].
    pub total_pressure: f64,
    /// Mass-averaged flow angle atan2(v, u) \[deg\] (cascade frame: y pitchwise).
    pub flow_angle_deg: f64,
    /// Pitch-averaged (area-averaged) static pressure \[Pa\].
    pub static_pressure: f64,
    /// Pitch covered by the cut \[m\] (equals the pitch for a cut through the whole passage).
    pub length: f64,
}

impl PlaneAverages {
    /// The field-by-field mean of `all` (figures averaged over the looks at a periodic flow).
    pub fn mean(all: &[&PlaneAverages]) -> PlaneAverages {
        let m = |f: fn(&PlaneAverages) -> f64| all.iter().map(|a| f(a)).sum::<f64>() / all.len() as f64;
        PlaneAverages {
            mass_flow: m(|a| a.mass_flow),
            entropy: m(|a| a.entropy),
            total_pressure: m(|a| a.total_pressure),
            flow_angle_deg: m(|a| a.flow_angle_deg),
            static_pressure: m(|a| a.static_pressure),
            length: m(|a| a.length),
        }
    }
}

pub fn plane_averages(samples: &[CutSample], gas: &Gas) -> PlaneAverages {
    let g = gas.gamma;
    let (mut m, mut ms, mut mp0, mut ma, mut pa, mut len) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for s in samples {
        let dm = s.rho * s.u * s.dy;
        let mach2 = (s.u * s.u + s.v * s.v) / (g * s.p / s.rho);
        let p0 = s.p * (1.0 + 0.5 * (g - 1.0) * mach2).powf(g / (g - 1.0));
        m += dm;
        ms += dm * s.p / s.rho.powf(g);
        mp0 += dm * p0;
        ma += dm * s.v.atan2(s.u).to_degrees();
        pa += s.p * s.dy;
        len += s.dy;
    }
    PlaneAverages {
        mass_flow: m,
        entropy: ms / m,
        total_pressure: mp0 / m,
        flow_angle_deg: ma / m,
        static_pressure: pa / len,
        length: len,
    }
}

/// The uniform state that the flow through a cut mixes out to, conserving the mass, both
/// momentum components and the energy that cross it (Cumpsty & Horlock, J. Turbomach. 128,
/// 2006, "Averaging nonuniform flow for a purpose"; Dixon & Hall eq. 3.50): with the fluxes per
/// unit length F_m = sum rho u dy / L, F_x = sum (rho u^2 + p) dy / L, F_y = sum rho u v dy / L,
/// F_e = sum rho u H dy / L, the mixed axial velocity u solves
/// -(g + 1) / (2 (g - 1)) u^2 + g / (g - 1) (F_x / F_m) u + v^2 / 2 - H = 0 with v = F_y / F_m,
/// H = F_e / F_m; the root with subsonic axial velocity is the one a downstream duct reaches.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MixedOut {
    pub rho: f64,
    pub u: f64,
    pub v: f64,
    pub p: f64,
    /// Total pressure of the mixed-out state \[Pa\].
    pub total_pressure: f64,
    /// Entropy function p / rho^gamma of the mixed-out state.
    pub entropy: f64,
    /// Flow angle atan2(v, u) \[deg\].
    pub flow_angle_deg: f64,
}

/// The mixed-out state of a cut ([`MixedOut`]); `None` when the fluxes admit no real subsonic
/// root (no flow through the cut, or a non-physical one).
pub fn mixed_out(samples: &[CutSample], gas: &Gas) -> Option<MixedOut> {
    let g = gas.gamma;
    let (mut len, mut fm, mut fx, mut fy, mut fe) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for s in samples {
        let dm = s.rho * s.u * s.dy;
        let h = g / (g - 1.0) * s.p / s.rho + 0.5 * (s.u * s.u + s.v * s.v);
        len += s.dy;
        fm += dm;
        fx += (s.rho * s.u * s.u + s.p) * s.dy;
        fy += dm * s.v;
        fe += dm * h;
    }
    if !(fm > 0.0 && len > 0.0) {
        return None;
    }
    let (fm, fx) = (fm / len, fx / len);
    let (v, h) = (fy / (fm * len), fe / (fm * len));
    let (a, b, c) = (-(g + 1.0) / (2.0 * (g - 1.0)), g / (g - 1.0) * fx / fm, 0.5 * v * v - h);
    let disc = b * b - 4.0 * a * c;
    if !(disc >= 0.0) {
        return None;
    }
    // a < 0: of the two positive roots the smaller (higher pressure) is the subsonic one.
    let roots = [(-b + disc.sqrt()) / (2.0 * a), (-b - disc.sqrt()) / (2.0 * a)];
    let u = roots.into_iter().filter(|u| *u > 0.0).fold(f64::INFINITY, f64::min);
    let (p, rho) = (fx - fm * u, fm / u);
    if !(u.is_finite() && p > 0.0 && rho > 0.0) {
        return None;
    }
    let mach2 = (u * u + v * v) / (g * p / rho);
    Some(MixedOut {
        rho,
        u,
        v,
        p,
        total_pressure: p * (1.0 + 0.5 * (g - 1.0) * mach2).powf(g / (g - 1.0)),
        entropy: p / rho.powf(g),
        flow_angle_deg: v.atan2(u).to_degrees(),
    })
}

/// What an optimizer scores a cascade on (LS89 optimization test case; docs/architecture.md, "figures").
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CascadePerformance {
    /// (s_out - s_in) / s_ref with s = p/rho^gamma mass-averaged on the inlet and outlet planes,
    /// s_ref = P01 / rho01^gamma.
    pub entropy_rise: f64,
    /// Mass-averaged flow angle on the outlet plane \[deg\], signed in the cascade frame.
    pub exit_angle_deg: f64,
    /// (P01 - P02) / (P01 - p2), mass-averaged P02 and area-averaged p2 on the outlet plane.
    pub loss_coefficient: f64,
    /// Mass flow per unit span through the inlet plane [kg/(s m)].
    pub mass_flow: f64,
    /// Isentropic exit Mach number from the pitch-averaged static pressure at the measurement
    /// plane (LS89: 1.433 axial chords downstream of the leading edge).
    pub exit_isentropic_mach: f64,
    /// The loss coefficient on the measurement plane (the LS89 traverse at 53 mm), mass-averaged
    /// P02 and area-averaged p2 there.
    pub loss_coefficient_at_measurement_plane: f64,
    pub inlet: PlaneAverages,
    pub outlet: PlaneAverages,
}

impl CascadePerformance {
    /// The field-by-field mean of `all`: each figure averaged, not recomputed from averaged
    /// planes (figures averaged over the looks at a periodic flow, `cascade::periodic`).
    pub fn mean(all: &[&CascadePerformance]) -> CascadePerformance {
        let m = |f: fn(&CascadePerformance) -> f64| all.iter().map(|a| f(a)).sum::<f64>() / all.len() as f64;
        let inlet: Vec<&PlaneAverages> = all.iter().map(|a| &a.inlet).collect();
        let outlet: Vec<&PlaneAverages> = all.iter().map(|a| &a.outlet).collect();
        CascadePerformance {
            entropy_rise: m(|a| a.entropy_rise),
            exit_angle_deg: m(|a| a.exit_angle_deg),
            loss_coefficient: m(|a| a.loss_coefficient),
            mass_flow: m(|a| a.mass_flow),
            exit_isentropic_mach: m(|a| a.exit_isentropic_mach),
            loss_coefficient_at_measurement_plane: m(|a| a.loss_coefficient_at_measurement_plane),
            inlet: PlaneAverages::mean(&inlet),
            outlet: PlaneAverages::mean(&outlet),
        }
    }
}

/// Performance from cuts at the inlet plane, the outlet plane and the exit measurement plane
/// (axial positions in metres, in the mesh frame).
pub fn cascade_performance(
    mesh: &Mesh,
    sol: &Solution,
    gas: &Gas,
    op: &OperatingPoint,
    x_inlet: f64,
    x_outlet: f64,
    x_exit_measurement: f64,
) -> CascadePerformance {
    PerformanceCuts::new(mesh, x_inlet, x_outlet, x_exit_measurement).performance(sol, gas, op)
}

/// The three cuts a cascade's performance figures are taken on (inlet, outlet, exit
/// measurement plane), found once per mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerformanceCuts {
    pub inlet: PitchwiseCut,
    pub outlet: PitchwiseCut,
    pub exit_measurement: PitchwiseCut,
}

impl PerformanceCuts {
    pub fn new(mesh: &Mesh, x_inlet: f64, x_outlet: f64, x_exit_measurement: f64) -> Self {
        PerformanceCuts { inlet: PitchwiseCut::new(mesh, x_inlet), outlet: PitchwiseCut::new(mesh, x_outlet), exit_measurement: PitchwiseCut::new(mesh, x_exit_measurement) }
    }

    /// [`cascade_performance`] of `sol` on these cuts.
    pub fn performance(&self, sol: &Solution, gas: &Gas, op: &OperatingPoint) -> CascadePerformance {
        let g = gas.gamma;
        let inlet = plane_averages(&self.inlet.samples(sol, g), gas);
        let outlet = plane_averages(&self.outlet.samples(sol, g), gas);
        let exit = plane_averages(&self.exit_measurement.samples(sol, g), gas);
        performance_of(inlet, outlet, exit, gas, op)
    }
}

/// The figures of the three planes' averages at `op`.
fn performance_of(inlet: PlaneAverages, outlet: PlaneAverages, exit: PlaneAverages, gas: &Gas, op: &OperatingPoint) -> CascadePerformance {
    let g = gas.gamma;
    let rho01 = op.p01 / (gas.gas_constant * op.t01);
    let s_ref = op.p01 / rho01.powf(g);
    CascadePerformance {
        entropy_rise: (outlet.entropy - inlet.entropy) / s_ref,
        exit_angle_deg: outlet.flow_angle_deg,
        loss_coefficient: (op.p01 - outlet.total_pressure) / (op.p01 - outlet.static_pressure),
        mass_flow: inlet.mass_flow,
        exit_isentropic_mach: isentropic_mach(op.p01, exit.static_pressure, g),
        loss_coefficient_at_measurement_plane: (op.p01 - exit.total_pressure) / (op.p01 - exit.static_pressure),
        inlet,
        outlet,
    }
}
