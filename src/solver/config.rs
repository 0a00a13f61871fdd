//! The solver's configuration (serde, so RON case files work) and its validation.

use serde::{Deserialize, Serialize};

use super::implicit_config::ImplicitConfig;
use super::multigrid::Multigrid;
use crate::backend::{BoundaryData, ConvectiveScheme, Reconstruction, SaSourceOptions};
use crate::flow::muscl::limiter_epsilon;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::{Error, Result};

/// Stage coefficients of the low-storage m-stage Runge-Kutta scheme (thesis eq. 4.8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RkScheme {
    /// Jameson's classical 4-stage set 1/4, 1/3, 1/2, 1 (fourth order for linear problems,
    /// the choice for time-accurate runs).
    Jameson4,
    /// Blazek's optimized 5-stage set for second-order upwind schemes, 0.0695, 0.1602, 0.2898,
    /// 0.5060, 1 (Blazek Table 6.1; stable up to CFL ~ 2.5 with local time stepping).
    Blazek5Upwind,
    /// Any other set; the last coefficient must be 1 for consistency.
    Custom(Vec<f64>),
}

impl RkScheme {
    pub fn coefficients(&self) -> Vec<f64> {
        match self {
            RkScheme::Jameson4 => vec![0.25, 1.0 / 3.0, 0.5, 1.0],
            RkScheme::Blazek5Upwind => vec![0.0695, 0.1602, 0.2898, 0.5060, 1.0],
            RkScheme::Custom(a) => a.clone(),
        }
    }
}

/// How the time step is chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeStepping {
    /// Each cell marches with its own stable step (steady state).
    Local,
    /// Time-accurate: every cell marches with the smallest stable step until `final_time` \[s\];
    /// the last step is shortened to land on it.
    Global { final_time: f64 },
}

/// Physical model of the run (inviscid, laminar, Spalart-Allmaras).
pub type FlowModel = crate::backend::Physics;

/// Central implicit residual smoothing (thesis eq. 4.15), with constant coefficients or with
/// the variable ones of thesis eq. 4.16.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidualSmoothing {
    /// Constant smoothing coefficients along i and j (0 switches a direction off), used when
    /// `variable` is `None`. Blazek eq. 9.36: eps >= ((CFL/CFL*)^2 - 1)/4 for a CFL raised from
    /// CFL* to CFL.
    pub epsilon: [f64; 2],
    /// Per-cell coefficients from the spectral radii (thesis eq. 4.16), recomputed every
    /// iteration: what stretched cells need, where one direction limits the time step.
    #[serde(default)]
    pub variable: Option<VariableSmoothing>,
}

/// Settings of the variable smoothing coefficients (`flow::spectral::smoothing_coefficients`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariableSmoothing {
    /// CFL / CFL*: the CFL number run over the largest one the unsmoothed scheme tolerates.
    pub cfl_ratio: f64,
    /// Constant C of thesis eq. 4.16 (about 5/4).
    #[serde(default = "default_smoothing_constant")]
    pub c: f64,
}

fn default_smoothing_constant() -> f64 {
    1.25
}

impl ResidualSmoothing {
    /// Constant coefficients along i and j (thesis eq. 4.15).
    pub fn constant(epsilon: [f64; 2]) -> Self {
        ResidualSmoothing { epsilon, variable: None }
    }

    /// Variable coefficients (thesis eq. 4.16) for a CFL `cfl_ratio` times the unsmoothed one.
    pub fn variable(cfl_ratio: f64) -> Self {
        ResidualSmoothing { epsilon: [0.0; 2], variable: Some(VariableSmoothing { cfl_ratio, c: default_smoothing_constant() }) }
    }
}

/// Time integration scheme of a case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// Explicit Runge-Kutta with the `SolverConfig` settings (`solver::explicit`).
    #[default]
    Explicit,
    /// The implicit scheme (`solver::implicit`) with its settings.
    Implicit(ImplicitConfig),
}

