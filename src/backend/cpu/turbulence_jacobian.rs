//! The segregated scalar systems of the implicit scheme on the CPU (thesis 5.2: the turbulence
//! model is solved as its own scalar system after the mean flow, Blazek sec. 7.2.3 and 12.4):
//! `Omega/dt + d R(rho nu~) / d(rho nu~)` at frozen mean flow, one scalar per cell pair, in the
//! same pattern (and slots) as the mean-flow matrix; with SA-gamma the same for
//! `d R(rho gamma) / d(rho gamma)` at frozen mean flow and nu~.
//!
//! What is linearized and how:
//! * convection (first-order upwind with the face mass flux m, `flow::sa::sa_convective_flux`):
//!   exact at frozen mass flux, d/d(rho nu~)_c = max(m, 0)/rho_c and d/d(rho nu~)_o =
//!   min(m, 0)/rho_o; m is the density component of the first-order Roe flux of the two cells
//!   (the residual uses the MUSCL states: same first-order approximation as the mean flow);
//! * diffusion: thin-layer form, each face a two-point difference of nu~ with the coefficient
//!   (mu + rho nu~ f_n)/sigma |S|^2 / Omega_f (Omega_f the mean of the two cell volumes); a
//!   no-slip wall's ghost is -nu~_c (twice the coefficient on the diagonal), an inlet ghost is
//!   fixed, an outlet ghost copies nu~_c (no diffusion term); the cb2 term is not linearized;
//! * source: point-implicit, only the part that strengthens the diagonal,
//!   Omega max(0, -dQ/d(rho nu~)), so that production never weakens the system (Blazek
//!   sec. 12.4; the usual choice of SA implementations).
//!
//! The intermittency system differs in its diffusion coefficient, mu + mu_t/sigma_gamma, and at
//! walls, where gamma has a zero normal gradient (no diffusion term), and its source derivative
//! is that of P_gamma - E_gamma (`flow::intermittency::intermittency_source`).

use rayon::prelude::*;

use super::geometry::CpuGeometry;
use super::jacobian::{conservative_at, global_of, CpuJacobian, Neighbour};
use super::viscous::source_derivatives;
use super::{CpuBackend, CpuField, CpuScalars};
use crate::backend::implicit::JacobianOptions;
use crate::backend::NFLOW;
use crate::flow::gas::Gas;
use crate::flow::roe::roe_flux;
use crate::flow::intermittency::SIGMA_GAMMA;
use crate::flow::sa::{eddy_viscosity, sa_diffusion_coefficient};
use crate::flow::state::{primitive_from_conservative, Primitive};

/// The transported scalar a segregated system is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    /// rho nu~ (SA).
    NuTilde,
    /// rho gamma (SA-gamma).
    Intermittency,
}

/// Cell values the scalar linearizations need.
struct SaCell {
    q: Primitive,
    nu: f64,
    nu_tilde: f64,
}

fn sa_cell(gas: &Gas, w: &[f64], np: usize, p: usize) -> SaCell {
    let q = primitive_from_conservative(gas.gamma, &conservative_at(w, np, p));
    let nu = gas.viscosity(q[3] / (q[0] * gas.gas_constant)) / q[0];
    SaCell { q, nu, nu_tilde: w[NFLOW * np + p] / q[0] }
}

/// Thin-layer diffusion coefficient of a face [kg/s], multiplying a difference of the scalar:
/// (mu + rho nu~ f_n)/sigma |S|^2 / Omega_f for nu~, (mu + mu_t/sigma_gamma) |S|^2 / Omega_f
/// for gamma, with face means of the two sides.
fn face_diffusion(scalar: Scalar, a: &SaCell, b: &SaCell, area: f64, face_volume: f64) -> f64 {
    let rho = 0.5 * (a.q[0] + b.q[0]);
    let coefficient = match scalar {
        Scalar::NuTilde => sa_diffusion_coefficient(rho, 0.5 * (a.nu + b.nu), 0.5 * (a.nu_tilde + b.nu_tilde)),
        Scalar::Intermittency => {
            let mu_t = |c: &SaCell| eddy_viscosity(c.q[0], c.nu_tilde, c.nu);
            rho * 0.5 * (a.nu + b.nu) + 0.5 * (mu_t(a) + mu_t(b)) / SIGMA_GAMMA
        }
    };
    coefficient * area * area / face_volume
}

