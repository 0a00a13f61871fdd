//! A blade of one's own from coordinates: reading a profile file, checking it, reading the blade's
//! figures off it (edges, radii, angles, chord, throat), fitting the design parameterization to
//! it (`geometry::fit`) and making the blade file an optimization starts from.
//!
//! Formats read ([`read_profile`]): `x, y` rows (commas, semicolons, tabs or spaces), with or
//! without a header, as one closed loop in either direction (Selig's order, from the trailing
//! edge round the leading edge, or any other start), or as two sides (two sections separated by
//! a blank line, two files, a `side` column such as `ss`/`ps`, or the four columns
//! `x_ss, y_ss, x_ps, y_ps` side by side). Comment lines start with `#`, `//`, `!` or `%`. The
//! sides are joined where their ends meet, whichever way each runs. A loop whose points are not
//! listed round the contour (swapped rows, a point cloud) is put in contour order first
//! (`geometry::contour`), and the report says so.


use std::path::Path;

use super::blade_file::{BladeDefinition, BladeFile};
use super::cascade::{throat, Cascade};
use super::coordinates::CoordinateBlade;
use super::fit::{fit_blade_to_outline, set_optimization_bounds, FitOptions};
use super::validity::{check_pitch_overlap, GeometryError};
use super::{dist, Outline, Point2};
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;

/// Why a profile cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{origin}, line {line}: {reason}")]
    Parse { origin: String, line: usize, reason: String },
    #[error("{origin}: {found} points, too few for a blade outline (at least {needed})")]
    TooFewPoints { origin: String, found: usize, needed: usize },
    #[error("duplicate points: points {first} and {second} are both ({x:.6}, {y:.6}) (in the file's units)")]
    Duplicate { first: usize, second: usize, x: f64, y: f64 },
    #[error("the outline is open: its ends are {gap:.6} apart ({percent:.1} % of the blade's size; in the file's units), give the whole blade (both sides)")]
    Open { gap: f64, percent: f64 },
    #[error("point {point} is not a finite number")]
    NotFinite { point: usize },
    #[error("{sections} sections of points: a blade is one closed loop or two sides")]
    Sections { sections: usize },
    #[error("the two sides do not meet: their nearest ends are {gap:.6} apart ({percent:.1} % of the blade's size; in the file's units)")]
    SidesApart { gap: f64, percent: f64 },
    #[error("a blade {chord_m:.4} m long cannot be right for a cascade (expected 1 mm to 2 m): check the units")]
    Units { chord_m: f64 },
    #[error("{0}")]
    Geometry(#[from] GeometryError),
    #[error("the imported blade file is not valid: {0}")]
    Invalid(String),
    /// A setting of the import out of its range (a pitch or chord that is not positive).
    #[error("{0}")]
    Setting(String),
    #[error("no operating point: give at least one (inlet total pressure and temperature, inlet flow angle, exit static pressure) so the blade can be solved")]
    NoOperatingPoint,
    #[error("the fit deviates from the coordinates by {max_percent:.3} % of the chord at ({x_mm:.3}, {y_mm:.3}) mm ({rms_percent:.4} % RMS), more than the tolerance of {tolerance_percent} %; write it anyway with --force, or loosen --fit-tolerance")]
    FitTooCoarse { rms_percent: f64, max_percent: f64, x_mm: f64, y_mm: f64, tolerance_percent: f64 },
}

impl From<ImportError> for crate::Error {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Read { path, source } => crate::Error::Io { path, source },
            other => crate::Error::Invalid(other.to_string()),
        }
    }
}

/// The units of the coordinates in a file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Units {
    Metres,
    Millimetres,
    Inches,
    /// Fractions of the chord (x/c, y/c), scaled by this chord in metres.
    Chord(f64),
}

impl Units {
    /// Metres per file unit.
    pub fn scale(self) -> f64 {
        match self {
            Units::Metres => 1.0,
            Units::Millimetres => 1e-3,
            Units::Inches => 0.0254,
            Units::Chord(c) => c,
        }
    }
}

/// The points of a profile file, in the file's units, as read: one loop, or two sides.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Where the points came from (for messages and the blade file's description).
    pub origin: String,
    /// One section (a loop) or two (the sides), each in its file order.
    pub sections: Vec<Vec<Point2>>,
}

