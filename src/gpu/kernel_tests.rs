//! Every CUDA kernel family compiles with NVRTC for Hopper (sm_90) and exports the kernels its
//! wrapper loads. Needs the NVRTC library but no GPU, so kernels can be checked on a machine
//! without one: `scripts/check-kernels` runs these with a local NVRTC (pip wheel).

use super::{compile_family, sources};

/// Kernels each family must export (the names its wrapper in src/backend/gpu/ loads).
const EXPECTED: &[(&str, &[&str])] = &[
    ("boundary", &["fill_face_ghosts", "fill_corner_ghosts"]),
    ("convective", &["primitives", "face_fluxes", "gather_residual"]),
    ("update", &["fill", "axpy", "limited_axpy", "rk_stage_update", "add_time_term", "scale_turbulence_residual", "bound_intermittency", "scale", "divide", "normalize_by"]),
    (
        "reduce",
        &[
            "residual_square_partials",
            "residual_norms_finish",
            "min_partials",
            "min_finish",
            "relative_change_partials",
            "max_finish",
            "dot_fused",
            "subtract_projection_dot",
            "basis_dots",
            "subtract_combination",
        ],
    ),
    ("transfer", &["restrict_state", "restrict_residual", "prolong_correction"]),
    ("timestep", &["local_time_step", "smoothing_coefficients"]),
    ("smoothing", &["smooth_lines_constant", "smooth_lines_variable", "smoothing_active"]),
    (
        "viscous",
        &["viscous_cell_states", "viscous_node_values", "viscous_face_fluxes", "viscous_gather", "source_factor", "sa_source_derivative"],
    ),
    ("jacobian", &["assemble_flow_jacobian", "assemble_turbulence_jacobian", "gather_system", "scatter_system", "bsr4_spmv", "csr_spmv"]),
    (
        "ilu",
        &[
            "jacobi_invert_b4",
            "jacobi_apply_b4",
            "ilu_factor_level_b4",
            "ilu_forward_level_b4",
            "ilu_backward_level_b4",
            "ilu_factor_syncfree_b4",
            "ilu_forward_syncfree_b4",
            "ilu_backward_syncfree_b4",
            "ilu_forward_jacobi_b4",
            "ilu_backward_jacobi_b4",
            "jacobi_invert_b1",
            "jacobi_apply_b1",
            "ilu_factor_level_b1",
            "ilu_forward_level_b1",
            "ilu_backward_level_b1",
            "ilu_factor_syncfree_b1",
            "ilu_forward_syncfree_b1",
            "ilu_backward_syncfree_b1",
            "ilu_forward_jacobi_b1",
            "ilu_backward_jacobi_b1",
            "ilu_pack_factors_f32",
            "round_to_f32",
        ],
    ),
];

#[test]
#[ignore = "needs the NVRTC library (libnvrtc.so)"]
fn every_kernel_family_compiles_for_sm90() {
    let mut failures = Vec::new();
    for (name, _) in sources::FAMILIES {
        let started = std::time::Instant::now();
        match compile_family(name, "sm_90") {
            Ok(ptx) => {
                println!("{name}.cu: compiled in {:.2} s", started.elapsed().as_secs_f64());
                let wanted = EXPECTED.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, k)| *k);
                for kernel in wanted {
                    if !ptx.contains(&format!(".entry {kernel}(")) {
                        failures.push(format!("{name}.cu: kernel {kernel} missing from the PTX"));
                    }
                }
                if let Ok(dir) = std::env::var("TURBOPT_PTX_DIR") {
                    std::fs::write(format!("{dir}/{name}.ptx"), &ptx).unwrap();
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A device opened for the first time compiles every family side by side and leaves their PTX
/// in the kernel cache, where the next process finds it (src/gpu/ptx_cache.rs).
#[test]
#[ignore = "needs the NVRTC library (libnvrtc.so)"]
fn prepared_families_land_in_the_kernel_cache() {
    let dir = std::env::temp_dir().join(format!("turbopt-kernel-cache-{}", std::process::id()));
    std::env::set_var("TURBOPT_KERNEL_CACHE_DIR", &dir);
    let started = std::time::Instant::now();
    super::prepare_families("sm_90").unwrap();
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    println!("{} families compiled side by side in {:.2} s: {files:?}", sources::FAMILIES.len(), started.elapsed().as_secs_f64());
    for (name, _) in sources::FAMILIES {
        assert!(files.iter().any(|f| f.starts_with(&format!("{name}-")) && f.ends_with(".ptx")), "{name}: no cache file");
    }
    assert_eq!(files.len(), sources::FAMILIES.len());
    std::fs::remove_dir_all(&dir).unwrap();
}
