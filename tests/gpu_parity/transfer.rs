//! Parity of the multigrid transfer kernels (cuda/transfer.cu).

use super::*;
use turbopt::mesh::coarsen::coarsen;

#[test]
#[ignore = "needs a CUDA device"]
fn restriction_and_prolongation_match_cpu() {
    for (name, mesh) in meshes() {
        let coarse_mesh = coarsen(&mesh).unwrap();
        let fine = Pair::new(&mesh);
        let (cpu, gpu) = (&fine.cpu, &fine.gpu);
        let cc = cpu.upload_geometry(&coarse_mesh).unwrap();
        let cg = gpu.upload_geometry(&coarse_mesh).unwrap();
        let wf = random_field(&fine.gc, 41);
        let wfg = gpu.field_from_host(&fine.gg, &wf).unwrap();

        let (mut c1, mut g1) = (cpu.new_field(&cc), gpu.new_field(&cg));
        cpu.restrict_state(&fine.gc, &cc, &wf, &mut c1);
        gpu.restrict_state(&fine.gg, &cg, &wfg, &mut g1);
        gpu.check().unwrap();
        let diff = relative_difference(&c1, &gpu.field_to_host(&cg, &g1).unwrap());
        assert!(diff <= PARITY, "{name}: restrict_state differs by {diff:e}");

        let (mut c2, mut g2) = (cpu.new_field(&cc), gpu.new_field(&cg));
        cpu.restrict_residual(&fine.gc, &cc, &wf, &mut c2);
        gpu.restrict_residual(&fine.gg, &cg, &wfg, &mut g2);
        gpu.check().unwrap();
        let diff = relative_difference(&c2, &gpu.field_to_host(&cg, &g2).unwrap());
        assert!(diff <= PARITY, "{name}: restrict_residual differs by {diff:e}");

        let start = random_field(&cc, 42);
        let startg = gpu.field_from_host(&cg, &start).unwrap();
        let (mut f3, mut g3) = (wf.clone(), gpu.field_from_host(&fine.gg, &wf).unwrap());
        cpu.prolong_correction(&cc, &fine.gc, &c1, &start, &mut f3);
        gpu.prolong_correction(&cg, &fine.gg, &g1, &startg, &mut g3);
        let diff = relative_difference(&f3, &fine.host(&g3));
        println!("{name}: transfers agree ({diff:.2e} for the prolongation)");
        assert!(diff <= PARITY, "{name}: prolong_correction differs by {diff:e}");
    }
}
