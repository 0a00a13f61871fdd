//! Parity of the convective kernels (cuda/convective.cu).

use super::*;
use turbopt::backend::{ConvectiveScheme, Reconstruction};

#[test]
#[ignore = "needs a CUDA device"]
fn convective_residual_matches_cpu_on_random_states() {
    let gas = common::unit_gas();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for (seed, reconstruction, convect_nu_tilde) in
            [(1, Reconstruction::FirstOrder, false), (2, Reconstruction::SecondOrder, false), (3, Reconstruction::SecondOrder, true)]
        {
            let scheme = ConvectiveScheme { reconstruction, entropy_fix: 0.1, convect_nu_tilde, convect_intermittency: convect_nu_tilde, limiter_epsilon: [1e-4, 1e-4, 1e-4, 1e-4] };
            let (wc, wg) = p.state(&gas, seed, &mesh);
            let (mut rc, mut rg) = (p.cpu.new_field(&p.gc), p.gpu.new_field(&p.gg));
            p.gpu.fill_field(&mut rg, f64::NAN); // every entry must be written
            p.cpu.convective_residual(&p.gc, &gas, &scheme, &wc, &mut rc);
            p.gpu.convective_residual(&p.gg, &gas, &scheme, &wg, &mut rg);
            let diff = relative_difference(&rc, &p.host(&rg));
            println!("{name}: {reconstruction:?}, convect nu_tilde {convect_nu_tilde}: max relative difference {diff:.3e}");
            assert!(diff <= PARITY, "{name} {reconstruction:?}: GPU residual differs by {diff:e}");
        }
    }
}
