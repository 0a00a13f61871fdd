//! An evaluator over a subset of another evaluator's design variables, the others held at their
//! baseline values: how a campaign optimizes a few chosen parameters of a blade whose full
//! parameterization has dozens.

use super::{DesignSpace, Evaluation, Evaluator};
use crate::{Error, Result};

pub struct SubspaceEvaluator<'a> {
    inner: &'a dyn Evaluator,
    /// Position in the inner design vector of each free variable.
    free: Vec<usize>,
    space: DesignSpace,
}

impl<'a> SubspaceEvaluator<'a> {
    /// Free the named variables of `inner` (in the given order); fails on an unknown name.
    pub fn new(inner: &'a dyn Evaluator, names: &[String]) -> Result<Self> {
        let full = inner.space();
        let free = names
            .iter()
            .map(|n| {
                full.names.iter().position(|m| m == n).ok_or_else(|| Error::Other(format!("no design variable named {n} (have {:?})", full.names)))
            })
            .collect::<Result<Vec<_>>>()?;
        let pick = |v: &[f64]| free.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let space = DesignSpace { names: names.to_vec(), lower: pick(&full.lower), upper: pick(&full.upper), baseline: pick(&full.baseline) };
        Ok(SubspaceEvaluator { inner, free, space })
    }

    /// The full design vector: baseline values with the free variables replaced.
    pub fn full_design(&self, design: &[f64]) -> Vec<f64> {
        let mut x = self.inner.space().baseline.clone();
        for (&i, &v) in self.free.iter().zip(design) {
            x[i] = v;
        }
        x
    }
}

impl Evaluator for SubspaceEvaluator<'_> {
    fn space(&self) -> &DesignSpace {
        &self.space
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        self.inner.evaluate(&self.full_design(design))
    }
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        let full: Vec<Vec<f64>> = designs.iter().map(|d| self.full_design(d)).collect();
        self.inner.evaluate_batch(&full)
    }
    fn batch_capacity(&self) -> usize {
        self.inner.batch_capacity()
    }
    fn evaluate_batch_reporting(&self, designs: &[Vec<f64>], report: &(dyn Fn(usize, &Evaluation) + Sync)) -> Vec<Evaluation> {
        let full: Vec<Vec<f64>> = designs.iter().map(|d| self.full_design(d)).collect();
        self.inner.evaluate_batch_reporting(&full, report)
    }
}
