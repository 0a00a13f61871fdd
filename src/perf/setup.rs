//! The case the model measures (blade, operating point, density, its mesh through the cascade
//! pipeline) and the solver settings of each method, derived from one base.

use std::path::{Path, PathBuf};

use super::model::Method;
use crate::backend::PreconditionerKind;
use crate::perf::bench::TestProblem;
use crate::cascade::{BladeChoice, CascadeSetup, PreparedCascade, SchemeChoice, SolverSettings};
use crate::flow::case::OperatingPoint;
use crate::geometry::blade_file::{load_blade_file, BladeFile};
use crate::mesh::Density;
use crate::solver::{Case, ImplicitConfig, Multigrid};
use crate::{Error, Result};

/// A meshed case.
pub struct CaseSetup {
    pub blade_path: PathBuf,
    pub blade: BladeFile,
    pub op: OperatingPoint,
    pub density: Density,
    pub prepared: PreparedCascade,
}

impl CaseSetup {
    /// Loads `blade_path`, picks the operating point `case` (default: the file's first) and
    /// meshes the main blade at `density` through the cascade pipeline.
    pub fn new(blade_path: &Path, case: Option<&str>, density: Density) -> Result<Self> {
        let blade = load_blade_file(blade_path)?;
        let op = match case {
            Some(name) => blade.operating_point(name)?.clone(),
            None => blade.operating_points.first().cloned().ok_or_else(|| Error::Input { path: blade_path.display().to_string(), reason: "the blade file has no operating point".into() })?,
        };
        let setup = CascadeSetup::new(&blade, vec![op.clone()], density);
        let prepared = PreparedCascade::new(&blade, BladeChoice::Main, &setup).map_err(Error::from)?;
        Ok(CaseSetup { blade_path: blade_path.to_path_buf(), blade, op, density, prepared })
    }

    pub fn cells(&self) -> usize {
        self.prepared.mesh.n_cells()
    }

    /// "LS89 MUR47 coarse (14,272 cells)".
    pub fn describe(&self) -> String {
        format!("{} {} {} ({} cells)", self.blade.name, self.op.name, self.density.name(), crate::perf::bench::thousands(self.cells()))
    }

    /// The benchmark's problem on this mesh: the single-grid explicit case from the cold start
    /// (the operations' inputs), which the implicit short run also starts from.
    pub fn test_problem(&self, methods: &MethodSettings) -> Result<TestProblem> {
        let case = Case { gas: self.prepared.gas, operating_point: self.op.clone(), solver: methods.explicit_single_grid.solver_config() };
        TestProblem::on_mesh(self.prepared.mesh.clone(), case, self.prepared.cold_start(&self.op), self.describe())
    }
}

/// The settings of each method, derived from one base (the cascade defaults, or a campaign's
/// solver section): the same model, CFL, stop tests and budgets apart from what the method
/// changes.
#[derive(Clone, Debug)]
pub struct MethodSettings {
    pub explicit_single_grid: SolverSettings,
    pub explicit_multigrid: SolverSettings,
    pub implicit: SolverSettings,
}

impl MethodSettings {
    /// From `base`: its explicit fields for the explicit methods (multigrid: its own cycle, or
    /// the cascade default's 3-level W-cycle when it has none; single grid: without it), its
    /// implicit section (or the implicit defaults) for the implicit one. Budgets: the scheme's
    /// default unless the base sets a larger one.
    pub fn from_base(base: &SolverSettings) -> Self {
        let explicit = |multigrid: Option<Multigrid>| {
            let mut s = base.clone();
            s.scheme = SchemeChoice::Explicit;
            s.config.scheme = crate::solver::Scheme::Explicit;
            s.config.multigrid = multigrid;
            s.max_iterations = base.max_iterations.max(SchemeChoice::Explicit.default_max_iterations());
            s
        };
        let multigrid = base.config.multigrid.or(crate::solver::SolverConfig::rans_sa().multigrid);
        let mut implicit = base.clone();
        implicit.scheme = SchemeChoice::Implicit;
        if matches!(implicit.config.scheme, crate::solver::Scheme::Explicit) {
            implicit.config.scheme = crate::solver::Scheme::Implicit(ImplicitConfig::default());
        }
        implicit.max_iterations = base.max_iterations.max(SchemeChoice::Implicit.default_max_iterations());
        MethodSettings { explicit_single_grid: explicit(None), explicit_multigrid: explicit(multigrid), implicit }
    }

    pub fn of(&self, method: Method) -> &SolverSettings {
        match method {
            Method::ExplicitSingleGrid => &self.explicit_single_grid,
            Method::ExplicitMultigrid => &self.explicit_multigrid,
            Method::Implicit => &self.implicit,
        }
    }

    /// Single-grid iterations before the multigrid's first coarse-grid correction.
    pub fn multigrid_delay(&self) -> usize {
        self.explicit_multigrid.config.multigrid.map_or(0, |m| m.delay)
    }

    /// The implicit section of the implicit settings.
    pub fn implicit_config(&self) -> ImplicitConfig {
        match &self.implicit.solver_config().scheme {
            crate::solver::Scheme::Implicit(c) => c.clone(),
            crate::solver::Scheme::Explicit => ImplicitConfig::default(),
        }
    }

    /// The settings of `method` with the implicit preconditioner fixed to `kind` (the one the
    /// hardware resolves `Auto` to).
    pub fn with_preconditioner(&self, method: Method, kind: PreconditionerKind) -> SolverSettings {
        let mut s = self.of(method).clone();
        if let crate::solver::Scheme::Implicit(c) = &mut s.config.scheme {
            c.preconditioner = kind;
        }
        s
    }
}
