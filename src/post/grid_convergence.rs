//! Grid convergence of a figure computed on three meshes: the observed order, the
//! Richardson-extrapolated value and the grid convergence index, by the procedure of Celik,
//! Ghia, Roache, Freitas, Coleman and Raad, "Procedure for estimation and reporting of
//! uncertainty due to discretization in CFD applications", J. Fluids Eng. 130 (2008) 078001,
//! which allows refinement ratios that differ between the two pairs of meshes.

use serde::Serialize;

/// A figure's grid convergence over a coarse, a medium and a fine mesh.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GridConvergence {
    /// Observed order of convergence p.
    pub order: f64,
    /// The extrapolated value (Richardson, from the two finest meshes).
    pub extrapolated: f64,
    /// Fine-grid convergence index GCI21 (1.25 times the relative error estimate).
    pub gci_fine: f64,
    /// How far the three meshes are from the asymptotic range: GCI32 / (r21^p GCI21), 1 in it.
    pub asymptotic_ratio: f64,
    /// Whether the differences change sign (oscillatory convergence; the order is then of
    /// their magnitudes).
    pub oscillatory: bool,
}

/// Fixed-point iterations for the observed order.
const ORDER_ITERATIONS: usize = 200;
/// Safety factor of the grid convergence index for three meshes (Roache).
const SAFETY_FACTOR: f64 = 1.25;

/// The grid convergence of `values` computed on meshes of `cells` cells, both ordered coarse,
/// medium, fine, in two dimensions (representative cell size h = (1 / N)^(1/2)). None when the
/// two finer meshes give the same value or the cell counts do not increase.
pub fn grid_convergence(values: [f64; 3], cells: [usize; 3]) -> Option<GridConvergence> {
    let [f3, f2, f1] = values;
    let h = cells.map(|n| (1.0 / n as f64).sqrt());
    let (r21, r32) = (h[1] / h[2], h[0] / h[1]);
    let (e21, e32) = (f2 - f1, f3 - f2);
    if !(r21 > 1.0 && r32 > 1.0) || e21 == 0.0 || !e21.is_finite() || !e32.is_finite() {
        return None;
    }
    let s = (e32 / e21).signum();
    let ratio = (e32 / e21).abs().ln();
    // Celik et al. eqs. 3-5: p = |ln|e32/e21| + q(p)| / ln r21, q = ln((r21^p - s)/(r32^p - s)).
    let mut p = ratio.abs() / r21.ln();
    for _ in 0..ORDER_ITERATIONS {
        let q = ((r21.powf(p) - s) / (r32.powf(p) - s)).ln();
        let next = (ratio + q).abs() / r21.ln();
        if !next.is_finite() {
            return None;
        }
        if (next - p).abs() < 1e-12 {
            p = next;
            break;
        }
        p = next;
    }
    let extrapolated = (r21.powf(p) * f1 - f2) / (r21.powf(p) - 1.0);
    let gci = |fine: f64, coarse: f64, r: f64| SAFETY_FACTOR * ((fine - coarse) / fine).abs() / (r.powf(p) - 1.0);
    let (gci21, gci32) = (gci(f1, f2, r21), gci(f2, f3, r32));
    Some(GridConvergence { order: p, extrapolated, gci_fine: gci21, asymptotic_ratio: gci32 / (r21.powf(p) * gci21), oscillatory: s < 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(h) = f0 + c h^p on three meshes of unequal refinement ratios.
    fn sampled(f0: f64, c: f64, p: f64, cells: [usize; 3]) -> [f64; 3] {
        cells.map(|n| f0 + c * (1.0 / n as f64).sqrt().powf(p))
    }

    #[test]
    fn recovers_the_order_and_the_limit_of_a_power_law() {
        let cells = [14_272, 38_592, 173_376];
        for p in [1.0, 1.6, 2.0, 3.0] {
            // The coarse mesh 5 % off the limit; the asymptotic ratio is then f1 / f2.
            let c = 0.05 * 1.3e-2 / (1.0 / cells[0] as f64).sqrt().powf(p);
            let values = sampled(1.3e-2, c, p, cells);
            let g = grid_convergence(values, cells).unwrap();
            assert!((g.order - p).abs() < 1e-8, "order {} for {p}", g.order);
            assert!((g.extrapolated - 1.3e-2).abs() < 1e-14, "limit {}", g.extrapolated);
            assert!((g.asymptotic_ratio - values[2] / values[1]).abs() < 1e-10, "asymptotic ratio {}", g.asymptotic_ratio);
            assert!(!g.oscillatory);
        }
    }

    #[test]
    fn oscillatory_convergence_is_flagged() {
        let g = grid_convergence([1.0, 0.9, 0.93], [1000, 4000, 16000]).unwrap();
        assert!(g.oscillatory);
        assert!(g.order > 0.0);
    }

    #[test]
    fn equal_fine_values_give_no_order() {
        assert!(grid_convergence([1.0, 0.9, 0.9], [1000, 4000, 16000]).is_none());
        assert!(grid_convergence([1.0, 0.9, 0.8], [4000, 4000, 16000]).is_none());
    }
}