/// Reads a profile from one file, or from two (one side each).
pub fn read_profile(paths: &[&Path]) -> Result<Profile, ImportError> {
    let mut sections = Vec::new();
    let mut origins = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read { path: path.display().to_string(), source })?;
        let origin = path.display().to_string();
        sections.extend(parse_sections(&text, &origin)?);
        origins.push(origin);
    }
    Ok(Profile { origin: origins.join(" + "), sections })
}

/// The sections of points in `text` (see the module notes for the formats).
pub fn parse_sections(text: &str, origin: &str) -> Result<Vec<Vec<Point2>>, ImportError> {
    let mut sections: Vec<Vec<Point2>> = vec![Vec::new()];
    let mut labelled: Vec<(String, Vec<Point2>)> = Vec::new();
    let mut paired: [Vec<Point2>; 2] = [Vec::new(), Vec::new()];
    let mut layout: Option<Layout> = None;
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let number = k + 1;
        if line.is_empty() {
            if sections.last().is_some_and(|s| !s.is_empty()) {
                sections.push(Vec::new());
            }
            continue;
        }
        if ["#", "//", "!", "%"].iter().any(|c| line.starts_with(c)) {
            continue;
        }
        let cells: Vec<&str> = if line.contains(',') {
            line.split(',').map(str::trim).collect()
        } else {
            line.split(|c: char| c.is_whitespace() || c == ';').filter(|c| !c.is_empty()).collect()
        };
        let numbers: Vec<Option<f64>> = cells.iter().map(|c| if c.is_empty() { None } else { c.parse::<f64>().ok() }).collect();
        let parse = |reason: String| ImportError::Parse { origin: origin.to_string(), line: number, reason };
        let this = if numbers.len() == 3 && numbers[0].is_none() && numbers[1].is_some() && numbers[2].is_some() {
            Layout::Labelled
        } else if numbers.len() == 4 && numbers.iter().any(Option::is_some) && cells.iter().zip(&numbers).all(|(c, n)| c.is_empty() || n.is_some()) {
            Layout::Paired
        } else if numbers.len() == 2 && numbers.iter().all(Option::is_some) {
            Layout::Points
        } else if numbers.iter().all(Option::is_none) && layout.is_none() {
            // A header before the first row.
            continue;
        } else {
            return Err(parse(format!("expected x, y (or side, x, y, or x_ss, y_ss, x_ps, y_ps), got {line:?}")));
        };
        if layout.is_some_and(|l| l != this) {
            return Err(parse(format!("this row's columns differ from the rows before: {line:?}")));
        }
        layout = Some(this);
        let value = |i: usize| numbers[i].expect("checked above");
        match this {
            Layout::Points => sections.last_mut().expect("one section at least").push([value(0), value(1)]),
            Layout::Labelled => {
                let label = cells[0].to_ascii_lowercase();
                let point = [value(1), value(2)];
                match labelled.iter().position(|(l, _)| *l == label) {
                    Some(k) => labelled[k].1.push(point),
                    None if labelled.len() < 2 => labelled.push((label, vec![point])),
                    None => return Err(parse(format!("a third side label {:?} (a blade has two sides)", cells[0]))),
                }
            }
            Layout::Paired => {
                for (side, pair) in [(0usize, 0usize), (1, 2)] {
                    match (numbers[pair], numbers[pair + 1]) {
                        (Some(x), Some(y)) => paired[side].push([x, y]),
                        (None, None) => {}
                        _ => return Err(parse("an x without its y (or a y without its x)".into())),
                    }
                }
            }
        }
    }
    Ok(match layout {
        Some(Layout::Labelled) => labelled.into_iter().map(|(_, p)| p).collect(),
        Some(Layout::Paired) => paired.into_iter().filter(|p| !p.is_empty()).collect(),
        _ => sections.into_iter().filter(|s| !s.is_empty()).collect(),
    })
}

/// How the rows of a file give their points.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    /// `x, y`.
    Points,
    /// `side, x, y`.
    Labelled,
    /// `x_ss, y_ss, x_ps, y_ps`.
    Paired,
}

