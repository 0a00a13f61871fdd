//! Campaign runner: RON files, results log, plots, and kill -9 + resume.

use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use turbopt::eval::{DesignSpace, Evaluation, Evaluator};
use turbopt::optim::campaign::{build_evaluator, read_log, run_campaign, CampaignConfig, CampaignSummary, SilentObserver};

fn optimize_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("optimize")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("turbopt-campaign-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Slows every batch down (so a kill lands mid-run) and counts the designs evaluated.
struct Slow {
    inner: Box<dyn Evaluator>,
    delay: Duration,
    evaluated: AtomicUsize,
}

impl Evaluator for Slow {
    fn space(&self) -> &DesignSpace {
        self.inner.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, d: &[f64]) -> Evaluation {
        self.evaluate_batch(&[d.to_vec()]).remove(0)
    }
    fn evaluate_batch(&self, d: &[Vec<f64>]) -> Vec<Evaluation> {
        std::thread::sleep(self.delay);
        self.evaluated.fetch_add(d.len(), Ordering::SeqCst);
        self.inner.evaluate_batch(d)
    }
}

/// The campaigns the kill test runs: a DE one and a 2-level one, both with constraints or
/// enough generations to be interrupted.
fn kill_test_config(kind: &str) -> CampaignConfig {
    let text = match kind {
        "de" => r#"(name: "kill-de", evaluator: Analytic(G06), optimizer: DifferentialEvolution(population: Some(20)), budget: 800, seed: 5)"#,
        "gde3" => r#"(name: "kill-gde3", evaluator: Analytic(C2Dtlz2(dim: 6, objectives: 2)), objectives: Some(["f1", "f2"]), optimizer: Gde3(), budget: 600, seed: 5)"#,
        "kriging-front" => r#"(name: "kill-kriging-front", evaluator: Analytic(BraninCurrin), objectives: Some(["f1", "f2"]), reference_point: Some([18.0, 6.0]), optimizer: KrigingFront(batch_size: Some(2)), budget: 30, seed: 5)"#,
        _ => r#"(name: "kill-ego", evaluator: Analytic(Gomez3), optimizer: TwoLevel(batch_size: Some(2)), budget: 40, seed: 5)"#,
    };
    CampaignConfig::from_ron_str(text, kind).unwrap()
}

fn run(config: &CampaignConfig, dir: &Path, resume: bool, delay_ms: u64) -> (CampaignSummary, usize) {
    let slow = Slow { inner: build_evaluator(&config.evaluator).unwrap(), delay: Duration::from_millis(delay_ms), evaluated: AtomicUsize::new(0) };
    let summary = run_campaign(config, &slow, dir, resume, &mut SilentObserver).unwrap();
    (summary, slow.evaluated.load(Ordering::SeqCst))
}

/// Not a test of its own: the child process the kill tests start and kill.
#[test]
#[ignore = "helper: the kill-and-resume tests run it as a child process"]
fn campaign_child_process() {
    let (Ok(dir), Ok(kind)) = (std::env::var("TURBOPT_CHILD_DIR"), std::env::var("TURBOPT_CHILD_KIND")) else {
        return;
    };
    run(&kill_test_config(&kind), Path::new(&dir), false, 25);
}

fn complete_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.matches('\n').count()).unwrap_or(0)
}