/// Everything the explicit solver needs besides the mesh and the gas.
///
/// Read from RON (a `--config` file, a campaign's `solver.config`), the fields a text leaves
/// out are those of [`SolverConfig::rans_sa`], the cascade default, so that `(scheme:
/// implicit((stages: 3)))` changes the stages of the solve a command would run anyway; in Rust,
/// `SolverConfig::default()` is the bare solver's Euler configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default = "SolverConfig::rans_sa", deny_unknown_fields)]
pub struct SolverConfig {
    pub model: FlowModel,
    /// Spalart-Allmaras source options (ft2 on/off).
    pub sa: SaSourceOptions,
    pub reconstruction: Reconstruction,
    pub cfl: f64,
    pub rk: RkScheme,
    pub time_stepping: TimeStepping,
    pub smoothing: Option<ResidualSmoothing>,
    /// FAS multigrid (steady runs with local time stepping only); `None`: single grid.
    pub multigrid: Option<Multigrid>,
    /// Iterations (multigrid: cycles) at most.
    pub max_iterations: usize,
    /// Converged when the density residual dropped this many orders below its first value
    /// (or below `residual_reference`).
    pub convergence_orders: f64,
    /// Density residual the orders are counted from; `None`: the largest of the first
    /// iterations. A restart or a warm start sets it to the cold start's value, so that it
    /// converges to the same absolute residual as a cold start instead of dropping
    /// `convergence_orders` below an already small residual.
    pub residual_reference: Option<f64>,
    /// Diverged when the density residual exceeds its first value by this factor.
    pub divergence_factor: f64,
    /// Harten entropy fix, fraction of |V| + c.
    pub entropy_fix: f64,
    /// Limiter threshold K: eps = (K q_ref)^2 with q_ref the inlet total density, total speed
    /// of sound and total pressure (`flow::muscl::limiter_epsilon`).
    pub limiter_k: f64,
    /// Time integration scheme: explicit Runge-Kutta (the fields above) or the implicit
    /// scheme with its own section (`solver::implicit`).
    pub scheme: Scheme,
    /// Explicit scheme: iterations between residual-norm read-backs (`None`: the backend's
    /// choice, `Backend::norm_readback_interval`). Convergence and divergence are seen at
    /// read-backs, so a solve may run up to this many iterations past its convergence.
    pub monitor_interval: Option<usize>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            model: FlowModel::Euler,
            sa: SaSourceOptions::default(),
            reconstruction: Reconstruction::SecondOrder,
            cfl: 1.5,
            rk: RkScheme::Blazek5Upwind,
            time_stepping: TimeStepping::Local,
            smoothing: None,
            multigrid: None,
            max_iterations: 20_000,
            convergence_orders: 6.0,
            residual_reference: None,
            divergence_factor: 1e5,
            entropy_fix: 0.1,
            limiter_k: 1e-2,
            scheme: Scheme::Explicit,
            monitor_interval: None,
        }
    }
}

impl SolverConfig {
    /// RANS-SA, second order: the cascade default. With the (default) implicit scheme the time
    /// integration comes from [`ImplicitConfig`]; the explicit fields are for `scheme:
    /// Explicit`: 5-stage Runge-Kutta at CFL 2 with a 3-level W-cycle whose coarse-grid
    /// corrections start after 150 single-grid iterations (started at once, the W-cycle is NaN
    /// at cycle 2 of the LS89 cascade start-up; the V-cycle stalls near 2.8 orders on LS89
    /// medium; variable residual smoothing at CFL 2 diverges: BENCHMARKS.md). The scheme's
    /// stability limit is about 2.5 (Blazek table 6.1); 2 keeps a margin. Against CFL 1, the
    /// H200 answered LS89 MUR47 medium in 2,520 cycles instead of 4,180 (5.6 s, not 9.4 s), LS89
    /// TC2_OP1 and T106C at Re 200k and 80k (medium) in 24-41 % fewer, and answered TC2_OP3,
    /// TC3_OP1_P30 and TC3_OP3_M30 as well, each at the first attempt, with figures nearer the implicit scheme's
    /// (LS89 MUR47 entropy rise 0.04 % from it, against 0.13 %; at CFL 1 T106C's periodic answer
    /// at 5 orders was 7 % from those of CFL 1.5-2.5, which agree within 0.2 %).
    pub fn rans_sa() -> Self {
        SolverConfig {
            model: FlowModel::SpalartAllmaras,
            cfl: 2.0,
            smoothing: None,
            multigrid: Some(Multigrid { levels: 3, cycle: super::multigrid::Cycle::W, correction_smoothing: 1.0, delay: 150 }),
            ..SolverConfig::default()
        }
    }