/// What the import is given besides the coordinates.
#[derive(Clone, Debug)]
pub struct ImportSettings {
    pub units: Units,
    /// Blade-to-blade spacing in metres.
    pub pitch: f64,
    pub name: String,
    pub description: Option<String>,
    pub operating_points: Vec<OperatingPoint>,
    pub gas: Gas,
    /// Mirror the profile about the x axis (y -> -y) first: the project's blades turn the flow
    /// towards -y (suction side towards +y).
    pub mirror: bool,
    /// Then turn it counter-clockwise by this angle (deg): coordinates in a chord frame (chord
    /// along x) are turned by the stagger to the cascade frame.
    pub rotate_deg: f64,
    /// The chord the cascade is normalized with (losses, Reynolds numbers), when published; by
    /// default the profile's largest extent (the distance between its two points furthest apart).
    pub reference_chord: Option<f64>,
    /// Domain inlet and outlet distances from the edges, in axial chords.
    pub inlet_axial_chords: f64,
    pub outlet_axial_chords: f64,
    /// Interior camber control points and thickness control values per side of the fitted design.
    pub camber_points: usize,
    pub thickness_points: usize,
    /// Largest deviation of the fit allowed, % of the chord.
    pub fit_tolerance_percent: f64,
    /// Keep a fit beyond the tolerance (reported, not an error).
    pub force: bool,
    /// The shape the blade file's `blade` solves: the fitted design (default) or the spline
    /// through the points.
    pub shape: SolvedShape,
}

/// Which shape an imported blade file solves. Its `design` is the fitted parameterization either
/// way, so optimizations start from the fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SolvedShape {
    /// The fitted design: `solve`, `evaluate` and the optimizer's baseline see the same blade,
    /// and a noisy table is smoothed to within the fit tolerance.
    #[default]
    Fitted,
    /// A periodic spline through the points as given, noise included.
    Points,
}

impl ImportSettings {
    /// Settings for coordinates in `units`, with the pitch and the published chord (if given) in
    /// the same units; with [`Units::Chord`] the pitch is pitch over chord and the chord is the
    /// unit's own. Both must be positive.
    pub fn in_file_units(name: impl Into<String>, units: Units, pitch: f64, chord: Option<f64>) -> Result<Self, ImportError> {
        let positive = |what: &str, v: f64| if v > 0.0 && v.is_finite() { Ok(v) } else { Err(ImportError::Setting(format!("{what} must be a positive number, got {v}"))) };
        let scale = units.scale();
        let mut settings = Self::new(name, units, positive("pitch", pitch)? * scale);
        settings.reference_chord = match (chord, units) {
            (_, Units::Chord(c)) => Some(c),
            (Some(c), _) => Some(positive("chord", c)? * scale),
            (None, _) => None,
        };
        Ok(settings)
    }

    pub fn new(name: impl Into<String>, units: Units, pitch: f64) -> Self {
        ImportSettings {
            units,
            pitch,
            name: name.into(),
            description: None,
            operating_points: Vec::new(),
            gas: Gas::default(),
            mirror: false,
            rotate_deg: 0.0,
            reference_chord: None,
            inlet_axial_chords: 1.0,
            outlet_axial_chords: 1.5,
            camber_points: 6,
            thickness_points: 14,
            fit_tolerance_percent: DEFAULT_FIT_TOLERANCE_PERCENT,
            force: false,
            shape: SolvedShape::Fitted,
        }
    }
}

/// What the import read off the blade and how well the design follows it. Lengths in metres,
/// angles in degrees from axial (positive towards +y), in the blade file's frame (the most
/// upstream point at the origin, x axial, y pitchwise).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ImportReport {
    pub origin: String,
    pub points: usize,
    /// Where the blade file's origin is in the file's frame (m, after mirroring and turning).
    pub origin_in_file: Point2,
    /// The largest gap the outline was closed across where the file's ends did not meet (m).
    pub closing_gap: f64,
    /// Whether the file's points were put in contour order (their order in the file was not).
    pub reordered: bool,
    /// Edge apexes: where the fitted camber line leaves each edge.
    pub leading_edge: Point2,
    pub trailing_edge: Point2,
    pub leading_edge_radius: f64,
    pub trailing_edge_radius: f64,
    /// Direction of the line from the leading-edge apex to the trailing-edge apex.
    pub stagger_deg: f64,
    pub inlet_metal_angle_deg: f64,
    pub exit_metal_angle_deg: f64,
    /// The reference chord (see [`ImportSettings::reference_chord`]).
    pub chord: f64,
    pub axial_chord: f64,
    pub pitch: f64,
    /// Narrowest passage width between this blade and the next one.
    pub throat: f64,
    /// Exit flow angle the throat implies, acos(throat / pitch) (deg; its magnitude).
    pub throat_angle_deg: f64,
    /// Deviation of the fitted design from the coordinates, % of the chord.
    pub fit_rms_percent_chord: f64,
    pub fit_max_percent_chord: f64,
    /// Where the fit deviates most (m).
    pub fit_worst_at: Point2,
    pub fit_iterations: usize,
    pub fit_tolerance_percent_chord: f64,
    pub within_tolerance: bool,
}

