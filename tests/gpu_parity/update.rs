//! Parity of the element-wise kernels (cuda/update.cu).

use super::*;

#[test]
#[ignore = "needs a CUDA device"]
fn rk_stage_update_axpy_fill_and_turbulence_scaling_match_cpu() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (w0, r, w) = (random_field(&p.gc, 11), random_field(&p.gc, 12), random_field(&p.gc, 13));
        let dt = random_scalars(&p.gc, 14, 0.01, 0.1);
        let factor = random_scalars(&p.gc, 15, 0.1, 1.0);
        let up = |f: &CpuField| p.gpu.field_from_host(&p.gg, f).unwrap();
        let (w0g, rg, dtg, fg) = (up(&w0), up(&r), p.gpu.scalars_from_host(&dt).unwrap(), p.gpu.scalars_from_host(&factor).unwrap());
        for nvar in [4, 5, 6] {
            let (mut wc, mut wg) = (w.clone(), up(&w));
            p.cpu.rk_stage_update(&p.gc, nvar, 0.375, &w0, &r, &dt, &mut wc);
            p.gpu.rk_stage_update(&p.gg, nvar, 0.375, &w0g, &rg, &dtg, &mut wg);
            let diff = relative_difference(&wc, &p.host(&wg));
            println!("{name}: rk_stage_update, {nvar} variables: {diff:.3e}");
            assert!(diff <= PARITY, "{name}: rk_stage_update differs by {diff:e}");
        }
        let (mut yc, mut yg) = (w.clone(), up(&w));
        p.cpu.axpy_field(-0.7, &r, &mut yc);
        p.gpu.axpy_field(-0.7, &rg, &mut yg);
        let diff = relative_difference(&yc, &p.host(&yg));
        assert!(diff <= PARITY, "{name}: axpy_field differs by {diff:e}");

        let (mut sc, mut sg) = (r.clone(), up(&r));
        p.cpu.scale_turbulence_residual(&p.gc, &factor, &mut sc);
        p.gpu.scale_turbulence_residual(&p.gg, &fg, &mut sg);
        let diff = relative_difference(&sc, &p.host(&sg));
        assert!(diff <= PARITY, "{name}: scale_turbulence_residual differs by {diff:e}");
        let (mut sc, mut sg) = (r.clone(), up(&r));
        p.cpu.scale_intermittency_residual(&p.gc, &factor, &mut sc);
        p.gpu.scale_intermittency_residual(&p.gg, &fg, &mut sg);
        let diff = relative_difference(&sc, &p.host(&sg));
        assert!(diff <= PARITY, "{name}: scale_intermittency_residual differs by {diff:e}");
        let (mut bc, mut bg) = (w.clone(), up(&w));
        p.cpu.bound_intermittency(&p.gc, &mut bc);
        p.gpu.bound_intermittency(&p.gg, &mut bg);
        assert_eq!(relative_difference(&bc, &p.host(&bg)), 0.0, "{name}: bound_intermittency");

        let (mut fc, mut fgd) = (r.clone(), up(&r));
        p.cpu.fill_field(&mut fc, 2.5);
        p.gpu.fill_field(&mut fgd, 2.5);
        assert_eq!(relative_difference(&fc, &p.host(&fgd)), 0.0, "{name}: fill_field");

        let (mut s1, mut s2) = (dt.clone(), p.gpu.scalars_from_host(&dt).unwrap());
        p.cpu.fill_scalars(&mut s1, 0.25);
        p.gpu.fill_scalars(&mut s2, 0.25);
        assert_eq!(relative_difference_scalars(&s1, &p.gpu.scalars_to_host(&p.gg, &s2).unwrap()), 0.0, "{name}: fill_scalars");

        let (mut cc, mut cg) = (p.cpu.new_field(&p.gc), p.gpu.new_field(&p.gg));
        p.cpu.copy_field(&r, &mut cc);
        p.gpu.copy_field(&rg, &mut cg);
        assert_eq!(relative_difference(&cc, &p.host(&cg)), 0.0, "{name}: copy_field");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn state_upload_and_download_round_trip() {
    let gas = common::unit_gas();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let state = random_state(&mesh, &gas, 21);
        let wg = p.gpu.upload_state(&p.gg, &state).unwrap();
        let back = p.gpu.download_state(&p.gg, &wg);
        let cpu_back = p.cpu.download_state(&p.gc, &p.cpu.upload_state(&p.gc, &state).unwrap());
        assert_eq!(back, cpu_back, "{name}: upload/download differs from the CPU's");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_pseudo_time_term_matches_cpu() {
    use turbopt::backend::ImplicitBackend;
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (x, y) = (random_field(&p.gc, 21), random_field(&p.gc, 22));
        let dt = random_scalars(&p.gc, 23, 0.01, 0.1);
        let up = |f: &CpuField| p.gpu.field_from_host(&p.gg, f).unwrap();
        let (xg, dtg) = (up(&x), p.gpu.scalars_from_host(&dt).unwrap());
        let (mut yc, mut yg) = (y.clone(), up(&y));
        p.cpu.add_time_term(&p.gc, &dt, 1.5e-3, &x, &mut yc);
        p.gpu.add_time_term(&p.gg, &dtg, 1.5e-3, &xg, &mut yg);
        let diff = relative_difference(&yc, &p.host(&yg));
        println!("{name}: add_time_term: {diff:.3e}");
        assert!(yc != y, "{name}: the term changed y");
        assert!(diff <= PARITY, "{name}: add_time_term differs by {diff:e}");
    }
}
