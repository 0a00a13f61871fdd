//! Multigrid transfer operators of the CPU backend: restriction conserves the integral of the
//! state and the sum of the residuals; prolongation adds the coarse correction to every child.

mod common;

use rand::{Rng, SeedableRng};
use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::solution::Solution;
use turbopt::mesh::coarsen::coarsen;
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::solver::uniform_state;

fn random_state(template: &Solution, seed: u64) -> Solution {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = template.clone();
    for b in &mut s.blocks {
        for v in [&mut b.rho, &mut b.rho_u, &mut b.rho_v, &mut b.rho_e] {
            v.iter_mut().for_each(|x| *x *= 1.0 + 0.3 * rng.random::<f64>());
        }
        b.nu_tilde.iter_mut().for_each(|x| *x = 1e-4 * rng.random::<f64>());
    }
    s
}

#[test]
fn restriction_conserves_and_prolongation_injects() {
    let gas = common::unit_gas();
    let fine_mesh = common::distorted_channel(2, 8, 6, 2.0, 0.05);
    let coarse_mesh = coarsen(&fine_mesh).unwrap();
    let backend = CpuBackend::new(Some(2)).unwrap();
    let (gf, gc) = (backend.upload_geometry(&fine_mesh).unwrap(), backend.upload_geometry(&coarse_mesh).unwrap());
    let (mf, mc) = (MeshMetrics::new(&fine_mesh).unwrap(), MeshMetrics::new(&coarse_mesh).unwrap());
    let fine_state = random_state(&uniform_state(&fine_mesh, &gas, [1.0, 0.3, 0.1, 1.0]), 7);
    let wf = backend.upload_state(&gf, &fine_state).unwrap();

    // State: sum over the fine cells of vol * w equals sum over coarse cells of (sum of the
    // children's volumes) * w_c.
    let mut wc = backend.new_field(&gc);
    backend.restrict_state(&gf, &gc, &wf, &mut wc);
    let coarse_state = backend.download_state(&gc, &wc);
    for (b, (fb, cb)) in fine_state.blocks.iter().zip(&coarse_state.blocks).enumerate() {
        let fine_integral: f64 = fb.rho.iter().zip(&mf.blocks[b].volume).map(|(r, v)| r * v).sum();
        let child_volume = |ic: usize, jc: usize| {
            let m = &mf.blocks[b];
            [(0, 0), (1, 0), (0, 1), (1, 1)].iter().map(|(di, dj)| m.volume[m.cell(2 * ic + di, 2 * jc + dj)]).sum::<f64>()
        };
        let coarse_integral: f64 = (0..cb.nj).flat_map(|j| (0..cb.ni).map(move |i| (i, j))).map(|(i, j)| cb.rho[i + cb.ni * j] * child_volume(i, j)).sum();
        assert!((fine_integral - coarse_integral).abs() < 1e-13 * fine_integral, "block {b}: {fine_integral} vs {coarse_integral}");
        assert_eq!(mc.blocks[b].volume.len(), cb.rho.len());
    }

    // Residual: coarse residuals sum the children.
    let mut rc = backend.new_field(&gc);
    backend.restrict_residual(&gf, &gc, &wf, &mut rc);
    let summed = backend.download_state(&gc, &rc);
    for (fb, cb) in fine_state.blocks.iter().zip(&summed.blocks) {
        let (a, b): (f64, f64) = (fb.rho_e.iter().sum(), cb.rho_e.iter().sum());
        assert!((a - b).abs() < 1e-12 * a.abs());
    }

    // Prolongation: w_f += w_c - w_start, the same value on all four children.
    let mut start = backend.new_field(&gc);
    backend.copy_field(&wc, &mut start);
    let mut shifted = backend.new_field(&gc);
    backend.copy_field(&wc, &mut shifted);
    let ones = backend.upload_state(&gc, &uniform_state(&coarse_mesh, &gas, [1.0, 0.0, 0.0, 0.0])).unwrap();
    backend.axpy_field(0.25, &ones, &mut shifted); // rho + 0.25, rho E + 0
    let mut w = wf.clone();
    backend.prolong_correction(&gc, &gf, &shifted, &start, &mut w);
    let after = backend.download_state(&gf, &w);
    for (fb, ab) in fine_state.blocks.iter().zip(&after.blocks) {
        for c in 0..fb.rho.len() {
            assert!((ab.rho[c] - fb.rho[c] - 0.25).abs() < 1e-14);
            assert!((ab.rho_e[c] - fb.rho_e[c]).abs() < 1e-12 * fb.rho_e[c]);
        }
    }
}