/// Assembles `jac.turbulence` at the state `w` (ghosts filled), and with SA-gamma
/// `jac.intermittency`, rows in parallel.
pub(super) fn assemble(
    backend: &CpuBackend,
    g: &CpuGeometry,
    gas: &Gas,
    options: &JacobianOptions,
    w: &CpuField,
    dt: Option<&CpuScalars>,
    jac: &mut CpuJacobian,
) {
    let (sa, gamma): (Vec<Vec<f64>>, Vec<Vec<f64>>) = backend.pool.install(|| {
        let transition = options.physics.intermittency_tu(&options.sa);
        g.blocks.iter().zip(&w.blocks).map(|(bg, wb)| source_derivatives(bg, gas, transition, &options.sa, wb)).unzip()
    });
    assemble_scalar(backend, g, gas, options, w, dt, jac, Scalar::NuTilde, &sa);
    jac.transition = options.physics.transports_intermittency();
    if jac.transition {
        assemble_scalar(backend, g, gas, options, w, dt, jac, Scalar::Intermittency, &gamma);
    }
}

/// Assembles the segregated system of `scalar` with the cell source derivatives
/// `source_derivatives` (per block, per interior cell).
#[allow(clippy::too_many_arguments)]
fn assemble_scalar(
    backend: &CpuBackend,
    g: &CpuGeometry,
    gas: &Gas,
    options: &JacobianOptions,
    w: &CpuField,
    dt: Option<&CpuScalars>,
    jac: &mut CpuJacobian,
    scalar: Scalar,
    source_derivatives: &[Vec<f64>],
) {
    let gamma = gas.gamma;
    let CpuJacobian { turbulence, intermittency, pattern, .. } = jac;
    let matrix = if scalar == Scalar::NuTilde { turbulence } else { intermittency };
    let rows = &pattern.rows;
    let mut row_values = matrix.row_values_mut();
    backend.pool.install(|| {
        row_values.par_iter_mut().zip(rows.par_iter()).with_min_len(256).for_each(|(values, row)| {
            values.iter_mut().for_each(|v| *v = 0.0);
            let bg = &g.blocks[row.block];
            let np = bg.layout.n_padded();
            let wb = &w.blocks[row.block];
            let c = sa_cell(gas, wb, np, row.padded);
            let volume = bg.volume[row.cell];
            let mut diag = 0.0;
            for face in &row.faces {
                let area = (face.s_out[0] * face.s_out[0] + face.s_out[1] * face.s_out[1]).sqrt();
                let n = [face.s_out[0] / area, face.s_out[1] / area];
                match face.neighbour {
                    Neighbour::Wall { no_slip } => {
                        // nu~ vanishes on a no-slip wall (ghost -nu~_c); gamma has a zero
                        // normal gradient at every wall.
                        if no_slip && scalar == Scalar::NuTilde {
                            diag += 2.0 * face_diffusion(scalar, &c, &c, area, volume) / c.q[0];
                        }
                    }
                    Neighbour::Cell { block, padded, slot } => {
                        let og = &g.blocks[block];
                        let o = sa_cell(gas, &w.blocks[block], og.layout.n_padded(), padded);
                        let mass_flux = roe_flux(gamma, &c.q, &o.q, n, area, options.entropy_fix)[0];
                        let face_volume = 0.5 * (volume + og.volume[global_of(og, padded)]);
                        let k = face_diffusion(scalar, &c, &o, area, face_volume);
                        diag += mass_flux.max(0.0) / c.q[0] + k / c.q[0];
                        values[slot] += mass_flux.min(0.0) / o.q[0] - k / o.q[0];
                    }
                    Neighbour::Characteristic { kind, ghost, .. } => {
                        let gh = sa_cell(gas, wb, np, ghost);
                        let mass_flux = roe_flux(gamma, &c.q, &gh.q, n, area, options.entropy_fix)[0];
                        diag += mass_flux.max(0.0) / c.q[0];
                        if kind == super::geometry::PhysicalBc::Inlet {
                            // Fixed inlet nu~ or gamma: the ghost does not move with the cell.
                            diag += face_diffusion(scalar, &c, &gh, area, volume) / c.q[0];
                        } else {
                            // The outlet ghost copies the cell's value: inflow there convects it.
                            diag += mass_flux.min(0.0) / c.q[0];
                        }
                    }
                }
            }
            diag += volume * (-source_derivatives[row.block][row.cell]).max(0.0);
            if let Some(dt) = dt {
                diag += volume / dt.blocks[row.block][row.cell];
            }
            values[row.diag_slot] += diag;
        });
    });
}
