//! Time to generate the cascade mesh `turbopt mesh` builds for `blades/ls89.ron` and
//! `blades/t106c.ron` at the coarse and medium densities, with criterion. The mesher runs on the
//! calling thread, so the figures are single-core times (a medium mesh is meant to take well
//! under 10 s).
//!
//! `cargo bench --bench mesh`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use turbopt::geometry::load_blade_file;
use turbopt::mesh::generate::generate_cascade_mesh;
use turbopt::mesh::Density;

fn mesh_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("mesh_generation");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    for (name, path) in [("ls89", concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")), ("t106c", concat!(env!("CARGO_MANIFEST_DIR"), "/blades/t106c.ron"))] {
        let blade = load_blade_file(path).expect("blade file");
        let outline = blade.outline().expect("outline");
        let op = blade.operating_points.first().expect("operating point");
        for density in [Density::Coarse, Density::Medium] {
            let spec = turbopt::mesh::passage::passage_spec(&blade, &blade.cascade, &outline, op, density).expect("passage spec");
            let cells = generate_cascade_mesh(&outline, &spec).expect("mesh").n_cells();
            group.bench_function(format!("{name}/{density:?}/{cells}_cells").to_lowercase(), |b| b.iter(|| generate_cascade_mesh(&outline, &spec).expect("mesh")));
        }
    }
    group.finish();
}

criterion_group!(benches, mesh_generation);
criterion_main!(benches);
