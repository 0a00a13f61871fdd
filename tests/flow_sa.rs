//! Spalart-Allmaras point-wise terms (Allmaras, Johnson & Spalart 2012).

use turbopt::flow::sa::*;

const NU: f64 = 1.5e-5;

/// The 2012 paper's formulas written out once more, line by line, independently of the
/// library's factoring (no shared helpers, no derivative bookkeeping).
fn reference_source(rho: f64, nu: f64, nt: f64, omega: f64, d: f64, grad: [f64; 2], ft2_on: bool, bcm_onset: Option<f64>) -> f64 {
    let (cb1, cb2, sigma, kappa, cw2, cw3, cv1, cv2, cv3, ct3, ct4): (
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
        f64,
    ) = (0.1355, 0.622, 2.0 / 3.0, 0.41, 0.3, 2.0, 7.1, 0.7, 0.9, 1.2, 0.5);
    let cw1 = cb1 / (kappa * kappa) + (1.0 + cb2) / sigma;
    let cb2_part = cb2 / sigma * (grad[0] * grad[0] + grad[1] * grad[1]);
    if nt < 0.0 {
        let p = cb1 * (1.0 - ct3) * omega * nt;
        let dest = -cw1 * (nt / d).powi(2);
        return rho * (p - dest + cb2_part);
    }
    let chi: f64 = nt / nu;
    let fv1 = chi.powi(3) / (chi.powi(3) + cv1.powi(3));
    let fv2 = 1.0 - chi / (1.0 + chi * fv1);
    let s_bar = nt * fv2 / (kappa * kappa * d * d);
    let s_tilde = if s_bar >= -cv2 * omega {
        omega + s_bar
    } else {
        omega + omega * (cv2 * cv2 * omega + cv3 * s_bar) / ((cv3 - 2.0 * cv2) * omega - s_bar)
    };
    let r = if s_tilde > 0.0 { (nt / (s_tilde * kappa * kappa * d * d)).min(10.0) } else { 10.0 };
    let g = r + cw2 * (r.powi(6) - r);
    let fw = g * ((1.0 + cw3.powi(6)) / (g.powi(6) + cw3.powi(6))).powf(1.0 / 6.0);
    let ft2 = if ft2_on { ct3 * (-ct4 * chi * chi).exp() } else { 0.0 };
    // SA-BCM (NASA TMR, 2020 revision): gamma_BC on the production.
    let gamma = match bcm_onset {
        Some(re_theta_c) => {
            let re_theta = rho * d * d * omega / (rho * nu) / 2.193;
            let term1 = (re_theta - re_theta_c).max(0.0) / (0.002 * re_theta_c);
            let term2 = (nt * fv1 * 50.0 / nu).max(0.0);
            1.0 - (-(term1.sqrt() + term2.sqrt())).exp()
        }
        None => 1.0,
    };
    let p = gamma * cb1 * (1.0 - ft2) * s_tilde * nt;
    let dest = (cw1 * fw - cb1 / (kappa * kappa) * ft2) * (nt / d).powi(2);
    rho * (p - dest + cb2_part)
}

/// (nu~, vorticity, wall distance) covering: log layer, wake (small vorticity), near-wall,
/// the limited S~ branch (fv2 < 0 with weak vorticity), the r = 10 cap, and SA-neg.
fn states() -> Vec<(f64, f64, f64)> {
    vec![
        (3.0 * NU, 2.0e4, 1e-3),
        (50.0 * NU, 50.0, 0.02),
        (0.5 * NU, 1.0e5, 1e-5),
        (3.0 * NU, 1.0, 1e-4),
        // Limited S~ branch with r below its cap (S_bar = -0.8 Omega, r ~ 2.3).
        (3.0 * NU, 4.95e4, 1e-4),
        (200.0 * NU, 1.0e3, 1e-5),
        (-2.0 * NU, 3.0e3, 1e-3),
        (-0.01 * NU, 10.0, 1e-2),
    ]
}

/// SA-noft2, SA with ft2, and SA-BCM at two onsets (Tu = 1 %: Re_theta_c 494, and 150, so
/// that the states have Re_theta on both sides of it).
fn variants() -> [SaSourceOptions; 4] {
    let o = |with_ft2, bcm_onset| SaSourceOptions { with_ft2, bcm_onset, intermittency_tu: None };
    [o(false, None), o(true, None), o(false, Some(494.0)), o(false, Some(150.0))]
}