fn kill_and_resume(kind: &str) {
    let config = kill_test_config(kind);
    let reference_dir = scratch(&format!("{kind}-reference"));
    let (reference, _) = run(&config, &reference_dir, false, 0);

    let dir = scratch(&format!("{kind}-killed"));
    let seed: u64 = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let kill_after = rand_chacha::ChaCha8Rng::seed_from_u64(seed).random_range(3..reference.evaluations * 3 / 4);
    println!("{kind}: killing after {kill_after} logged evaluations (seed {seed})");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["campaign_child_process", "--exact", "--ignored", "--test-threads=1"])
        .env("TURBOPT_CHILD_DIR", &dir)
        .env("TURBOPT_CHILD_KIND", kind)
        .spawn()
        .unwrap();
    let log = dir.join("evaluations.jsonl");
    let start = Instant::now();
    while complete_lines(&log) < kill_after && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = std::fs::read_to_string(&log).unwrap();
    let kept = before[..before.rfind('\n').map_or(0, |i| i + 1)].to_string();
    let logged = kept.matches('\n').count();
    assert!(logged >= kill_after && logged < reference.evaluations, "killed mid-run: {logged} of {}", reference.evaluations);

    let (resumed, evaluated_now) = run(&config, &dir, true, 0);
    println!("{kind}: {logged} evaluations survived the kill, {evaluated_now} evaluated on resume, {} in all", resumed.evaluations);
    // Nothing completed was lost or evaluated twice.
    assert_eq!(resumed.replayed, logged);
    assert_eq!(evaluated_now, resumed.evaluations - logged);
    assert!(std::fs::read_to_string(&log).unwrap().starts_with(&kept));
    // Same end as the uninterrupted run.
    assert_eq!(resumed.evaluations, reference.evaluations);
    assert_eq!(resumed.best_design, reference.best_design);
    assert_eq!(resumed.best_objective.to_bits(), reference.best_objective.to_bits());
    assert_eq!(resumed.front, reference.front);
    let designs = |d: &Path| read_log(&d.join("evaluations.jsonl")).unwrap().into_iter().map(|r| r.design).collect::<Vec<_>>();
    assert_eq!(designs(&dir), designs(&reference_dir));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference_dir);
}

#[test]
fn kill_9_and_resume_differential_evolution() {
    kill_and_resume("de");
}

#[test]
fn kill_9_and_resume_two_level() {
    kill_and_resume("ego");
}

#[test]
fn kill_9_and_resume_gde3_front() {
    kill_and_resume("gde3");
}

#[test]
fn kill_9_and_resume_kriging_front() {
    kill_and_resume("kriging-front");
}