    /// A configuration read from RON over [`SolverConfig::rans_sa`], with the names of the
    /// fields the text sets (a command keeps its own budget and residual target unless the
    /// text sets them).
    pub fn from_ron_with_fields(text: &str) -> std::result::Result<(Self, Vec<String>), ron::error::SpannedError> {
        let config = ron::from_str(text)?;
        let fields = match ron::from_str::<ron::Value>(text)? {
            ron::Value::Map(map) => map.keys().filter_map(|k| if let ron::Value::String(name) = k { Some(name.clone()) } else { None }).collect(),
            _ => Vec::new(),
        };
        Ok((config, fields))
    }
}

/// The transition models' name as RON spells it (`sa_bcm`, `sa_gamma`); `None` for the others.
fn transition_model_name(model: FlowModel) -> Option<&'static str> {
    match model {
        FlowModel::SaBcm => Some("sa_bcm"),
        FlowModel::SaGamma => Some("sa_gamma"),
        _ => None,
    }
}

/// A transition model's onset is the point's free-stream turbulence intensity: it must be given,
/// as a fraction in (0, 1). Other models need nothing.
pub fn check_transition_onset(model: FlowModel, op: &OperatingPoint) -> std::result::Result<(), String> {
    let Some(name) = transition_model_name(model) else { return Ok(()) };
    match op.turbulence_intensity {
        Some(tu) if tu.is_finite() && tu > 0.0 && tu < 1.0 => Ok(()),
        Some(tu) => Err(format!("turbulence_intensity = {tu} of point `{}` must lie in (0, 1) (a fraction: 0.01 is 1 %)", op.name)),
        None => Err(format!("model {name} needs the free-stream turbulence_intensity of point `{}` (a fraction, e.g. 0.01 for 1 %)", op.name)),
    }
}

/// A flow case: gas, operating point (boundary data and limiter reference) and solver settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub gas: Gas,
    pub operating_point: OperatingPoint,
    #[serde(default)]
    pub solver: SolverConfig,
}

impl Case {
    /// The SA source options the backends get: the solver's, with SA-BCM's onset Reynolds
    /// number from the operating point's turbulence intensity for `model: sa_bcm`, and that
    /// intensity itself for `model: sa_gamma`.
    pub fn sa_options(&self) -> SaSourceOptions {
        let tu = self.operating_point.turbulence_intensity;
        let bcm_onset = match (self.solver.model, tu) {
            (FlowModel::SaBcm, Some(tu)) => Some(crate::flow::sa::bcm_onset_reynolds(tu)),
            _ => None,
        };
        let intermittency_tu = if self.solver.model == FlowModel::SaGamma { tu } else { None };
        SaSourceOptions { bcm_onset, intermittency_tu, ..self.solver.sa }
    }

    /// What the inlet and outlet impose: P0, T0 and direction at the inlet (with the inlet
    /// nu~ = ratio * nu at the inlet total conditions for SA), p2 at the outlet; no-slip walls
    /// for viscous models.
    pub fn boundary_data(&self) -> BoundaryData {
        let op = &self.operating_point;
        let alpha = op.alpha1_deg.to_radians();
        let turbulent = self.solver.model.is_turbulent();
        BoundaryData {
            p01: op.p01,
            t01: op.t01,
            inlet_direction: [alpha.cos(), alpha.sin()],
            p2: op.p2,
            inlet_nu_tilde: if turbulent { op.nu_tilde_ratio * self.inlet_kinematic_viscosity() } else { 0.0 },
            no_slip_walls: self.solver.model.is_viscous(),
        }
    }

    /// Laminar kinematic viscosity at the inlet total conditions [m^2/s] (reference for the
    /// inlet nu~ = ratio * nu).
    pub fn inlet_kinematic_viscosity(&self) -> f64 {
        let op = &self.operating_point;
        let rho01 = op.p01 / (self.gas.gas_constant * op.t01);
        self.gas.viscosity(op.t01) / rho01
    }

    /// The fine-grid convective scheme of the case. Limiter reference magnitudes (thesis
    /// eq. 4.13): inlet total density, total speed of sound (both velocity components) and total
    /// pressure.
    pub fn convective_scheme(&self) -> ConvectiveScheme {
        let (gas, op) = (&self.gas, &self.operating_point);
        let rho01 = op.p01 / (gas.gas_constant * op.t01);
        let c01 = (gas.gamma * gas.gas_constant * op.t01).sqrt();
        let k = self.solver.limiter_k;
        ConvectiveScheme {
            reconstruction: self.solver.reconstruction,
            entropy_fix: self.solver.entropy_fix,
            convect_nu_tilde: self.solver.model.is_turbulent(),
            convect_intermittency: self.solver.model.transports_intermittency(),
            limiter_epsilon: [limiter_epsilon(k, rho01), limiter_epsilon(k, c01), limiter_epsilon(k, c01), limiter_epsilon(k, op.p01)],
        }
    }

