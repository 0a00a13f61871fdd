//! The GPU campaign against the CPU (needs a CUDA device):
//! `cargo test --release --features cuda --test eval_gpu -- --include-ignored --nocapture`.
//!
//! optimize/ls89_default_gpu.ron (the default campaign's variables, explicit scheme,
//! `backend: Gpu(device: 0)`) is run for its first 6 evaluations on the GPU and, with
//! `backend: Cpu`, on the CPU: the same designs, and objectives and constraints equal to 1e-6
//! relative. The campaign is cut to a budget of 6 (the baseline and a 5-sample Latin hypercube,
//! which depend on the seed alone, so both runs propose the same designs) and each solve to
//! `CYCLES` multigrid cycles, which keeps the test to a few minutes on a 16-core GPU host: the
//! solves stop short of 5 orders, and their unconverged objectives and constraints (reported
//! with `NotConverged`) are compared, the backends having run the same iterations.
#![cfg(feature = "cuda")]

use std::path::PathBuf;
use turbopt::eval::cfd::{BackendChoice, CfdEvaluator};
use turbopt::optim::campaign::{read_log, run_campaign, CampaignConfig, CampaignEvaluator, EvaluationRecord, SilentObserver};

const CAMPAIGN: &str = "optimize/ls89_default_gpu.ron";
const EVALUATIONS: usize = 6;
/// 150 single-grid iterations (the W-cycle's delay) and 250 W-cycles.
const CYCLES: usize = 400;
const RELATIVE_TOLERANCE: f64 = 1e-6;

