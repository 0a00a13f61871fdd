//! Parity of the reductions (cuda/reduce.cu): deterministic, equal to the CPU's to round-off.

use super::*;

#[test]
#[ignore = "needs a CUDA device"]
fn residual_norms_and_minimum_match_cpu_and_repeat_exactly() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let r = random_field(&p.gc, 31);
        let rg = p.gpu.field_from_host(&p.gg, &r).unwrap();
        let nc = p.cpu.residual_norms(&p.gc, &r);
        let ng = p.gpu.residual_norms(&p.gg, &rg);
        for v in 0..5 {
            let rel = (nc[v] - ng[v]).abs() / nc[v];
            println!("{name}: norm of variable {v}: CPU {:.17e} GPU {:.17e} ({rel:.2e})", nc[v], ng[v]);
            assert!(rel <= PARITY, "{name}: norm {v} differs by {rel:e}");
        }
        // Deterministic: the same reduction twice, through the norm log, gives the same bits.
        let mut log = p.gpu.new_norm_log(3);
        for slot in 0..3 {
            p.gpu.log_residual_norms(&p.gg, &rg, &mut log, slot);
        }
        let logged = p.gpu.read_norm_log(&log, 3).unwrap();
        assert!(logged.iter().all(|n| *n == ng), "{name}: logged norms differ between repeats: {logged:?}");

        let s = random_scalars(&p.gc, 32, 0.5, 3.0);
        let sg = p.gpu.scalars_from_host(&s).unwrap();
        assert_eq!(p.cpu.min_scalar(&s), p.gpu.min_scalar(&sg), "{name}: min_scalar");
    }
}

/// The batched inner products (Anderson acceleration's Gram row over the mean-flow and SA
/// systems: pairs of two lengths) give the bits of one `dot` each, and the CPU's values to
/// round-off.
#[test]
#[ignore = "needs a CUDA device"]
fn batched_inner_products_equal_one_dot_each() {
    use turbopt::backend::ImplicitBackend;
    let (_, mesh) = meshes().into_iter().next().expect("a parity mesh");
    let p = Pair::new(&mesh);
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let lengths = |k: usize| if k < 12 { 4 * 16_000 + 3 } else { 16_000 + 1 };
    let host: Vec<Vec<f64>> = (0..24).map(|k| (0..lengths(k)).map(|_| rng.random_range(-1.0..1.0)).collect()).collect();
    let device: Vec<_> = host.iter().map(|v| p.gpu.vector_from_host(v).unwrap()).collect();
    // Each vector against the first of its length.
    let indices: Vec<(usize, usize)> = (1..24).filter(|&k| k != 12).map(|k| (k, if k < 12 { 0 } else { 12 })).collect();
    let batched = p.gpu.dots(&indices.iter().map(|&(a, b)| (&device[a], &device[b])).collect::<Vec<_>>());
    p.gpu.check().unwrap();
    let one_by_one: Vec<f64> = indices.iter().map(|&(a, b)| p.gpu.dot(&device[a], &device[b])).collect();
    assert_eq!(batched, one_by_one, "batched against one dot each");
    let cpu = p.cpu.dots(&indices.iter().map(|&(a, b)| (&host[a], &host[b])).collect::<Vec<_>>());
    let d = common::max_relative_difference(&cpu, &batched);
    println!("{} inner products of {} and {} values: GPU against CPU {d:.2e}", indices.len(), lengths(0), lengths(12));
    assert!(d <= PARITY, "GPU inner products differ from the CPU's by {d:e}");
}

/// The implicit scheme's update checks (`relative_change_partials`) and limited stage update
/// (`limited_axpy`, its factor computed on the device) against the CPU: the change to `w + dw`
/// and to another state, an update scaled by the limit and one applied whole, and states made
/// non-physical by a non-finite turbulence unknown or a negative density.
#[test]
#[ignore = "needs a CUDA device"]
fn update_checks_and_the_limited_update_match_cpu() {
    use turbopt::backend::{ImplicitBackend, NFLOW};
    let gas = Gas::default();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (w, wg) = p.state(&gas, 51, &mesh);
        let mut dw = random_field(&p.gc, 52);
        dw.blocks.iter_mut().flatten().for_each(|x| *x *= 0.05);
        let dwg = p.gpu.field_from_host(&p.gg, &dw).unwrap();
        let (cc, cg) = (p.cpu.max_relative_change(&p.gc, &gas, &w, &dw), p.gpu.max_relative_change(&p.gg, &gas, &wg, &dwg));
        println!("{name}: largest relative change CPU {cc:.17e} GPU {cg:.17e}");
        assert!(cc.is_finite() && cc > 0.0 && (cc - cg).abs() <= PARITY * cc, "{name}: max_relative_change CPU {cc:e} GPU {cg:e}");
        let mut to = w.clone();
        p.cpu.axpy_field(1.0, &dw, &mut to);
        let tog = p.gpu.field_from_host(&p.gg, &to).unwrap();
        let (bc, bg) = (p.cpu.relative_change_between(&p.gc, &gas, &w, &to), p.gpu.relative_change_between(&p.gg, &gas, &wg, &tog));
        assert!((bc - cc).abs() <= PARITY * cc && (bg - bc).abs() <= PARITY * bc, "{name}: relative_change_between CPU {bc:e} GPU {bg:e}");
        for limit in [0.5 * cc, 2.0 * cc] {
            let (mut lc, mut lg) = (w.clone(), p.gpu.field_from_host(&p.gg, &w).unwrap());
            p.cpu.add_limited_update(&p.gc, &gas, limit, &dw, &mut lc);
            p.gpu.add_limited_update(&p.gg, &gas, limit, &dwg, &mut lg);
            let diff = relative_difference(&lc, &p.host(&lg));
            println!("{name}: limited update, limit {limit:.3e}: {diff:.3e}");
            assert!(diff <= PARITY, "{name}: add_limited_update (limit {limit:e}) differs by {diff:e}");
        }
        assert!(p.cpu.is_physical(&p.gc, &gas, &w) && p.gpu.is_physical(&p.gg, &gas, &wg), "{name}: a physical state");
        let layout = p.gc.blocks[0].layout;
        let (np, cell) = (layout.n_padded(), layout.interior(3, 2));
        for (slot, value) in [(NFLOW, f64::NAN), (0, -1.0)] {
            let mut bad = w.clone();
            bad.blocks[0][slot * np + cell] = value;
            let badg = p.gpu.field_from_host(&p.gg, &bad).unwrap();
            assert!(!p.cpu.is_physical(&p.gc, &gas, &bad) && !p.gpu.is_physical(&p.gg, &gas, &badg), "{name}: variable {slot} = {value}");
            assert_eq!(p.gpu.relative_change_between(&p.gg, &gas, &wg, &badg), f64::INFINITY, "{name}: variable {slot} = {value}");
        }
    }
}