    /// Checks every number a run depends on; bad input gets a typed error naming it.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, value: f64| Error::Other(format!("invalid case: {what} = {value} must be finite and positive"));
        let positive = |what: &str, value: f64| if value.is_finite() && value > 0.0 { Ok(()) } else { Err(bad(what, value)) };
        let op = &self.operating_point;
        positive("p01", op.p01)?;
        positive("t01", op.t01)?;
        positive("p2", op.p2)?;
        positive("gas_constant", self.gas.gas_constant)?;
        positive("gamma - 1", self.gas.gamma - 1.0)?;
        if !op.alpha1_deg.is_finite() || op.alpha1_deg.abs() >= 90.0 {
            return Err(Error::Other(format!("invalid case: inlet angle alpha1 = {} deg must lie in (-90, 90)", op.alpha1_deg)));
        }
        let s = &self.solver;
        positive("cfl", s.cfl)?;
        positive("convergence_orders", s.convergence_orders)?;
        positive("divergence_factor", s.divergence_factor)?;
        if let Some(r) = s.residual_reference {
            positive("residual_reference", r)?;
        }
        if !(s.entropy_fix.is_finite() && s.entropy_fix >= 0.0) {
            return Err(bad("entropy_fix", s.entropy_fix));
        }
        positive("limiter_k", s.limiter_k)?;
        if s.model.is_turbulent() && !(op.nu_tilde_ratio.is_finite() && op.nu_tilde_ratio >= 0.0) {
            return Err(Error::Other(format!("invalid case: nu_tilde_ratio = {} must be finite and >= 0", op.nu_tilde_ratio)));
        }
        check_transition_onset(s.model, op).map_err(|e| Error::Other(format!("invalid case: {e}")))?;
        if let (Some(name), true) = (transition_model_name(s.model), s.sa.with_ft2) {
            return Err(Error::Other(format!("invalid case: {name} is built on SA-noft2; sa.with_ft2 must be false")));
        }
        let alphas = s.rk.coefficients();
        if alphas.is_empty() || alphas.iter().any(|a| !(a.is_finite() && *a > 0.0)) || alphas.last() != Some(&1.0) {
            return Err(Error::Other(format!("invalid case: RK coefficients {alphas:?} must be positive and end with 1")));
        }
        if let TimeStepping::Global { final_time } = s.time_stepping {
            positive("final_time", final_time)?;
        }
        if s.monitor_interval == Some(0) {
            return Err(Error::Other("invalid case: monitor_interval = 0 must be at least 1".into()));
        }
        if let Some(sm) = s.smoothing {
            if sm.epsilon.iter().any(|e| !(e.is_finite() && *e >= 0.0)) {
                return Err(Error::Other(format!("invalid case: smoothing epsilon {:?} must be finite and >= 0", sm.epsilon)));
            }
            if let Some(v) = sm.variable {
                if !(v.cfl_ratio.is_finite() && v.cfl_ratio >= 1.0 && v.c.is_finite() && v.c > 0.0) {
                    return Err(Error::Other(format!("invalid case: variable smoothing needs cfl_ratio >= 1 and c > 0, got {} and {}", v.cfl_ratio, v.c)));
                }
            }
        }
        if let Some(mg) = s.multigrid {
            if !(1..=4).contains(&mg.levels) {
                return Err(Error::Other(format!("invalid case: multigrid levels = {} must be 1 to 4", mg.levels)));
            }
            if !(mg.correction_smoothing.is_finite() && mg.correction_smoothing >= 0.0) {
                return Err(Error::Other(format!("invalid case: correction_smoothing = {} must be finite and >= 0", mg.correction_smoothing)));
            }
            if mg.levels > 1 && s.time_stepping != TimeStepping::Local {
                return Err(Error::Other("invalid case: multigrid needs local time stepping (steady runs)".into()));
            }
        }
        if s.max_iterations == 0 {
            return Err(Error::Other("invalid case: max_iterations must be at least 1".into()));
        }
        Ok(())
    }
}