/// An imported blade: its file, the report, the outline through the coordinates and the fitted
/// design's outline.
pub struct Imported {
    pub blade: BladeFile,
    pub report: ImportReport,
    pub coordinates: Outline,
    pub fitted: Outline,
    /// The file's points, moved to the blade file's frame (m).
    pub points: Vec<Point2>,
}

/// Largest deviation of the fitted design from the points, % of the chord, unless told otherwise:
/// well under a manufacturing tolerance, and met by the tabulated LS89 (0.16 %, a noisy trailing
/// edge), T106C, SPLEEN C1 and NACA 65 profiles.
pub const DEFAULT_FIT_TOLERANCE_PERCENT: f64 = 0.2;

/// Relative tolerance (of the blade's size) under which two points are one.
const SAME_POINT: f64 = 1e-7;
/// A gap between the ends of a loop (or of two sides) is a blunt edge to close when it is at most
/// this fraction of the blade's size, or no longer than twice the longest step between points.
const MAX_CLOSING_GAP: f64 = 0.05;
/// Fewest points of a blade outline.
const MIN_POINTS: usize = 12;
/// Chords a cascade blade can have (m): outside this the units are wrong.
const CHORD_RANGE: std::ops::RangeInclusive<f64> = 1e-3..=2.0;

/// Imports `profile` with `settings`: the checks, the figures, the fit, the blade file.
pub fn import_blade(profile: &Profile, settings: &ImportSettings) -> Result<Imported, ImportError> {
    if settings.operating_points.is_empty() {
        return Err(ImportError::NoOperatingPoint);
    }
    let (ring, closing_gap, reordered) = assemble_loop(profile)?;
    let (ring, origin_in_file) = to_blade_frame(&ring, settings);
    let extent = largest_extent(&ring);
    if !CHORD_RANGE.contains(&extent) {
        return Err(ImportError::Units { chord_m: extent });
    }
    let chord = settings.reference_chord.unwrap_or(extent);
    let coordinates = CoordinateBlade::Loop { points: ring.clone(), scale: 1.0 };
    let outline = coordinates.outline()?;
    check_pitch_overlap(&outline, settings.pitch)?;
    let (throat_width, _, _) = throat(&outline, settings.pitch);

    let fit = fit_blade_to_outline(&outline, settings.pitch, settings.camber_points, settings.thickness_points, &FitOptions::default())?;
    let mut design = fit.design;
    set_optimization_bounds(&mut design);
    let fitted = design.outline()?;
    let (worst, worst_at) = worst_deviation(&outline, &fitted);
    let (rms_percent, max_percent) = (100.0 * fit.rms / chord, 100.0 * worst.max(fit.max) / chord);
    let within = max_percent <= settings.fit_tolerance_percent;
    if !within && !settings.force {
        return Err(ImportError::FitTooCoarse {
            rms_percent,
            max_percent,
            x_mm: worst_at[0] * 1e3,
            y_mm: worst_at[1] * 1e3,
            tolerance_percent: settings.fit_tolerance_percent,
        });
    }
    let (bx, _) = outline.bounding_box();
    let axial_chord = bx[1] - bx[0];
    let cascade = Cascade {
        pitch: settings.pitch,
        chord,
        axial_chord,
        stagger_deg: design.stagger_deg.value,
        inlet_length: settings.inlet_axial_chords * axial_chord,
        outlet_length: settings.outlet_axial_chords * axial_chord,
        throat: Some(throat_width),
    };
    let le = design.leading_edge;
    let (c, stagger) = (design.chord.value, design.stagger_deg.value.to_radians());
    let report = ImportReport {
        origin: profile.origin.clone(),
        points: ring.len(),
        origin_in_file,
        closing_gap: closing_gap * settings.units.scale(),
        reordered,
        leading_edge: le,
        trailing_edge: [le[0] + c * stagger.cos(), le[1] + c * stagger.sin()],
        leading_edge_radius: design.leading_edge_radius.value,
        trailing_edge_radius: design.trailing_edge_radius.value,
        stagger_deg: design.stagger_deg.value,
        inlet_metal_angle_deg: design.inlet_metal_angle_deg.value,
        exit_metal_angle_deg: design.exit_metal_angle_deg.value,
        chord,
        axial_chord,
        pitch: settings.pitch,
        throat: throat_width,
        throat_angle_deg: (throat_width / settings.pitch).clamp(-1.0, 1.0).acos().to_degrees(),
        fit_rms_percent_chord: rms_percent,
        fit_max_percent_chord: max_percent,
        fit_worst_at: worst_at,
        fit_iterations: fit.iterations,
        fit_tolerance_percent_chord: settings.fit_tolerance_percent,
        within_tolerance: within,
    };
    let description = settings.description.clone().unwrap_or_else(|| {
        format!(
            "{}: imported from {} ({} points); design parameterization fitted to {:.4} % RMS, {:.4} % max of the chord",
            settings.name, profile.origin, report.points, rms_percent, max_percent
        )
    });
    let blade = BladeFile {
        name: settings.name.clone(),
        description,
        blade: match settings.shape {
            SolvedShape::Fitted => BladeDefinition::Design(design.clone()),
            SolvedShape::Points => BladeDefinition::Coordinates(coordinates),
        },
        design: Some(design),
        cascade,
        gas: settings.gas,
        operating_points: settings.operating_points.clone(),
    };
    blade.validate().map_err(|e| ImportError::Invalid(e.to_string()))?;
    Ok(Imported { blade, report, coordinates: outline, fitted, points: ring })
}

