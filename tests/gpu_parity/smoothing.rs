//! Parity of the implicit residual smoothing kernels (cuda/smoothing.cu), constant and per-cell
//! coefficients, 4 and 5 variables. The smoothing works in place on a random residual (every
//! entry, ghosts included, so that a stray write outside the interior lines would show). Lines of
//! 3 to 40 cells are solved on their copy in shared memory, those of 2,500 in place.

use super::*;
use turbopt::backend::Physics;

/// The parity meshes, and a channel whose i-lines are longer than a warp can copy into shared
/// memory (2,048 cells), so that the kernels' in-place path is compared too.
fn smoothing_meshes() -> Vec<(&'static str, Mesh)> {
    let mut all = meshes();
    all.push(("channel with 2,500-cell i-lines (solved in place)", wavy_channel(2500, 3, 50.0, 1.0, 0.05, Sides::inviscid_channel()).unwrap()));
    all
}

/// Smooths `r` on both backends and returns the largest relative difference.
fn compare(p: &Pair, r: &CpuField, smooth_cpu: impl Fn(&mut CpuField), smooth_gpu: impl Fn(&mut turbopt::backend::gpu::GpuField)) -> f64 {
    let (mut rc, mut rg) = (r.clone(), p.gpu.field_from_host(&p.gg, r).unwrap());
    smooth_cpu(&mut rc);
    smooth_gpu(&mut rg);
    assert_ne!(&rc, r, "the case smooths nothing: it would not test the kernels");
    relative_difference(&rc, &p.host(&rg))
}

#[test]
#[ignore = "needs a CUDA device"]
fn constant_coefficient_smoothing_matches_cpu() {
    for (name, mesh) in smoothing_meshes() {
        let p = Pair::new(&mesh);
        let r = random_field(&p.gc, 51);
        // Both directions, i only, j only (the other direction is skipped on both sides).
        for epsilon in [[0.6, 1.1], [2.5, 0.0], [0.0, 0.8]] {
            for nvar in [4, 5] {
                let diff = compare(&p, &r, |rc| p.cpu.smooth_residual(&p.gc, nvar, epsilon, rc), |rg| p.gpu.smooth_residual(&p.gg, nvar, epsilon, rg));
                println!("{name}: eps {epsilon:?}, {nvar} variables: {diff:.3e}");
                assert!(diff <= PARITY, "{name}: eps {epsilon:?}, {nvar} variables: GPU smoothing differs by {diff:e}");
            }
        }
    }
}

/// Per-cell coefficients of one case: (label, eps_i, eps_j).
type Coefficients = (&'static str, CpuScalars, CpuScalars);

/// Random coefficients with every 7th (i) and every 5th (j) cell zero, the coefficients of a
/// random viscous flow (thesis eq. 4.16, computed on the CPU), and two cases of the per-block
/// skip: eps_j all zero, and in the first block eps_j all negative (not smoothed on the CPU, so
/// not on the GPU either).
fn coefficient_cases(p: &Pair, mesh: &Mesh) -> Vec<Coefficients> {
    let with_zeros = |seed: u64, every: usize| {
        let mut s = random_scalars(&p.gc, seed, 0.0, 3.0);
        s.blocks.iter_mut().for_each(|b| b.iter_mut().step_by(every).for_each(|x| *x = 0.0));
        s
    };
    let gas = Gas { gas_constant: 1.0, mu_ref: 2e-3, t_ref: 1.0, sutherland_s: 0.4, ..Gas::default() };
    let w = p.cpu.upload_state(&p.gc, &random_state(mesh, &gas, 61)).unwrap();
    let mut flow = [p.cpu.new_scalars(&p.gc), p.cpu.new_scalars(&p.gc)];
    p.cpu.smoothing_coefficients(&p.gc, &gas, Physics::SpalartAllmaras, 2.0, 1.25, &w, &mut flow);
    let [flow_i, flow_j] = flow;
    let zero_j = CpuScalars { blocks: p.gc.blocks.iter().map(|b| vec![0.0; b.layout.n_interior()]).collect() };
    let mut negative_j = with_zeros(63, 5);
    negative_j.blocks[0].iter_mut().for_each(|x| *x = -0.3);
    vec![
        ("random with zero cells", with_zeros(62, 7), with_zeros(63, 5)),
        ("random viscous flow (eq. 4.16)", flow_i, flow_j),
        ("eps_j zero everywhere", with_zeros(64, 7), zero_j),
        ("eps_j negative in block 0", with_zeros(65, 7), negative_j),
    ]
}

#[test]
#[ignore = "needs a CUDA device"]
fn per_cell_coefficient_smoothing_matches_cpu() {
    for (name, mesh) in smoothing_meshes() {
        let p = Pair::new(&mesh);
        let r = random_field(&p.gc, 52);
        for (label, eps_i, eps_j) in coefficient_cases(&p, &mesh) {
            let eps_cpu = [eps_i, eps_j];
            let eps_gpu = [p.gpu.scalars_from_host(&eps_cpu[0]).unwrap(), p.gpu.scalars_from_host(&eps_cpu[1]).unwrap()];
            for nvar in [4, 5] {
                let diff = compare(
                    &p,
                    &r,
                    |rc| p.cpu.smooth_residual_variable(&p.gc, nvar, &eps_cpu, rc),
                    |rg| p.gpu.smooth_residual_variable(&p.gg, nvar, &eps_gpu, rg),
                );
                println!("{name}: {label}, {nvar} variables: {diff:.3e}");
                assert!(diff <= PARITY, "{name}: {label}, {nvar} variables: GPU smoothing differs by {diff:e}");
            }
        }
    }
}
