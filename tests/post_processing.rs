//! Post-processing on hand-built meshes with known flows.

use turbopt::flow::case::{isentropic_mach, OperatingPoint};
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::mesh::{Block, BoundaryKind, Face, Mesh, Patch};
use turbopt::post::{blade_surface, cascade_performance, mixed_out, pitchwise_cut, plane_averages, rms_against_measured, side_layers, BladeSide, CutSample, MeasuredMis};

fn uniform(block: &Block, gas: &Gas, rho: f64, u: f64, v: f64, p: f64) -> BlockSolution {
    let n = block.n_cells();
    let rho_e = p / (gas.gamma - 1.0) + 0.5 * rho * (u * u + v * v);
    BlockSolution { ni: block.ni, nj: block.nj, rho: vec![rho; n], rho_u: vec![rho * u; n], rho_v: vec![rho * v; n], rho_e: vec![rho_e; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() }
}

/// A sheared channel block: x in [0, 1], lower boundary y = 0.3 x, height 0.5 (a parallelogram,
/// as a cascade passage's periodic lines are).
fn sheared_channel(ni: usize, nj: usize) -> Block {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for j in 0..=nj {
        for i in 0..=ni {
            let xi = i as f64 / ni as f64;
            // A non-uniform pitchwise distribution to exercise unequal cells.
            let eta = (j as f64 / nj as f64).powf(1.3);
            x.push(xi);
            y.push(0.3 * xi + 0.5 * eta);
        }
    }
    let patches = Face::ALL.iter().map(|&face| {
        let len = if matches!(face, Face::IMin | Face::IMax) { nj } else { ni };
        Patch { face, start: 0, end: len, kind: BoundaryKind::InviscidWall }
    });
    Block { name: "channel".into(), ni, nj, x, y, patches: patches.collect() }
}

#[test]
fn cut_of_a_uniform_flow_gives_exact_averages() {
    let gas = Gas::default();
    let block = sheared_channel(40, 24);
    let (rho, u, v, p) = (1.2, 100.0, -20.0, 1.0e5);
    let sol = Solution { blocks: vec![uniform(&block, &gas, rho, u, v, p)] };
    let mesh = Mesh { blocks: vec![block], pitch: 0.5 };
    let cut = pitchwise_cut(&mesh, &sol, gas.gamma, 0.371);
    let length: f64 = cut.iter().map(|c| c.dy).sum();
    assert!((length - 0.5).abs() < 1e-12, "cut length {length}");
    let t0 = p / (rho * gas.gas_constant) + (u * u + v * v) / (2.0 * gas.cp());
    let p0 = p * (t0 / (p / (rho * gas.gas_constant))).powf(gas.gamma / (gas.gamma - 1.0));
    let op = OperatingPoint { name: "t".into(), p01: p0, t01: t0, alpha1_deg: 0.0, p2: p, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    let perf = cascade_performance(&mesh, &sol, &gas, &op, 1e-9, 1.0 - 1e-9, 0.5);
    assert!((perf.mass_flow - rho * u * 0.5).abs() < 1e-9 * rho * u);
    assert!(perf.entropy_rise.abs() < 1e-14, "entropy rise {}", perf.entropy_rise);
    assert!((perf.exit_angle_deg - (v / u).atan().to_degrees()).abs() < 1e-12);
    assert!(perf.loss_coefficient.abs() < 1e-9, "loss {}", perf.loss_coefficient);
    let mach = ((u * u + v * v) / (gas.gamma * p / rho)).sqrt();
    assert!((perf.exit_isentropic_mach - mach).abs() < 1e-9, "{} vs {mach}", perf.exit_isentropic_mach);
}

/// An O-block round a circle of radius 1 (wall at j = 0), with a pressure that falls with y.
fn ring(ni: usize, nj: usize) -> Block {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for j in 0..=nj {
        let r = 1.0 + 0.1 * j as f64;
        for i in 0..=ni {
            // Start at the leading edge (x = -1) and go over the top (clockwise in x-y).
            let t = std::f64::consts::PI * (1.0 - 2.0 * i as f64 / ni as f64);
            x.push(r * t.cos());
            y.push(r * t.sin());
        }
    }
    let patches = vec![
        Patch { face: Face::JMin, start: 0, end: ni, kind: BoundaryKind::Wall },
        Patch { face: Face::JMax, start: 0, end: ni, kind: BoundaryKind::InviscidWall },
        Patch { face: Face::IMin, start: 0, end: nj, kind: BoundaryKind::InviscidWall },
        Patch { face: Face::IMax, start: 0, end: nj, kind: BoundaryKind::InviscidWall },
    ];
    Block { name: "ring".into(), ni, nj, x, y, patches }
}

#[test]
fn blade_surface_splits_sides_and_matches_measured_points() {
    let gas = Gas::default();
    let block = ring(128, 4);
    let mut bs = uniform(&block, &gas, 1.0, 0.0, 0.0, 1.0e5);
    // p = 1e5 (1 - 0.2 y_c): lower pressure (higher Mis) on the upper side.
    for j in 0..block.nj {
        for i in 0..block.ni {
            let c = block.cell(i, j);
            let n = [block.node(i, j), block.node(i + 1, j), block.node(i + 1, j + 1), block.node(i, j + 1)];
            let yc = n.iter().map(|&k| block.y[k]).sum::<f64>() / 4.0;
            bs.rho_e[c] = 1.0e5 * (1.0 - 0.2 * yc) / (gas.gamma - 1.0);
        }
    }
    let mesh = Mesh { blocks: vec![block], pitch: 0.0 };
    let p01 = 1.3e5;
    let op = OperatingPoint { name: "t".into(), p01, t01: 300.0, alpha1_deg: 0.0, p2: 1.0e5, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    let surface = blade_surface(&mesh, &Solution { blocks: vec![bs] }, &gas, &op, true);
    assert_eq!(surface.len(), 128);
    let ss: Vec<_> = surface.iter().filter(|p| p.side == BladeSide::Suction).collect();
    assert!(ss.iter().all(|p| p.y >= -0.05), "suction side is the upper arc");
    assert!(ss.windows(2).all(|w| w[1].x >= w[0].x - 1e-12), "ordered from LE to TE");
    // A "measured" tap placed on the exact first-cell pressure curve is matched closely.
    let tap = |side, x_from_le: f64| {
        let x: f64 = x_from_le - 1.0;
        let y = if side == BladeSide::Suction { (1.0 - x * x).sqrt() } else { -(1.0 - x * x).sqrt() };
        // cell-centre pressure is evaluated ~0.05 off the wall, at radius 1.05
        MeasuredMis { side, x_from_le, mis: isentropic_mach(p01, 1.0e5 * (1.0 - 0.2 * 1.05 * y), gas.gamma) }
    };
    let taps = vec![tap(BladeSide::Suction, 0.5), tap(BladeSide::Suction, 1.2), tap(BladeSide::Pressure, 0.7)];
    let cmp = rms_against_measured(&surface, &taps);
    assert!(cmp.rms < 2e-3, "rms {}", cmp.rms);
}

#[test]
fn mixed_out_state_of_a_uniform_cut_is_the_state_itself() {
    let gas = Gas::default();
    let (rho, u, v, p) = (1.1, 120.0, -300.0, 0.9e5);
    let cut: Vec<CutSample> = (0..7).map(|k| CutSample { dy: 0.01 * (1.0 + k as f64), rho, u, v, p, nu_tilde: 0.0 }).collect();
    let m = mixed_out(&cut, &gas).expect("a mixed-out state");
    assert!((m.rho - rho).abs() < 1e-12 * rho && (m.u - u).abs() < 1e-9 * u && (m.v - v).abs() < 1e-9 && (m.p - p).abs() < 1e-9 * p, "{m:?}");
    let avg = plane_averages(&cut, &gas);
    assert!((m.total_pressure - avg.total_pressure).abs() < 1e-9 * p);
}

/// Two streams of equal static pressure and total temperature but different speeds (a wake in
/// a free stream): mixing conserves mass, momentum and energy and loses total pressure, so the
/// mixed-out total pressure lies below the mass average and the entropy function above it.
#[test]
fn mixing_two_streams_conserves_fluxes_and_loses_total_pressure() {
    let gas = Gas::default();
    let g = gas.gamma;
    let p = 1.0e5;
    let stream = |speed: f64, t0: f64, dy: f64| {
        let t = t0 - speed * speed / (2.0 * gas.cp());
        let rho = p / (gas.gas_constant * t);
        let angle = (-60.0f64).to_radians();
        CutSample { dy, rho, u: speed * angle.cos(), v: speed * angle.sin(), p, nu_tilde: 0.0 }
    };
    let cut = vec![stream(300.0, 400.0, 0.7), stream(150.0, 400.0, 0.3)];
    let m = mixed_out(&cut, &gas).expect("a mixed-out state");
    let flux = |f: &dyn Fn(&CutSample) -> f64| cut.iter().map(|s| f(s) * s.dy).sum::<f64>();
    let mass = flux(&|s| s.rho * s.u);
    assert!((m.rho * m.u - mass).abs() < 1e-12 * mass);
    let x_mom = flux(&|s| s.rho * s.u * s.u + s.p);
    assert!((m.rho * m.u * m.u + m.p - x_mom).abs() < 1e-10 * x_mom);
    let y_mom = flux(&|s| s.rho * s.u * s.v);
    assert!((m.rho * m.u * m.v - y_mom).abs() < 1e-10 * y_mom.abs());
    let h = |rho: f64, u: f64, v: f64, p: f64| g / (g - 1.0) * p / rho + 0.5 * (u * u + v * v);
    let energy = flux(&|s| s.rho * s.u * h(s.rho, s.u, s.v, s.p));
    assert!((m.rho * m.u * h(m.rho, m.u, m.v, m.p) - energy).abs() < 1e-10 * energy);
    let avg = plane_averages(&cut, &gas);
    assert!(m.total_pressure < avg.total_pressure, "mixed {} vs mass-averaged {}", m.total_pressure, avg.total_pressure);
    assert!(m.entropy > avg.entropy);
}

/// Skin friction and the layer's state on the ring: a wall-cell velocity U along +x that turns
/// to -U behind x = 0.3 (reversed shear on both sides from there to the trailing edge), and an
/// eddy viscosity that is turbulent (mu_t / mu ~ 50) over the rear half of the upper side only.
/// Cf at the top is mu U / d / (P01 - p2) with d the height of the wall cell's centroid (about
/// 0.051), the solver's wall distance.
#[test]
fn skin_friction_and_boundary_layer_state_on_a_ring() {
    let gas = Gas::default();
    let block = ring(256, 4);
    let (rho, u, p) = (1.2, 20.0, 1.0e5);
    let mut bs = uniform(&block, &gas, rho, u, 0.0, p);
    let mu = gas.viscosity(p / (rho * gas.gas_constant));
    for j in 0..block.nj {
        for i in 0..block.ni {
            let c = block.cell(i, j);
            let n = [block.node(i, j), block.node(i + 1, j), block.node(i + 1, j + 1), block.node(i, j + 1)];
            let (xc, yc) = (n.iter().map(|&k| block.x[k]).sum::<f64>() / 4.0, n.iter().map(|&k| block.y[k]).sum::<f64>() / 4.0);
            if xc >= 0.3 {
                bs.rho_u[c] = -rho * u;
            }
            // chi = 50: mu_t / mu = 50 fv1(50) ~ 50.
            if xc > 0.0 && yc > 0.0 {
                bs.nu_tilde[c] = 50.0 * mu / rho;
            }
        }
    }
    let mesh = Mesh { blocks: vec![block], pitch: 0.0 };
    let op = OperatingPoint { name: "t".into(), p01: 1.3e5, t01: 300.0, alpha1_deg: 0.0, p2: p, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    let surface = blade_surface(&mesh, &Solution { blocks: vec![bs] }, &gas, &op, true);
    let top = surface.iter().filter(|s| s.side == BladeSide::Suction).min_by(|a, b| a.x.abs().total_cmp(&b.x.abs())).unwrap();
    // The wall cell's centroid above its face: an annular sector of half-angle alpha between
    // radii 1 and 1.1 has its centroid at (2/3)(1.1^3 - 1)/(1.1^2 - 1) sin(alpha)/alpha, the
    // face chord lies at cos(alpha).
    let alpha = std::f64::consts::PI / 256.0;
    let d = 2.0 / 3.0 * (1.1f64.powi(3) - 1.0) / (1.1f64.powi(2) - 1.0) * alpha.sin() / alpha - alpha.cos();
    let expected = mu * u / d / (op.p01 - op.p2);
    assert!((top.cf / expected - 1.0).abs() < 0.01, "Cf at the top {} vs {expected}", top.cf);
    let layers = side_layers(&surface);
    for layer in &layers {
        assert_eq!(layer.separations.len(), 1, "{layer:?}");
        let (start, end) = layer.separations[0];
        assert!((start - 1.3).abs() < 0.03 && end > 1.95, "{:?}: reversed shear from x_from_le {start} to {end}", layer.side);
    }
    let (ss, ps) = (&layers[0], &layers[1]);
    assert!(ss.transition_x_from_le.is_some_and(|x| (x - 1.0).abs() < 0.03), "{ss:?}");
    assert!((ss.laminar_fraction - 0.5).abs() < 0.02, "{ss:?}");
    assert!(ps.transition_x_from_le.is_none() && ps.laminar_fraction == 1.0, "{ps:?}");
    let inviscid = blade_surface(&mesh, &Solution { blocks: vec![uniform(&mesh.blocks[0], &gas, rho, u, 0.0, p)] }, &gas, &op, false);
    assert!(inviscid.iter().all(|s| s.cf == 0.0), "an inviscid flow has no wall shear");
}