/// The loop in metres, mirrored and turned as asked, moved so that its most upstream point is the
/// origin; with where that origin was.
fn to_blade_frame(ring: &[Point2], settings: &ImportSettings) -> (Vec<Point2>, Point2) {
    let scale = settings.units.scale();
    let (sin, cos) = settings.rotate_deg.to_radians().sin_cos();
    let mut points: Vec<Point2> = ring
        .iter()
        .map(|p| {
            let (x, y) = (p[0] * scale, if settings.mirror { -p[1] } else { p[1] } * scale);
            [cos * x - sin * y, sin * x + cos * y]
        })
        .collect();
    let upstream = points.iter().copied().min_by(|a, b| a[0].total_cmp(&b[0])).unwrap_or([0.0; 2]);
    // To the picometre: metres from millimetres print as 0.002349, not 0.0023490000000000004.
    let round = |v: f64| (v * 1e12).round() / 1e12;
    for p in points.iter_mut() {
        *p = [round(p[0] - upstream[0]), round(p[1] - upstream[1])];
    }
    (points, [round(upstream[0]), round(upstream[1])])
}

/// The distance between the two points furthest apart.
fn largest_extent(points: &[Point2]) -> f64 {
    points.iter().enumerate().flat_map(|(i, a)| points[i + 1..].iter().map(move |b| dist(*a, *b))).fold(0.0, f64::max)
}

/// The profile's points as one loop (in file units), the largest gap it was closed across
/// where the file's ends did not meet, and whether the points were put in contour order.
fn assemble_loop(profile: &Profile) -> Result<(Vec<Point2>, f64, bool), ImportError> {
    let total: usize = profile.sections.iter().map(Vec::len).sum();
    if total < MIN_POINTS {
        return Err(ImportError::TooFewPoints { origin: profile.origin.clone(), found: total, needed: MIN_POINTS });
    }
    let all: Vec<Point2> = profile.sections.iter().flatten().copied().collect();
    if let Some(k) = all.iter().position(|p| !(p[0].is_finite() && p[1].is_finite())) {
        return Err(ImportError::NotFinite { point: k });
    }
    let size = largest_extent(&all);
    let mut reordered = false;
    let (mut ring, mut gap) = match profile.sections.as_slice() {
        [one] => {
            let (ordered, changed) = in_contour_order(one, size);
            reordered = changed;
            (ordered, 0.0)
        }
        [a, b] => join_sides(a, b, size)?,
        more => return Err(ImportError::Sections { sections: more.len() }),
    };
    let ends = dist(ring[0], *ring.last().expect("non-empty"));
    if ends <= SAME_POINT * size {
        ring.pop();
    } else {
        check_gap(&ring, ends, size, |gap, percent| ImportError::Open { gap, percent })?;
        gap = f64::max(gap, ends);
    }
    check_duplicates(&ring, size)?;
    Ok((ring, gap, reordered))
}