/// The shipped analytic front campaigns run to their budgets and write the front's files; the
/// fronts reach the hypervolume their problems allow within a few per cent.
#[test]
fn analytic_front_campaigns_run_and_draw_their_fronts() {
    // (file, hypervolume of the exact front against the campaign's reference, fraction reached)
    for (file, exact, fraction) in [("analytic_zdt1_gde3.ron", 1.21 - 1.0 / 3.0, 0.9), ("analytic_branin_currin_kriging.ron", 59.36, 0.97)] {
        let config = CampaignConfig::from_ron_file(optimize_dir().join(file)).unwrap();
        let dir = scratch(file);
        let (summary, _) = run(&config, &dir, false, 0);
        let front = summary.front.as_ref().unwrap_or_else(|| panic!("{file}: no front"));
        println!("{file}: {} designs on the front, hypervolume {} of {exact}", front.members.len(), front.hypervolume);
        assert_eq!(summary.evaluations, config.budget);
        assert_eq!(Some(&front.reference_point), config.reference_point.as_ref());
        assert!(front.hypervolume > fraction * exact && front.hypervolume <= exact * 1.0001, "{file}: {}", front.hypervolume);
        assert!(front.history.windows(2).all(|w| w[1].1 >= w[0].1 && w[1].0 > w[0].0));
        for f in ["front.csv", "front.png", "hypervolume.png", "summary.json"] {
            assert!(std::fs::metadata(dir.join(f)).map(|m| m.len() > 100).unwrap_or(false), "{file}: {f}");
        }
        let csv = std::fs::read_to_string(dir.join("front.csv")).unwrap();
        assert_eq!(csv.lines().count(), front.members.len() + 1);
        assert!(csv.starts_with("index,f1,f2,x1,x2"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn front_campaigns_refuse_what_cannot_run() {
    let e = build_evaluator(&turbopt::optim::campaign::CampaignEvaluator::Analytic(turbopt::eval::analytic::AnalyticProblem::Zdt1 { dim: 4 })).unwrap();
    for (text, why) in [
        (r#"objectives: Some(["f1", "f2"]), optimizer: DifferentialEvolution()"#, "needs a multi-objective optimizer"),
        (r#"objectives: Some(["f1"]), optimizer: Gde3()"#, "at least two objectives"),
        (r#"objectives: Some(["f1", "drag"]), optimizer: KrigingFront()"#, "no objective named drag"),
        (r#"objectives: Some(["f1", "f2"]), reference_point: Some([1.0]), optimizer: Gde3()"#, "needs 2 finite values"),
        (r#"objective: Some("f1"), objectives: Some(["f1", "f2"]), optimizer: Gde3()"#, "not both"),
        (r#"objectives: Some(["f1", "f2"]), optimizer: Gde3(population: Some(3))"#, "population 3"),
    ] {
        let c = CampaignConfig::from_ron_str(&format!(r#"(name: "x", evaluator: Analytic(Zdt1(dim: 4)), {text}, budget: 100, seed: 1)"#), why).unwrap();
        let dir = scratch("bad-front");
        let err = run_campaign(&c, e.as_ref(), &dir, false, &mut SilentObserver).unwrap_err().to_string();
        assert!(err.contains(why), "{why}: {err}");
        assert!(!dir.join("evaluations.jsonl").exists(), "{why}: evaluated before refusing");
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Without objectives a front optimizer takes all of the evaluator's: Branin has one.
    let c = CampaignConfig::from_ron_str(r#"(name: "one", evaluator: Analytic(Branin), optimizer: Gde3(), budget: 100, seed: 1)"#, "one").unwrap();
    let e = build_evaluator(&c.evaluator).unwrap();
    let err = run_campaign(&c, e.as_ref(), &scratch("one-objective"), false, &mut SilentObserver).unwrap_err().to_string();
    assert!(err.contains("at least two objectives"), "{err}");
}

#[test]
fn analytic_campaign_files_parse_and_a_small_one_runs() {
    let mut n = 0;
    for entry in std::fs::read_dir(optimize_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("analytic_") && name.ends_with(".ron") {
            let c = CampaignConfig::from_ron_file(&path).unwrap();
            build_evaluator(&c.evaluator).unwrap();
            n += 1;
        }
    }
    assert!(n >= 3, "{n} analytic campaigns");

    let config = CampaignConfig::from_ron_file(optimize_dir().join("analytic_gomez3_ego.ron")).unwrap();
    let dir = scratch("gomez3");
    let (summary, _) = run(&config, &dir, false, 0);
    println!("{summary:#?}");
    assert_eq!(summary.evaluations, config.budget);
    assert!(summary.best_feasible && (summary.best_objective - (-0.9711)).abs() < 1e-3, "{}", summary.best_objective);
    assert!(summary.improvement.unwrap() > 0.9, "baseline f(0, 0) = 0");
    assert_eq!(read_log(&dir.join("evaluations.jsonl")).unwrap().len(), config.budget);
    for f in ["summary.json", "checkpoint.json", "campaign.ron", "convergence.png", "evaluations.png"] {
        assert!(std::fs::metadata(dir.join(f)).map(|m| m.len() > 100).unwrap_or(false), "{f}");
    }
    // A second fresh run into the same directory would clobber the log: refused.
    let slow = build_evaluator(&config.evaluator).unwrap();
    assert!(run_campaign(&config, slow.as_ref(), &dir, false, &mut SilentObserver).is_err());
    // Resuming a finished campaign replays everything and evaluates nothing.
    let (again, evaluated) = run(&config, &dir, true, 0);
    assert_eq!((again.replayed, evaluated), (config.budget, 0));
    assert_eq!(again.best_design, summary.best_design);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_campaigns_are_errors() {
    let base = r#"(name: "x", evaluator: Analytic(Branin), optimizer: DifferentialEvolution(), budget: 100, seed: 1"#;
    let e = build_evaluator(&CampaignConfig::from_ron_str(&format!("{base})"), "ok").unwrap().evaluator).unwrap();
    for (extra, why) in [
        (r#", bounds: [(variable: "x9", lower: 0.0, upper: 1.0)]"#, "unknown variable"),
        (r#", bounds: [(variable: "x1", lower: 2.0, upper: 1.0)]"#, "empty interval"),
        (r#", objective: Some("drag")"#, "unknown objective"),
        (r#", constraints: Some(["g7"])"#, "unknown constraint"),
    ] {
        let c = CampaignConfig::from_ron_str(&format!("{base}{extra})"), why).unwrap();
        let dir = scratch("bad");
        assert!(run_campaign(&c, e.as_ref(), &dir, false, &mut SilentObserver).is_err(), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Optimizer settings that cannot run (a budget that cuts the DE population below 4) fail with
/// the reason before the baseline is evaluated: nothing is spent on a campaign that cannot go on.
#[test]
fn unrunnable_optimizer_settings_fail_before_the_baseline() {
    let c = CampaignConfig::from_ron_str(r#"(name: "tiny", evaluator: Analytic(Branin), optimizer: DifferentialEvolution(population: Some(16)), budget: 3, seed: 1)"#, "tiny").unwrap();
    let e = build_evaluator(&c.evaluator).unwrap();
    let dir = scratch("tiny");
    let err = run_campaign(&c, e.as_ref(), &dir, false, &mut SilentObserver).unwrap_err().to_string();
    assert!(err.contains("population 2 is below the minimum of 4"), "{err}");
    assert!(!dir.join("evaluations.jsonl").exists(), "the baseline was evaluated before the check");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every campaign file in optimize/ (and those behind BENCHMARKS.md, in benchmarks/campaigns/)
/// parses, and its evaluator and variables are valid.
#[test]
fn campaign_files_in_optimize_parse_and_build() {
    let files = ["optimize", "benchmarks/campaigns"].into_iter().flat_map(|d| std::fs::read_dir(d).unwrap_or_else(|e| panic!("{d}: {e}")));
    for entry in files {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron") {
            let c = turbopt::optim::campaign::CampaignConfig::from_ron_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let ev = turbopt::optim::campaign::build_evaluator(&c.evaluator).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if let Some(names) = &c.variables {
                turbopt::eval::subspace::SubspaceEvaluator::new(ev.as_ref(), names).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }
}

/// Evaluates a batch and reports its evaluations in reverse order, as workers that finish out of
/// order do (`Evaluator::evaluate_batch_reporting`): the log's lines of a batch come in that
/// order, each with its index.
struct ReverseReporting(Box<dyn Evaluator>);

impl Evaluator for ReverseReporting {
    fn space(&self) -> &DesignSpace {
        self.0.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.0.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.0.constraint_names()
    }
    fn evaluate(&self, d: &[f64]) -> Evaluation {
        self.0.evaluate(d)
    }
    fn evaluate_batch_reporting(&self, designs: &[Vec<f64>], report: &(dyn Fn(usize, &Evaluation) + Sync)) -> Vec<Evaluation> {
        let out = self.0.evaluate_batch(designs);
        out.iter().enumerate().rev().for_each(|(k, e)| report(k, e));
        out
    }
}

/// A kill in the middle of a batch whose designs finish in any order leaves some of the batch's
/// evaluations logged (out of order) and others missing: the resume answers the logged ones
/// from the log, evaluates exactly the missing ones, and ends where the uninterrupted run ends.
#[test]
fn a_batch_cut_short_resumes_from_its_finished_evaluations_in_any_order() {
    let config = kill_test_config("de"); // population 20: batches of 20
    let reference_dir = scratch("gaps-reference");
    let reference = run_campaign(&config, &ReverseReporting(build_evaluator(&config.evaluator).unwrap()), &reference_dir, false, &mut SilentObserver).unwrap();
    let text = std::fs::read_to_string(reference_dir.join("evaluations.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains("\"index\":20,"), "the first generation's lines come last first: {}", &lines[1][..40]);

    // The run as a kill in the third generation leaves it: its first 7 lines (its last designs) written.
    let dir = scratch("gaps-killed");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(reference_dir.join("campaign.ron"), dir.join("campaign.ron")).unwrap();
    let cut: String = lines[..41 + 7].iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("evaluations.jsonl"), cut).unwrap();
    let logged = read_log(&dir.join("evaluations.jsonl")).unwrap();
    assert_eq!(logged.len(), 48);
    assert!(logged.windows(2).all(|w| w[0].index < w[1].index), "read back in index order");
    assert!(logged.last().unwrap().index > 47, "the cut batch leaves a gap: last index {}", logged.last().unwrap().index);

    let (resumed, evaluated_now) = run(&config, &dir, true, 0);
    assert_eq!(resumed.replayed, 48);
    assert_eq!(evaluated_now, reference.evaluations - 48, "only the missing evaluations run again");
    assert_eq!(resumed.evaluations, reference.evaluations);
    assert_eq!(resumed.best_design, reference.best_design);
    assert_eq!(resumed.best_objective.to_bits(), reference.best_objective.to_bits());
    let records = |d: &Path| read_log(&d.join("evaluations.jsonl")).unwrap().into_iter().map(|r| (r.index, r.design, r.objective.to_bits())).collect::<Vec<_>>();
    assert_eq!(records(&dir), records(&reference_dir));

    // A log that repeats an index is refused, naming the line.
    std::fs::write(dir.join("evaluations.jsonl"), format!("{}\n{}\n", lines[0], lines[0])).unwrap();
    let e = read_log(&dir.join("evaluations.jsonl")).unwrap_err().to_string();
    assert!(e.contains("line 2 repeats evaluation index 0"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference_dir);
}

/// Answers `Status::Interrupted` for every design once `after` designs were evaluated, as the
/// CFD evaluator does once its stop signal is requested (`CfdEvaluator::stop_signal`).
struct StopsAfter {
    inner: Box<dyn Evaluator>,
    after: usize,
    evaluated: AtomicUsize,
}

impl Evaluator for StopsAfter {
    fn space(&self) -> &DesignSpace {
        self.inner.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, d: &[f64]) -> Evaluation {
        self.evaluate_batch(&[d.to_vec()]).remove(0)
    }
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        designs
            .iter()
            .map(|d| match self.evaluated.fetch_add(1, Ordering::SeqCst) < self.after {
                true => self.inner.evaluate(d),
                false => Evaluation::failed(turbopt::eval::Status::Interrupted("stopped".into())),
            })
            .collect()
    }
}

/// A campaign whose evaluator is stopped mid-batch ends with `Error::Interrupted`, logs only the
/// evaluations that finished (none of the interrupted ones), writes no summary, and a resume
/// completes it to the uninterrupted result, evaluating only what the log lacks.
#[test]
fn an_interrupted_campaign_logs_what_finished_and_resumes_to_the_uninterrupted_result() {
    let config = kill_test_config("de"); // batches of 20
    let reference_dir = scratch("interrupt-reference");
    let (reference, _) = run(&config, &reference_dir, false, 0);

    let dir = scratch("interrupted");
    let stopping = StopsAfter { inner: build_evaluator(&config.evaluator).unwrap(), after: 50, evaluated: AtomicUsize::new(0) };
    let e = run_campaign(&config, &stopping, &dir, false, &mut SilentObserver).unwrap_err();
    assert!(matches!(e, turbopt::Error::Interrupted(_)), "{e}");
    assert!(e.to_string().contains("50 evaluations"), "{e}");
    assert_eq!(read_log(&dir.join("evaluations.jsonl")).unwrap().len(), 50, "the finished evaluations, no interrupted one");
    assert!(!dir.join("summary.json").exists(), "no summary for a campaign that did not end");
    assert_eq!(stopping.evaluated.load(Ordering::SeqCst), 60, "the baseline and three batches of 20: nothing after the batch that was stopped");

    let (resumed, evaluated_now) = run(&config, &dir, true, 0);
    assert_eq!(resumed.replayed, 50);
    assert_eq!(evaluated_now, reference.evaluations - 50);
    assert_eq!(resumed.best_design, reference.best_design);
    assert_eq!(resumed.best_objective.to_bits(), reference.best_objective.to_bits());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference_dir);
}