#[test]
fn fv1_and_eddy_viscosity_limits() {
    assert_eq!(fv1(0.0), 0.0);
    assert!((fv1(CV1) - 0.5).abs() < 1e-15);
    assert!((fv1(1e4) - 1.0).abs() < 1e-9);
    // Small chi: fv1 ~ chi^3/cv1^3.
    assert!((fv1(1e-2) / (1e-6 / CV1.powi(3)) - 1.0).abs() < 1e-8);
    let rho = 1.2;
    assert_eq!(eddy_viscosity(rho, -3.0 * NU, NU), 0.0);
    assert_eq!(eddy_viscosity(rho, 0.0, NU), 0.0);
    let big = 1e4 * NU;
    assert!((eddy_viscosity(rho, big, NU) / (rho * big) - 1.0).abs() < 1e-9);
    assert!((eddy_viscosity(rho, CV1 * NU, NU) - 0.5 * rho * CV1 * NU).abs() < 1e-18);
}

#[test]
fn source_matches_an_independent_evaluation() {
    let grad = [30.0 * NU / 1e-3, -5.0 * NU / 1e-3];
    for o in variants() {
        for (nt, omega, d) in states() {
            let s = sa_source(1.1, NU, nt, omega, d, grad, o);
            let reference = reference_source(1.1, NU, nt, omega, d, grad, o.with_ft2, o.bcm_onset);
            assert!(
                (s.total - reference).abs() <= 1e-12 * reference.abs().max(s.production.abs()),
                "nu~ {nt:e}, Omega {omega}, d {d}, {o:?}: {} vs {reference}",
                s.total
            );
            assert!((s.production - s.destruction + s.cb2_term - s.total).abs() <= 1e-15 * s.total.abs().max(1e-300));
        }
    }
}

#[test]
fn limited_s_tilde_branch_is_positive_and_continuous() {
    // fv2 < 0 for chi of order 1-10: S_bar < 0; the 2012 limiting keeps S~ > 0.
    let (nt, d) = (3.0 * NU, 1e-4);
    for omega in [1e-3, 1.0, 10.0] {
        assert!(modified_vorticity(nt, NU, omega, d) > 0.0, "Omega {omega}");
    }
    // Continuity where the branches meet: S_bar = -cv2 Omega.
    // Without vorticity the limited S~ is exactly zero (and r then takes its cap).
    assert_eq!(modified_vorticity(nt, NU, 0.0, d), 0.0);
    let chi = nt / NU;
    let fv2 = 1.0 - chi / (1.0 + chi * fv1(chi));
    let s_bar = nt * fv2 / (KAPPA * KAPPA * d * d);
    assert!(s_bar < 0.0);
    let omega_switch = -s_bar / CV2;
    let below = modified_vorticity(nt, NU, omega_switch * (1.0 - 1e-10), d);
    let above = modified_vorticity(nt, NU, omega_switch * (1.0 + 1e-10), d);
    assert!((below - above).abs() < 1e-8 * omega_switch, "{below} vs {above}");
}

#[test]
fn source_derivative_matches_finite_differences() {
    let grad = [0.0, 0.0];
    for o in variants() {
        for (nt, omega, d) in states() {
            let s = sa_source(1.1, NU, nt, omega, d, grad, o);
            let h = 1e-6 * nt.abs();
            let plus = sa_source(1.1, NU, nt + h, omega, d, grad, o).total;
            let minus = sa_source(1.1, NU, nt - h, omega, d, grad, o).total;
            let fd = (plus - minus) / (2.0 * h);
            let scale = fd.abs().max(s.production.abs() / nt.abs());
            assert!(
                (s.d_total_d_nu_tilde - fd).abs() < 1e-6 * scale,
                "nu~ {nt:e}, Omega {omega}, d {d}, {o:?}: {} vs FD {fd}",
                s.d_total_d_nu_tilde
            );
        }
    }
}

#[test]
fn sa_neg_is_continuous_at_zero() {
    let (omega, d, grad) = (2.0e3, 1e-3, [0.0, 0.0]);
    for o in variants() {
        let with_ft2 = o.with_ft2;
        let at_zero = sa_source(1.0, NU, 0.0, omega, d, grad, o);
        assert_eq!(at_zero.total, 0.0);
        let eps = 1e-10 * NU;
        let plus = sa_source(1.0, NU, eps, omega, d, grad, o).total;
        let minus = sa_source(1.0, NU, -eps, omega, d, grad, o).total;
        // Both sides are linear in nu~ near 0 with slope ~ cb1 (1 - ft2) Omega.
        let slope_scale = CB1 * omega;
        assert!(plus.abs() < 2.0 * slope_scale * eps && minus.abs() < 2.0 * slope_scale * eps);
        // With ft2 the two sides also share the slope cb1 (1 - ct3) Omega (ft2(0) = ct3).
        if with_ft2 {
            assert!(((plus - minus) / (2.0 * eps) - CB1 * (1.0 - CT3) * omega).abs() < 1e-6 * slope_scale);
        }
    }
    // The SA-neg diffusion coefficient is continuous too: f_n(0) = 1.
    assert_eq!(diffusion_fn(0.0), 1.0);
    assert!((diffusion_fn(-1e-6) - 1.0).abs() < 1e-15);
    assert!(diffusion_fn(-1.0) < 1.0 && diffusion_fn(-1.0) > 0.0);
}

