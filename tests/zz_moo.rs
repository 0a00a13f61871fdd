use turbopt::eval::analytic::{AnalyticEvaluator, AnalyticProblem};
use turbopt::optim::front::minimize_front;
use turbopt::optim::gde3::{Gde3, Gde3Settings};
use turbopt::optim::de::ParameterControl;
use turbopt::optim::{EvaluatorProblem, FrontSelection};

#[test]
fn zz_compare() {
    let cases = vec![
        (AnalyticProblem::Zdt1 { dim: 30 }, 5000usize),
        (AnalyticProblem::Zdt2 { dim: 30 }, 5000),
        (AnalyticProblem::Zdt3 { dim: 30 }, 5000),
        (AnalyticProblem::Dtlz2 { dim: 12, objectives: 3 }, 10000),
        (AnalyticProblem::C2Dtlz2 { dim: 12, objectives: 2 }, 2000),
        (AnalyticProblem::BraninCurrin, 500),
    ];
    let controls = [("jde-pm-sqrt", ParameterControl::jde(), Some(20.0), 0), ("jde-sqrt", ParameterControl::jde(), None, 0)];
    for (p, budget) in cases {
        let e = AnalyticEvaluator::new(p.clone()).unwrap();
        let m = e.n_objectives();
        for (name, c, pm, div) in controls {
            let mut hvs = vec![];
            for seed in 1..=5 {
                let mut st = Gde3Settings::for_budget(budget, seed);
                st.control = c; st.polynomial_mutation = pm; let _ = div; st.population = ((budget as f64).sqrt().round() as usize).clamp(8,100); st.bounds = turbopt::optim::de::BoundHandling::Clamp;
                st.reference = e.reference_point();
                let prob = EvaluatorProblem::new(&e, FrontSelection { objectives: (0..m).collect(), constraints: None }).unwrap();
                let out = minimize_front(prob, Gde3::new(st)).unwrap();
                hvs.push(out.hypervolume);
            }
            hvs.sort_by(f64::total_cmp);
            println!("{p:?} {name}: median {:.5} min {:.5} max {:.5}", hvs[2], hvs[0], hvs[4]);
        }
    }
}
