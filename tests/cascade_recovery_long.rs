//! The recovery chain on designs that campaigns lost (issue 17): LS89 designs that ended as "20
//! non-physical implicit steps in a row at the CFL floor" before the chain existed, evaluated
//! as their campaign evaluates them (warm-started from the baseline). Each must now end in a
//! result, and the diagnostics list the attempts it took.
//!
//! `cargo test --release --test cascade_recovery_long -- --ignored --nocapture`

use turbopt::eval::subspace::SubspaceEvaluator;
use turbopt::eval::{Evaluator, Status};
use turbopt::optim::campaign::{build_evaluator, CampaignConfig};

/// Designs of the default campaign (exit_metal_angle_deg, camber_4, camber_5, thickness_4) that
/// diverged: evaluation 8 of `cargo run --release -- optimize` at main cb280e7 ("MUR47: solver
/// diverged at iteration 65: 20 non-physical implicit steps in a row (CFL 0.5)", warm start).
const LOST: [[f64; 4]; 1] = [[-73.1004338876356, 0.17469031601331605, 0.17817483737985698, 0.2112446998482151]];

#[test]
#[ignore = "long validation: LS89 coarse RANS, the baseline and the designs the default campaign lost (minutes on 2 cores)"]
fn designs_the_default_campaign_lost_now_end_in_a_result() {
    let campaign = CampaignConfig::from_ron_file("optimize/default.ron").unwrap();
    let evaluator = build_evaluator(&campaign.evaluator).unwrap();
    let sub = SubspaceEvaluator::new(evaluator.as_ref(), campaign.variables.as_ref().unwrap()).unwrap();
    let baseline = sub.evaluate(&sub.space().baseline.clone());
    println!("baseline: {:?} {:?}", baseline.objectives, baseline.diagnostics);
    for design in LOST {
        let e = sub.evaluate(&design);
        println!("{design:?}: {:?} {:?}\n{:#?}", e.status, e.objectives, e.diagnostics);
        assert!(matches!(e.status, Status::Ok), "{:?}", e.status);
    }
}
