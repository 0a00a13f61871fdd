//! Stages 1-4 and 7: a checked blade section, its passage spec, its mesh and measurement planes
//! (everything a solve needs besides the flow), and the post-processing of a flow on them.

use super::planes::{Planes, EXIT_PLANE_AXIAL_CHORDS};
use super::section::{BladeChoice, Section};
use super::start::quasi_1d_start;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::geometry::validity::GeometryError;
use crate::geometry::BladeFile;
use crate::mesh::generate::{check_meshable, mesh_passage, PassageLayout, PassageSpec, Unmeshable};
use crate::mesh::passage::{passage_spec_for, trailing_edge_camber_angle_deg, MeshSettings};
use crate::mesh::quality::{QualityBounds, QualityReport, QualitySummary};
use crate::mesh::{Density, Mesh};
use crate::solver::FlowModel;
use crate::post::{blade_surface, CascadePerformance, PerformanceCuts, SurfacePoint};

/// Why a blade did not get as far as a flow to solve, or a flow gave no figures.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CascadeError {
    /// The section itself is not a blade (bounds, thickness, crossing sides, pitch overlap...).
    #[error("{0}")]
    Geometry(#[from] GeometryError),
    /// A passage the mesher cannot mesh, found before any mesh is made: a blade it cannot
    /// follow (`Unmeshable::is_blade`) or settings it refuses.
    #[error("{0}")]
    Unmeshable(#[from] Unmeshable),
    /// The passage spec or the mesher failed (settings such as the y+ target, or a mesher fault
    /// the checks did not foresee).
    #[error("{0}")]
    Mesh(String),
    /// The measurement planes do not fit the domain.
    #[error("{0}")]
    Planes(String),
    /// Post-processing gave a non-finite figure (a flow that is not physical somewhere).
    #[error("{point}: post-processing gave non-finite figures {figures:?} (entropy rise, exit angle, loss, mass flow, exit Mis)")]
    NonFiniteFigures { point: String, figures: [f64; 5] },
}

impl CascadeError {
    /// The mesher's error, its message without the crate error's "mesh generation failed"
    /// prefix (which the conversion back to [`crate::Error`] adds once).
    fn from_mesher(e: crate::Error) -> CascadeError {
        match e {
            crate::Error::Mesh(m) => CascadeError::Mesh(m),
            other => CascadeError::Mesh(other.to_string()),
        }
    }
}

impl From<CascadeError> for crate::Error {
    fn from(e: CascadeError) -> crate::Error {
        match e {
            CascadeError::Mesh(m) => crate::Error::Mesh(m),
            other => crate::Error::Mesh(other.to_string()),
        }
    }
}

/// What a cascade run needs besides the blade section.
#[derive(Clone, Debug, PartialEq)]
pub struct CascadeSetup {
    pub gas: Gas,
    /// The operating points the mesh must serve (its first cell meets the y+ target at all).
    pub points: Vec<OperatingPoint>,
    pub density: Density,
    pub mesh: MeshSettings,
    /// Exit measurement plane, in axial chords downstream of the leading edge.
    pub exit_plane_axial_chords: f64,
    /// The flow model the passage is solved with: an inviscid flow has no wall shear to report.
    pub model: FlowModel,
}

impl CascadeSetup {
    /// The blade file's gas at `points`, default mesh settings, the LS89 exit plane, RANS-SA.
    pub fn new(file: &BladeFile, points: Vec<OperatingPoint>, density: Density) -> Self {
        CascadeSetup {
            gas: file.gas,
            points,
            density,
            mesh: MeshSettings::default(),
            exit_plane_axial_chords: EXIT_PLANE_AXIAL_CHORDS,
            model: FlowModel::SpalartAllmaras,
        }
    }

    /// This setup for a solve with `model`.
    pub fn with_model(self, model: FlowModel) -> Self {
        CascadeSetup { model, ..self }
    }
}

/// A blade section that passed the geometry and meshability checks, with its passage laid out:
/// what is known before any mesh is made (milliseconds). The fields are read-only, so the
/// layout always belongs to this section.
#[derive(Clone, Debug)]
pub struct CheckedBlade {
    section: Section,
    layout: PassageLayout,
}

impl CheckedBlade {
    /// The section `choice` names in `file`, checked, and its passage for `setup`.
    pub fn new(file: &BladeFile, choice: BladeChoice, setup: &CascadeSetup) -> Result<Self, CascadeError> {
        Self::of_section(Section::of(file, choice)?, setup)
    }

    /// This blade's section checked again, and its passage laid out, for another `setup` (a
    /// coarser mesh density of a sequenced solve).
    pub fn for_setup(&self, setup: &CascadeSetup) -> Result<Self, CascadeError> {
        Self::of_section(self.section.clone(), setup)
    }

    fn of_section(section: Section, setup: &CascadeSetup) -> Result<Self, CascadeError> {
        let spec = passage_spec_for(&setup.gas, &section.cascade, &section.outline, &setup.points, setup.density, &setup.mesh)
            .map_err(|e| CascadeError::Mesh(e.to_string()))?;
        let layout = check_meshable(&section.outline, &spec)?;
        Ok(CheckedBlade { section, layout })
    }

    pub fn section(&self) -> &Section {
        &self.section
    }

    pub fn spec(&self) -> &PassageSpec {
        self.layout.spec()
    }

    /// Meshes the passage the check laid out and places the measurement planes.
    pub fn mesh(self, setup: &CascadeSetup) -> Result<PreparedCascade, CascadeError> {
        let mesh = mesh_passage(&self.layout).map_err(CascadeError::from_mesher)?;
        let planes = Planes::new(&mesh, &self.section.outline, setup.exit_plane_axial_chords)?;
        let cuts = PerformanceCuts::new(&mesh, planes.x_inlet, planes.x_outlet, planes.x_exit_measurement);
        let quality = QualityReport::of_mesh(&mesh).map_err(|e| CascadeError::Mesh(e.to_string()))?.summary();
        Ok(PreparedCascade { section: self.section, spec: self.layout.spec().clone(), mesh, planes, cuts, gas: setup.gas, viscous: setup.model.is_viscous(), quality })
    }
}

/// A meshed cascade ready to solve: section, passage, mesh, measurement planes and gas.
#[derive(Clone, Debug)]
pub struct PreparedCascade {
    pub section: Section,
    pub spec: PassageSpec,
    pub mesh: Mesh,
    pub planes: Planes,
    /// The cells `planes` cut in `mesh` as built (found once: the figures are looked at every
    /// few iterations); a `PreparedCascade` is built anew, not edited, for another mesh.
    cuts: PerformanceCuts,
    pub gas: Gas,
    /// Whether the flow is viscous (the surface then carries skin friction).
    pub viscous: bool,
    /// The mesh's worst quality figures.
    pub quality: QualitySummary,
}

/// The post-processed flow of one operating point.
#[derive(Clone, Debug)]
pub struct PointFigures {
    pub performance: CascadePerformance,
    /// Blade-surface isentropic Mach number.
    pub surface: Vec<SurfacePoint>,
}

impl PointFigures {
    /// The figures a cascade run reports and watches for convergence, in this order: entropy
    /// rise, exit angle \[deg\], loss coefficient, mass flow, exit isentropic Mach number.
    pub fn headline(&self) -> [f64; 5] {
        let p = &self.performance;
        [p.entropy_rise, p.exit_angle_deg, p.loss_coefficient, p.mass_flow, p.exit_isentropic_mach]
    }

    /// The mean of `all`, looks at one flow on one mesh (the same surface faces): every figure
    /// and the surface pressure, Mis, skin friction and eddy-viscosity ratio averaged point by
    /// point.
    pub fn mean(all: &[&PointFigures]) -> PointFigures {
        let n = all.len() as f64;
        let performance: Vec<&CascadePerformance> = all.iter().map(|f| &f.performance).collect();
        let mut surface = all[0].surface.clone();
        let mean_at = |k: usize, field: fn(&SurfacePoint) -> f64| all.iter().map(|f| field(&f.surface[k])).sum::<f64>() / n;
        for (k, s) in surface.iter_mut().enumerate() {
            s.p = mean_at(k, |p| p.p);
            s.mis = mean_at(k, |p| p.mis);
            s.cf = mean_at(k, |p| p.cf);
            s.eddy_viscosity_ratio = mean_at(k, |p| p.eddy_viscosity_ratio);
        }
        PointFigures { performance: CascadePerformance::mean(&performance), surface }
    }
}

impl PreparedCascade {
    /// Stages 1-4 in one call: check the blade, build its passage, mesh it, place the planes.
    pub fn new(file: &BladeFile, choice: BladeChoice, setup: &CascadeSetup) -> Result<Self, CascadeError> {
        CheckedBlade::new(file, choice, setup)?.mesh(setup)
    }

    /// (ni, nj) of every block (a warm start needs a solution of these sizes).
    pub fn block_sizes(&self) -> Vec<(usize, usize)> {
        self.mesh.blocks.iter().map(|b| (b.ni, b.nj)).collect()
    }

    /// The quasi-one-dimensional cold start at `op` (`start::quasi_1d_start`), turning towards
    /// the blade's trailing-edge camber direction, from inlet Mach 0.2.
    pub fn cold_start(&self, op: &OperatingPoint) -> Solution {
        let exit_angle = trailing_edge_camber_angle_deg(&self.section.outline);
        quasi_1d_start(&self.mesh, &self.gas, op, &self.planes, exit_angle, 0.2)
    }

    /// Performance on the planes and the blade-surface Mis of `solution` at `op`; non-finite
    /// figures are an error.
    pub fn figures(&self, op: &OperatingPoint, solution: &Solution) -> Result<PointFigures, CascadeError> {
        let performance = self.cuts.performance(solution, &self.gas, op);
        let figures = PointFigures { performance, surface: blade_surface(&self.mesh, solution, &self.gas, op, self.viscous) };
        let headline = figures.headline();
        if headline.iter().any(|v| !v.is_finite()) {
            return Err(CascadeError::NonFiniteFigures { point: op.name.clone(), figures: headline });
        }
        Ok(figures)
    }
}

/// The coarse mesh of a blade file at its first operating point, as `turbopt import` checks the
/// file it writes: the quality figures and the bounds the mesh misses.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MeshCheck {
    pub mesh: QualitySummary,
    pub mesh_outside_bounds: Vec<String>,
}

impl MeshCheck {
    /// Meshes `file`'s main blade (coarse, first operating point); the mesher's error if it
    /// cannot.
    pub fn of(file: &BladeFile) -> Result<MeshCheck, CascadeError> {
        let op = file.operating_points.first().cloned().ok_or_else(|| CascadeError::Mesh("the blade file has no operating point".into()))?;
        let setup = CascadeSetup::new(file, vec![op], Density::Coarse);
        let prepared = PreparedCascade::new(file, BladeChoice::Main, &setup)?;
        let report = QualityReport::of_mesh(&prepared.mesh).map_err(|e| CascadeError::Mesh(e.to_string()))?;
        Ok(MeshCheck { mesh: prepared.quality, mesh_outside_bounds: report.violations(&QualityBounds::default()) })
    }
}