#[test]
fn diffusion_and_convection_fluxes() {
    let (rho, nt) = (1.2, 4.0 * NU);
    let grad = [2.0e-3, -1.0e-3];
    let n = [0.8, -0.6];
    let f = sa_diffusion_flux(rho, NU, nt, grad, n, 0.3);
    let expected = rho * (NU + nt) / SIGMA * (grad[0] * n[0] + grad[1] * n[1]) * 0.3;
    assert!((f - expected).abs() < 1e-15 * expected.abs());
    // SA-neg: the nu~ contribution is scaled by f_n.
    let neg = -0.5 * NU;
    let f = sa_diffusion_flux(rho, NU, neg, grad, n, 0.3);
    let expected = rho * (NU + neg * diffusion_fn(neg / NU)) / SIGMA * (grad[0] * n[0] + grad[1] * n[1]) * 0.3;
    assert!((f - expected).abs() < 1e-15 * expected.abs());
    // Upwind convection.
    assert_eq!(sa_convective_flux(2.0, 1.0, 5.0), 2.0);
    assert_eq!(sa_convective_flux(-2.0, 1.0, 5.0), -10.0);
    assert_eq!(sa_convective_flux(3.0, 7.0, 7.0), 21.0);
    // Its derivatives are the upwind weights, consistent with the flux for either sign.
    for m in [2.5, -1.5] {
        let (dl, dr) = sa_convective_flux_derivatives(m);
        assert_eq!(dl * 1.0 + dr * 5.0, sa_convective_flux(m, 1.0, 5.0));
    }
    // Solid-body rotation u = -w y, v = w x has vorticity 2 w; pure shear u = g y has g.
    assert_eq!(vorticity_magnitude([0.0, -3.0], [3.0, 0.0]), 6.0);
    assert_eq!(vorticity_magnitude([0.0, 40.0], [0.0, 0.0]), 40.0);
}

/// SA-BCM's intermittency: zero in a laminar layer below the onset (nu~ = 0, Re_theta <
/// Re_theta_c), rising once Re_theta passes it, near 1 in a free stream with the usual inflow
/// nu~ = 3 nu (Term 2 alone); the onset correlation at Tu = 1 % and 3 %.
#[test]
fn bcm_intermittency_switches_on_past_the_onset() {
    let onset = bcm_onset_reynolds(0.01);
    assert!((onset - 493.8).abs() < 0.1, "Re_theta_c at Tu 1 %: {onset}");
    assert!(bcm_onset_reynolds(0.03) < onset, "more free-stream turbulence, earlier onset");
    // Re_theta = d^2 Omega / nu / 2.193: pick Omega for Re_theta = 0.5 and 2 x the onset.
    let d = 1e-3;
    let omega_at = |re_theta: f64| re_theta * 2.193 * NU / (d * d);
    let (below, _) = bcm_intermittency(NU, 0.0, omega_at(0.5 * onset), d, onset);
    assert_eq!(below, 0.0);
    let (above, _) = bcm_intermittency(NU, 0.0, omega_at(2.0 * onset), d, onset);
    let term1 = (onset / (0.002 * onset)).sqrt();
    assert!((above - (1.0 - (-term1).exp())).abs() < 1e-15, "{above}");
    let (free_stream, d_gamma) = bcm_intermittency(NU, 3.0 * NU, 0.0, d, onset);
    let term2 = (50.0 * 3.0 * fv1(3.0)).sqrt();
    assert!((free_stream - (1.0 - (-term2).exp())).abs() < 1e-15 && free_stream > 0.95, "{free_stream}");
    let h = 1e-6 * 3.0 * NU;
    let fd = (bcm_intermittency(NU, 3.0 * NU + h, 0.0, d, onset).0 - bcm_intermittency(NU, 3.0 * NU - h, 0.0, d, onset).0) / (2.0 * h);
    assert!((d_gamma - fd).abs() < 1e-6 * fd.abs(), "{d_gamma} vs FD {fd}");
}
