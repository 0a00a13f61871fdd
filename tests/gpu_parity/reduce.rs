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

/// The batched inner products (Anderson acceleration's Gram row) give the bits of one `dot`
/// each, and the CPU's values to round-off.
#[test]
#[ignore = "needs a CUDA device"]
fn batched_inner_products_equal_one_dot_each() {
    use turbopt::backend::ImplicitBackend;
    let (_, mesh) = meshes().into_iter().next().expect("a parity mesh");
    let p = Pair::new(&mesh);
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let n = 4 * 16_000 + 3;
    let host: Vec<Vec<f64>> = (0..23).map(|_| (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()).collect();
    let device: Vec<_> = host.iter().map(|v| p.gpu.vector_from_host(v).unwrap()).collect();
    let (x, others) = (&device[0], device[1..].iter().collect::<Vec<_>>());
    let batched = p.gpu.dots(x, &others);
    p.gpu.check().unwrap();
    let one_by_one: Vec<f64> = others.iter().map(|v| p.gpu.dot(v, x)).collect();
    assert_eq!(batched, one_by_one, "batched against one dot each");
    let cpu = p.cpu.dots(&host[0], &host[1..].iter().collect::<Vec<_>>());
    let d = common::max_relative_difference(&cpu, &batched);
    println!("{} inner products of {n} values: GPU against CPU {d:.2e}", others.len());
    assert!(d <= PARITY, "GPU inner products differ from the CPU's by {d:e}");
}