/// The campaign's evaluation log, run on `backend` with the budget and iteration cuts above.
fn first_evaluations(backend: BackendChoice, tag: &str) -> Vec<EvaluationRecord> {
    let mut campaign = CampaignConfig::from_ron_file(CAMPAIGN).unwrap();
    campaign.budget = EVALUATIONS;
    let CampaignEvaluator::Cfd(cfd) = &mut campaign.evaluator else { panic!("{CAMPAIGN} is a CFD campaign") };
    cfd.solver.backend = backend;
    cfd.solver.max_iterations = CYCLES;
    let evaluator = CfdEvaluator::new(cfd.clone()).unwrap();
    evaluator.check_backend().unwrap();
    let dir: PathBuf = std::env::temp_dir().join(format!("turbopt-eval-gpu-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = std::time::Instant::now();
    run_campaign(&campaign, &evaluator, &dir, false, &mut SilentObserver).unwrap();
    println!("{tag}: {EVALUATIONS} evaluations in {:.1} s", start.elapsed().as_secs_f64());
    let records = read_log(&dir.join("evaluations.jsonl")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(records.len(), EVALUATIONS);
    records
}

fn assert_close(what: &str, cpu: &[f64], gpu: &[f64]) {
    assert_eq!(cpu.len(), gpu.len(), "{what}: {cpu:?} vs {gpu:?}");
    for (c, g) in cpu.iter().zip(gpu) {
        let relative = (c - g).abs() / c.abs().max(g.abs());
        assert!(c == g || relative <= RELATIVE_TOLERANCE, "{what}: CPU {c:e}, GPU {g:e} ({relative:.2e} relative)");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_campaign_first_evaluations_equal_the_cpu_ones() {
    let gpu = first_evaluations(BackendChoice::gpu(0), "gpu");
    let cpu = first_evaluations(BackendChoice::Cpu { threads: None }, "cpu");
    assert!(!cpu[0].objectives.is_empty(), "the baseline has no objectives: {:?}", cpu[0].status);
    for (c, g) in cpu.iter().zip(&gpu) {
        let what = format!("evaluation {}", c.index);
        println!("{what}: CPU {:?} {:?} {:?}, GPU {:?} {:?} ({})", c.status, c.objectives, c.constraints, g.objectives, g.constraints, g.backend);
        assert!(c.backend.starts_with("cpu") && !g.backend.starts_with("cpu"), "{what}: backends {} / {}", c.backend, g.backend);
        assert_eq!(c.design, g.design, "{what}: the runs proposed different designs");
        assert_eq!(std::mem::discriminant(&c.status), std::mem::discriminant(&g.status), "{what}: {:?} vs {:?}", c.status, g.status);
        assert_eq!(c.iterations, g.iterations, "{what}: iterations");
        assert_close(&format!("{what}, objectives"), &c.objectives, &g.objectives);
        assert_close(&format!("{what}, constraints"), &c.constraints, &g.constraints);
    }
}

/// A batch of 16 LS89 coarse designs (the default campaign: implicit scheme, RANS-SA, warm
/// starts from the baseline) on one GPU: the pool plans several designs at once, each on a
/// stream of its own (the evaluator's GPU pool), and the batch gives the results of the same 16 designs
/// run one after another (`batch.workers: Some(1)`): each design's arithmetic is the same on any
/// stream. Both wall times and their ratio are printed (the speed-up is a measurement for
/// BENCHMARKS.md, not a pass criterion); the baseline is solved before either clock starts.
#[test]
#[ignore = "needs a CUDA device"]
fn a_batch_of_16_designs_runs_concurrently_with_the_one_by_one_results() {
    use rand::{Rng, SeedableRng};
    use turbopt::eval::Evaluator;
    let campaign = CampaignConfig::from_ron_file("optimize/default.ron").unwrap();
    let CampaignEvaluator::Cfd(mut cfd) = campaign.evaluator.clone() else { panic!("the default campaign is a CFD campaign") };
    cfd.solver.backend = BackendChoice::gpu(0);
    let one_by_one = {
        let mut c = cfd.clone();
        c.batch.workers = Some(1);
        CfdEvaluator::new(c).unwrap()
    };
    let batched = CfdEvaluator::new(cfd).unwrap();
    let space = batched.space().clone();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
    let designs: Vec<Vec<f64>> = (0..16)
        .map(|_| {
            (0..space.baseline.len())
                .map(|k| {
                    let half_width = 0.15 * (space.upper[k] - space.lower[k]);
                    (space.baseline[k] + rng.random_range(-half_width..half_width)).clamp(space.lower[k], space.upper[k])
                })
                .collect()
        })
        .collect();
    let timed = |ev: &CfdEvaluator, tag: &str| {
        ev.evaluate(&space.baseline);
        let start = std::time::Instant::now();
        let out = ev.evaluate_batch(&designs);
        let s = start.elapsed().as_secs_f64();
        let ok = out.iter().filter(|e| e.objectives.iter().all(|o| o.is_finite()) && !e.objectives.is_empty()).count();
        println!("{tag}: 16 designs in {s:.2} s ({ok} with objectives; {:.0} evaluations an hour)", 16.0 * 3600.0 / s);
        (out, s)
    };
    // Concurrency is the pool's plan: more than one design at once on a host of several threads.
    let at_once = batched.batch_capacity();
    let host_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(at_once > 1 || host_threads == 1, "one design at a time on a host of {host_threads} threads");
    let (a, ta) = timed(&one_by_one, "one after another");
    let (b, tb) = timed(&batched, "batched");
    println!("batch speed-up {:.2}x (information only)", ta / tb);
    assert!(a.iter().any(|e| !e.objectives.is_empty()), "no design of the batch has objectives: {:?}", a.iter().map(|e| &e.status).collect::<Vec<_>>());
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(std::mem::discriminant(&x.status), std::mem::discriminant(&y.status), "design {k}: {:?} vs {:?}", x.status, y.status);
        assert_eq!((x.objectives.len(), x.constraints.len()), (y.objectives.len(), y.constraints.len()), "design {k}");
        for (p, q) in x.objectives.iter().zip(&y.objectives).chain(x.constraints.iter().zip(&y.constraints)) {
            assert!(p == q || (p - q).abs() <= 1e-12 * p.abs(), "design {k}: {p:e} vs {q:e}");
        }
    }
}

/// The multi-GPU worker pool on a one-GPU machine: `devices: [0, 0]` opens two workers on
/// device 0, each a CUDA context of its own with its own streams, and the
/// designs of a batch go to whichever worker frees up first (`eval::dispatch`). Eight LS89
/// coarse designs (the default campaign's evaluator: implicit, RANS-SA, warm starts) give the
/// results of one worker, in design order: each design's arithmetic is the same in any context
/// and on any stream.
#[test]
#[ignore = "needs a CUDA device"]
fn two_workers_sharing_one_device_give_the_one_worker_results_in_design_order() {
    use rand::{Rng, SeedableRng};
    use turbopt::eval::cfd::Devices;
    use turbopt::eval::Evaluator;

    let campaign = CampaignConfig::from_ron_file("optimize/default.ron").unwrap();
    let CampaignEvaluator::Cfd(mut cfd) = campaign.evaluator.clone() else { panic!("the default campaign is a CFD campaign") };
    let mut missing = cfd.clone();
    missing.solver.backend = BackendChoice::Gpu { devices: Devices::List(vec![0, 99]) };
    match CfdEvaluator::new(missing).unwrap().check_backend() {
        Err(turbopt::Error::Devices(e)) => assert!(e.to_string().contains("device 99"), "{e}"),
        other => panic!("a device that does not exist is Error::Devices naming it, got {:?}", other.err()),
    }
    cfd.solver.backend = BackendChoice::gpu(0);
    let one_worker = CfdEvaluator::new(cfd.clone()).unwrap();
    cfd.solver.backend = BackendChoice::Gpu { devices: Devices::List(vec![0, 0]) };
    let two_workers = CfdEvaluator::new(cfd).unwrap();
    two_workers.check_backend().unwrap();
    assert!(two_workers.batch_capacity() >= 2, "one worker per entry of the device list, each with a design at least");
    let space = one_worker.space().clone();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let designs: Vec<Vec<f64>> = (0..8)
        .map(|_| {
            (0..space.baseline.len())
                .map(|k| {
                    let half_width = 0.1 * (space.upper[k] - space.lower[k]);
                    (space.baseline[k] + rng.random_range(-half_width..half_width)).clamp(space.lower[k], space.upper[k])
                })
                .collect()
        })
        .collect();
    let timed = |ev: &CfdEvaluator, tag: &str| {
        ev.evaluate(&space.baseline);
        let start = std::time::Instant::now();
        let reported = std::sync::Mutex::new(Vec::new());
        let out = ev.evaluate_batch_reporting(&designs, &|k, _| reported.lock().unwrap().push(k));
        println!("{tag}: 8 designs in {:.2} s, finished in the order {:?}", start.elapsed().as_secs_f64(), reported.lock().unwrap());
        assert_eq!(reported.into_inner().unwrap().len(), 8, "{tag}: every design reported once");
        out
    };
    let a = timed(&one_worker, "one worker");
    let b = timed(&two_workers, "two workers on device 0");
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        println!("design {k}: {:?} {:?} | {:?} {:?}", x.status, x.objectives, y.status, y.objectives);
        assert!(!x.objectives.is_empty(), "design {k}: {:?}", x.status);
        assert_eq!(x.status, y.status, "design {k}");
        assert_eq!(x.diagnostics.iterations, y.diagnostics.iterations, "design {k}: iterations");
        for (p, q) in x.objectives.iter().zip(&y.objectives).chain(x.constraints.iter().zip(&y.constraints)) {
            assert!(p == q || (p - q).abs() <= 1e-12 * p.abs(), "design {k}: {p:e} vs {q:e}");
        }
    }
}
