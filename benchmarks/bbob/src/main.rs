//! Runs one of turbopt's optimizers on COCO's noiseless BBOB suite and writes COCO's standard
//! data (exdata/<result folder>/), which `python -m cocopp` turns into ECDF plots.
//!
//! ```sh
//! turbopt-bbob --optimizer lshade  --dimensions 5,10 --instances 1-15 --budget 10000
//! turbopt-bbob --optimizer kriging --dimensions 2,5  --instances 1-15 --budget 50
//! ```
//! `--suite-instances "instances: 1-5,71-80"` picks the instance numbers that `--instances`
//! indexes: coco-rs bundles COCO 2.5, whose default list (1-5, 91-100) differs from that of
//! the Python `coco-experiment` 2.8 the peers run on (1-5, 71-80).
//! `--budget` is the evaluation budget per problem divided by the dimension. One run per
//! problem and instance (L-SHADE and the Kriging optimizer spend their whole budget in one run;
//! jDE is restarted with a new seed while budget remains and the final target is not hit).

use std::cell::RefCell;
use std::time::Instant;

use coco_rs::{observer, suite, LogLevel, Observer, Suite};
use turbopt::optim::prelude::*;

/// A COCO problem as a turbopt problem. COCO's problem is evaluated through `&mut`, and
/// argmin evaluates through `&self` one design at a time here, hence the RefCell.
struct CocoProblem<'p, 's> {
    problem: RefCell<&'p mut coco_rs::Problem<'s>>,
    bounds: Bounds,
}

impl Bounded for CocoProblem<'_, '_> {
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl argmin::core::CostFunction for CocoProblem<'_, '_> {
    type Param = Vec<f64>;
    type Output = Scored;
    fn cost(&self, x: &Vec<f64>) -> Result<Scored, argmin::core::Error> {
        let mut y = [0.0];
        self.problem.borrow_mut().evaluate_function(x, &mut y);
        Ok(Scored::feasible(y[0]))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Which {
    LShade,
    Jde,
    Kriging,
}

struct Args {
    optimizer: Which,
    dimensions: String,
    instances: String,
    functions: String,
    budget: usize,
    /// COCO's suite instance string, e.g. "instances: 1-5,71-80"; empty: this COCO's default.
    suite_instances: String,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { optimizer: Which::LShade, dimensions: "5,10".into(), instances: "1-15".into(), functions: "1-24".into(), budget: 10_000, suite_instances: String::new() };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--optimizer" => {
                a.optimizer = match value.as_str() {
                    "lshade" => Which::LShade,
                    "jde" => Which::Jde,
                    "kriging" => Which::Kriging,
                    other => return Err(format!("unknown optimizer {other} (lshade, jde, kriging)")),
                }
            }
            "--dimensions" => a.dimensions = value,
            "--instances" => a.instances = value,
            "--functions" => a.functions = value,
            "--budget" => a.budget = value.parse().map_err(|e| format!("--budget {value}: {e}"))?,
            "--suite-instances" => a.suite_instances = value,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// One optimizer run on what is left of the problem's budget; returns its evaluations.
fn run_once(problem: &mut coco_rs::Problem, which: Which, budget: usize, seed: u64) -> Result<usize, OptimError> {
    let dim = problem.dimension();
    let target = problem.final_target_value();
    let (lower, upper): (Vec<f64>, Vec<f64>) = problem.ranges_of_interest().into_iter().map(|r| r.into_inner()).unzip();
    let coco = CocoProblem { problem: RefCell::new(problem), bounds: Bounds::new(lower, upper)? };
    let outcome = match which {
        Which::LShade | Which::Jde => {
            let variant = if which == Which::LShade { Variant::LShade } else { Variant::Jde };
            let mut st = DeSettings::variant(variant, dim, budget, seed);
            st.target = Some(target);
            minimize(coco, DifferentialEvolution::new(st))?
        }
        Which::Kriging => {
            let mut st = EgoSettings::for_dimension(dim, budget, seed);
            st.target = Some(target);
            minimize(coco, TwoLevel::new(st))?
        }
    };
    Ok(outcome.evaluations)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    LogLevel::Warning.set();
    let name = match args.optimizer {
        Which::LShade => "turbopt-LSHADE",
        Which::Jde => "turbopt-jDE",
        Which::Kriging => "turbopt-Kriging",
    };
    let options = format!("dimensions: {} instance_indices: {} function_indices: {}", args.dimensions, args.instances, args.functions);
    let mut suite = Suite::new(suite::Name::Bbob, &args.suite_instances, &options).ok_or("COCO refused the suite options")?;
    let observer_options = format!("result_folder: {name}_budget{} algorithm_name: {name}", args.budget);
    let mut observer = Observer::new(observer::Name::Bbob, &observer_options).ok_or("COCO refused the observer options")?;
    let started = Instant::now();
    while let Some(mut problem) = suite.next_problem(Some(&mut observer)) {
        let budget = args.budget * problem.dimension();
        let mut seed = 0;
        loop {
            let spent = problem.evaluations() as usize;
            let remaining = budget.saturating_sub(spent);
            if problem.final_target_hit() || remaining < 4 * problem.dimension().max(5) {
                break;
            }
            run_once(&mut problem, args.optimizer, remaining, seed)?;
            seed += 1;
        }
        println!(
            "{} {:>8} evaluations, best - target {:+.3e}, {:.0} s so far",
            problem.id(),
            problem.evaluations(),
            problem.best_observed_value() - problem.final_target_value(),
            started.elapsed().as_secs_f64()
        );
    }
    println!("data in {}", observer.result_folder());
    Ok(())
}
