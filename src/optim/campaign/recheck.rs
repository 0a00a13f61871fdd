//! Re-checking a CFD campaign's result on a finer mesh: the same evaluator at another density
//! scores a few of its designs (members spread along a front, or the baseline and the best
//! design), and the report says whether the designs keep their order in every objective, which
//! is what an optimizer run on the coarse mesh relies on.

use serde::{Deserialize, Serialize};

use super::config::CampaignConfig;
use super::log::json_f64;
use super::runner::CampaignSummary;
use super::CampaignEvaluator;
use crate::error::{Error, Result};
use crate::eval::cfd::CfdEvaluator;
use crate::eval::subspace::SubspaceEvaluator;
use crate::eval::Evaluator;
use crate::mesh::Density;

/// One re-checked design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecheckedDesign {
    /// What it is: `front member #index`, `baseline` or `best`.
    pub label: String,
    pub design: Vec<f64>,
    /// Objectives on the campaign's mesh and on the finer one (the campaign's selection).
    #[serde(with = "json_f64::vec")]
    pub campaign_mesh: Vec<f64>,
    #[serde(with = "json_f64::vec")]
    pub recheck_mesh: Vec<f64>,
    pub feasible: bool,
    /// The evaluation's status on the finer mesh (`ok` or why not).
    pub status: String,
}

/// The re-check of a campaign on another mesh density.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recheck {
    pub campaign: String,
    pub density: Density,
    pub objectives: Vec<String>,
    pub designs: Vec<RecheckedDesign>,
    /// Per objective: whether the designs that ran on both meshes come in the same order.
    pub order_preserved: Vec<bool>,
}

/// The designs to re-check: `members` front members spread evenly along the front (by its first
/// objective), or the baseline and the best design of a single-objective campaign.
fn chosen(summary: &CampaignSummary, baseline: &[f64], members: usize) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    match &summary.front {
        Some(front) => {
            let n = front.members.len();
            let k = members.min(n).max(1);
            let picks: Vec<usize> = if k == 1 { vec![0] } else { (0..k).map(|i| (i * (n - 1) + (k - 1) / 2) / (k - 1)).collect() };
            let mut picks = picks;
            picks.dedup();
            picks.iter().map(|&i| (format!("front member #{}", front.members[i].index), front.members[i].design.clone(), front.members[i].objectives.clone())).collect()
        }
        None => vec![
            ("baseline".into(), baseline.to_vec(), vec![summary.baseline_objective]),
            ("best".into(), summary.best_design.clone(), vec![summary.best_objective]),
        ],
    }
}

/// Score `members` designs of a finished CFD campaign (`config`, its `summary`) at `density`,
/// as one batch of the campaign's evaluator with only the mesh density changed.
pub fn recheck(config: &CampaignConfig, summary: &CampaignSummary, density: Density, members: usize) -> Result<Recheck> {
    let CampaignEvaluator::Cfd(cfd_config) = &config.evaluator else {
        return Err(Error::Other(format!("campaign {}: only CFD campaigns have a mesh to re-check on", config.name)));
    };
    let mut finer = cfd_config.clone();
    finer.density = density;
    let cfd = CfdEvaluator::new(finer)?;
    cfd.check_backend()?;
    let sub;
    let evaluator: &dyn Evaluator = match &config.variables {
        Some(names) => {
            sub = SubspaceEvaluator::new(&cfd, names)?;
            &sub
        }
        None => &cfd,
    };
    let selection = super::config::selection(config, evaluator)?;
    let view = super::config::front_selection(config, evaluator)?;
    let objectives = match &summary.front {
        Some(front) => front.objectives.clone(),
        None => vec![evaluator.objective_names()[selection.objective].clone()],
    };
    let picks = chosen(summary, &super::config::effective_space(config, evaluator.space())?.baseline, members);
    let designs: Vec<Vec<f64>> = picks.iter().map(|p| p.1.clone()).collect();
    let evaluations = evaluator.evaluate_batch(&designs);
    let rechecked: Vec<RecheckedDesign> = picks
        .into_iter()
        .zip(&evaluations)
        .map(|((label, design, campaign_mesh), e)| {
            let (recheck_mesh, feasible) = match &view {
                Some(v) => {
                    let s = v.score(e);
                    (s.objectives.clone(), s.is_feasible())
                }
                None => {
                    let s = selection.score(e);
                    (vec![s.objective], s.is_feasible())
                }
            };
            let status = e.status.to_string();
            RecheckedDesign { label, design, campaign_mesh, recheck_mesh, feasible, status }
        })
        .collect();
    let order_preserved = (0..objectives.len()).map(|k| same_order(&rechecked, k)).collect();
    Ok(Recheck { campaign: config.name.clone(), density, objectives, designs: rechecked, order_preserved })
}

/// Whether the designs that ran come in the same order in objective `k` on both meshes.
fn same_order(designs: &[RecheckedDesign], k: usize) -> bool {
    let ran: Vec<&RecheckedDesign> = designs.iter().filter(|d| d.status == "ok" && d.recheck_mesh[k].is_finite()).collect();
    let rank = |value: &dyn Fn(&RecheckedDesign) -> f64| {
        let mut order: Vec<usize> = (0..ran.len()).collect();
        order.sort_by(|&a, &b| value(ran[a]).total_cmp(&value(ran[b])));
        order
    };
    rank(&|d| d.campaign_mesh[k]) == rank(&|d| d.recheck_mesh[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design(a: f64, b: f64) -> RecheckedDesign {
        RecheckedDesign { label: String::new(), design: vec![], campaign_mesh: vec![a], recheck_mesh: vec![b], feasible: true, status: "ok".into() }
    }

    #[test]
    fn order_is_compared_over_the_designs_that_ran() {
        assert!(same_order(&[design(1.0, 1.5), design(2.0, 2.1), design(3.0, 3.3)], 0));
        assert!(!same_order(&[design(1.0, 2.5), design(2.0, 2.1)], 0));
        let mut failed = design(0.0, f64::NAN);
        failed.status = "Diverged".into();
        assert!(same_order(&[design(1.0, 1.5), failed, design(3.0, 3.3)], 0));
    }
}