/// A loop's closed tour longer than its contour-ordered one by more than this share (round-off)
/// is out of order: a densely sampled closed curve's contour is its shortest tour, and two
/// swapped rows of a thousand points lengthen it by only a few 1e-4.
const REORDER_MARGIN: f64 = 1e-9;

/// The loop's points in contour order ([`contour_order`](super::contour::contour_order)) when
/// the file's order is not (its closed tour is longer), and whether they were reordered.
fn in_contour_order(points: &[Point2], size: f64) -> (Vec<Point2>, bool) {
    use super::contour::{contour_order, tour_length};
    let mut pts = points.to_vec();
    // A repeated first point closing the loop is not a point of its own.
    if pts.len() > 1 && dist(pts[0], pts[pts.len() - 1]) <= SAME_POINT * size {
        pts.pop();
    }
    let order = contour_order(&pts);
    let file_order: Vec<usize> = (0..pts.len()).collect();
    if tour_length(&pts, &file_order) > (1.0 + REORDER_MARGIN) * tour_length(&pts, &order) {
        (order.iter().map(|&k| pts[k]).collect(), true)
    } else {
        (points.to_vec(), false)
    }
}

/// A gap between ends is an edge to close, or the outline is open (see [`MAX_CLOSING_GAP`]).
fn check_gap(points: &[Point2], gap: f64, size: f64, error: impl Fn(f64, f64) -> ImportError) -> Result<(), ImportError> {
    let longest_step = points.windows(2).map(|w| dist(w[0], w[1])).fold(0.0, f64::max);
    if gap > MAX_CLOSING_GAP * size && gap > 2.0 * longest_step {
        return Err(error(gap, 100.0 * gap / size));
    }
    Ok(())
}

/// Two sides joined into one loop where their ends meet, whichever way each runs; with the gap
/// at the join where they do not quite meet.
fn join_sides(a: &[Point2], b: &[Point2], size: f64) -> Result<(Vec<Point2>, f64), ImportError> {
    let (a0, a1, b0, b1) = (a[0], a[a.len() - 1], b[0], b[b.len() - 1]);
    // b after a, b reversed after a: the gap at the join plus the gap that closes the loop.
    let forward = dist(a1, b0) + dist(b1, a0);
    let reversed = dist(a1, b1) + dist(b0, a0);
    let mut ring = a.to_vec();
    let mut second: Vec<Point2> = if forward <= reversed { b.to_vec() } else { b.iter().rev().copied().collect() };
    let join = dist(*ring.last().expect("non-empty"), second[0]);
    let both: Vec<Point2> = a.iter().chain(b).copied().collect();
    check_gap(&both, join, size, |gap, percent| ImportError::SidesApart { gap, percent })?;
    let gap = if join <= SAME_POINT * size {
        second.remove(0);
        0.0
    } else {
        join
    };
    ring.extend(second);
    Ok((ring, gap))
}

/// Two points of the loop at the same place (the spline through them would fold).
fn check_duplicates(ring: &[Point2], size: f64) -> Result<(), ImportError> {
    let mut order: Vec<usize> = (0..ring.len()).collect();
    order.sort_by(|&i, &j| ring[i][0].total_cmp(&ring[j][0]).then(ring[i][1].total_cmp(&ring[j][1])));
    let tolerance = SAME_POINT * size;
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if ring[j][0] - ring[i][0] > tolerance {
                break;
            }
            if dist(ring[i], ring[j]) <= tolerance {
                let (first, second) = (i.min(j), i.max(j));
                return Err(ImportError::Duplicate { first, second, x: ring[first][0], y: ring[first][1] });
            }
        }
    }
    Ok(())
}

/// The largest distance from a point of `target` to the polyline `fitted`, and that point.
fn worst_deviation(target: &Outline, fitted: &Outline) -> (f64, Point2) {
    let line = &fitted.points;
    target
        .points
        .iter()
        .map(|&q| {
            let d = (0..line.len()).map(|k| dist(q, super::cascade::closest_on_segment(q, line[k], line[(k + 1) % line.len()]))).fold(f64::INFINITY, f64::min);
            (d, q)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((0.0, [0.0; 2]))
}
