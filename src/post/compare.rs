//! Comparison of a computed blade-surface Mis distribution with measured taps
//! (`--compare FILE.csv`: columns side (ss|ps), x, mis; `#` comment lines allowed).

use super::surface::{BladeSide, SurfacePoint};
use crate::error::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// One measured tap: axial distance from the leading edge \[m\] and Mis.
#[derive(Clone, Debug, Serialize)]
pub struct MeasuredMis {
    pub side: BladeSide,
    pub x_from_le: f64,
    pub mis: f64,
}

/// Read a measured-Mis CSV. The x column is `x_mm` (millimetres) or `x`/`x_m` (metres),
/// measured axially from the leading edge.
pub fn read_measured_mis(path: &Path) -> Result<Vec<MeasuredMis>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |reason: String| Error::Input { path: path.display().to_string(), reason };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (_, header) = lines.next().ok_or_else(|| bad("no header line".into()))?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let find = |names: &[&str]| cols.iter().position(|c| names.contains(c));
    let side_col = find(&["side"]).ok_or_else(|| bad("no 'side' column".into()))?;
    let mis_col = find(&["mis"]).ok_or_else(|| bad("no 'mis' column".into()))?;
    let (x_col, scale) = match (find(&["x_mm"]), find(&["x", "x_m"])) {
        (Some(c), _) => (c, 1e-3),
        (None, Some(c)) => (c, 1.0),
        _ => return Err(bad("no 'x_mm', 'x' or 'x_m' column".into())),
    };
    let mut out = Vec::new();
    for (n, line) in lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let field = |c: usize| f.get(c).copied().ok_or_else(|| bad(format!("line {}: too few columns", n + 1)));
        let num = |c: usize| -> Result<f64> {
            field(c)?.parse::<f64>().map_err(|e| bad(format!("line {}: column {}: {e}", n + 1, c + 1)))
        };
        let side = match field(side_col)? {
            "ss" | "suction" => BladeSide::Suction,
            "ps" | "pressure" => BladeSide::Pressure,
            other => return Err(bad(format!("line {}: side '{other}' is neither ss nor ps", n + 1))),
        };
        out.push(MeasuredMis { side, x_from_le: num(x_col)? * scale, mis: num(mis_col)? });
    }
    if out.is_empty() {
        return Err(bad("no data rows".into()));
    }
    Ok(out)
}

/// Computed Mis interpolated at each tap, and the RMS difference over all taps.
#[derive(Clone, Debug, Serialize)]
pub struct MisComparison {
    pub rms: f64,
    pub max_abs: f64,
    /// (tap, computed Mis at the tap)
    pub taps: Vec<(MeasuredMis, f64)>,
}

pub fn rms_against_measured(surface: &[SurfacePoint], measured: &[MeasuredMis]) -> MisComparison {
    let mut taps = Vec::with_capacity(measured.len());
    for m in measured {
        let side: Vec<&SurfacePoint> = monotone_part(surface, m.side);
        taps.push((m.clone(), interpolate_mis(&side, m.x_from_le)));
    }
    let sq: f64 = taps.iter().map(|(m, c)| (c - m.mis).powi(2)).sum();
    let max_abs = taps.iter().map(|(m, c)| (c - m.mis).abs()).fold(0.0, f64::max);
    MisComparison { rms: (sq / taps.len().max(1) as f64).sqrt(), max_abs, taps }
}

/// The points of one side from the leading edge up to its most downstream point, where x
/// grows monotonically (the trailing-edge circle's way back is left out).
fn monotone_part(surface: &[SurfacePoint], side: BladeSide) -> Vec<&SurfacePoint> {
    let pts: Vec<&SurfacePoint> = surface.iter().filter(|p| p.side == side).collect();
    let last = (0..pts.len()).max_by(|&a, &b| pts[a].x_from_le.total_cmp(&pts[b].x_from_le)).unwrap_or(0);
    let mut out: Vec<&SurfacePoint> = Vec::new();
    for p in &pts[..=last.min(pts.len().saturating_sub(1))] {
        if out.last().is_none_or(|q| p.x_from_le > q.x_from_le) {
            out.push(p);
        }
    }
    out
}

/// Linear interpolation in x, clamped at the ends.
fn interpolate_mis(side: &[&SurfacePoint], x: f64) -> f64 {
    match side {
        [] => f64::NAN,
        [only] => only.mis,
        _ => {
            if x <= side[0].x_from_le {
                return side[0].mis;
            }
            for w in side.windows(2) {
                if x <= w[1].x_from_le {
                    let t = (x - w[0].x_from_le) / (w[1].x_from_le - w[0].x_from_le);
                    return w[0].mis + t * (w[1].mis - w[0].mis);
                }
            }
            side[side.len() - 1].mis
        }
    }
}
