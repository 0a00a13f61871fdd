//! PNG pictures of a mesh: the whole passage with one periodic copy drawn lightly, and zooms on
//! the leading and trailing edges of the no-slip walls (the most upstream and the most
//! downstream wall node). Boundary patches are coloured by kind: walls black, inlets blue,
//! outlets red, periodic sides green, 1-to-1 interfaces orange, slip walls and symmetry planes
//! grey. Drawn with plotters' bitmap backend and the embedded fonts (`report::ensure_fonts`).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::geometry::Outline;
use crate::mesh::metrics::face_edge_nodes;
use crate::mesh::{Block, BoundaryKind, Mesh};

/// Size and content of a mesh picture.
#[derive(Clone, Debug, PartialEq)]
pub struct PictureOptions {
    /// Image size in pixels.
    pub width: u32,
    pub height: u32,
    pub title: String,
    /// Half-width of the edge zooms as a fraction of the wall's axial extent.
    pub zoom_fraction: f64,
}

impl Default for PictureOptions {
    fn default() -> Self {
        PictureOptions { width: 1800, height: 1100, title: "mesh".into(), zoom_fraction: 0.06 }
    }
}

type Window = ([f64; 2], [f64; 2]);

/// Draw `mesh` (and the filled blade `outline`, if given) into the PNG file `path`.
pub fn write_mesh_picture(path: impl AsRef<Path>, mesh: &Mesh, outline: Option<&Outline>, options: &PictureOptions) -> Result<()> {
    let path = path.as_ref();
    let fail = |e: String| Error::Other(format!("mesh picture {}: {e}", path.display()));
    if mesh.blocks.is_empty() || mesh.blocks.iter().any(|b| b.x.len() != (b.ni + 1) * (b.nj + 1) || b.y.len() != b.x.len()) {
        return Err(fail("mesh has no blocks or malformed coordinate arrays".into()));
    }
    if options.width < 200 || options.height < 200 {
        return Err(fail(format!("image {} x {} px is too small", options.width, options.height)));
    }
    crate::report::ensure_fonts();
    let root = BitMapBackend::new(path, (options.width, options.height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let root = root.titled(&options.title, ("sans-serif", 26)).map_err(|e| fail(e.to_string()))?;

    let edges = wall_edges(mesh, options.zoom_fraction);
    let whole = whole_window(mesh);
    if let Some((le, te)) = edges {
        let (left, right) = root.split_horizontally(options.width * 3 / 5);
        let (top, bottom) = right.split_vertically((options.height - 40) / 2);
        let caption = if mesh.pitch > 0.0 { "passage (+ periodic copy)" } else { "whole mesh" };
        draw_panel(&left, mesh, outline, whole, caption, true).map_err(fail)?;
        draw_panel(&top, mesh, outline, le, "leading edge", false).map_err(fail)?;
        draw_panel(&bottom, mesh, outline, te, "trailing edge", false).map_err(fail)?;
    } else {
        draw_panel(&root, mesh, outline, whole, "mesh", true).map_err(fail)?;
    }
    root.present().map_err(|e| fail(e.to_string()))
}

/// Bounding box of all nodes, extended by one pitch upwards for the periodic copy.
fn whole_window(mesh: &Mesh) -> Window {
    let mut bx = [f64::INFINITY, f64::NEG_INFINITY];
    let mut by = [f64::INFINITY, f64::NEG_INFINITY];
    for b in &mesh.blocks {
        for (&x, &y) in b.x.iter().zip(&b.y) {
            bx = [bx[0].min(x), bx[1].max(x)];
            by = [by[0].min(y), by[1].max(y)];
        }
    }
    by[1] += mesh.pitch.max(0.0);
    (bx, by)
}

/// Square windows around the most upstream and most downstream wall nodes.
fn wall_edges(mesh: &Mesh, zoom_fraction: f64) -> Option<(Window, Window)> {
    let mut le: Option<[f64; 2]> = None;
    let mut te: Option<[f64; 2]> = None;
    for b in &mesh.blocks {
        for (p, q) in wall_segments_of(b) {
            for r in [p, q] {
                if le.is_none_or(|l| r[0] < l[0]) {
                    le = Some(r);
                }
                if te.is_none_or(|t| r[0] > t[0]) {
                    te = Some(r);
                }
            }
        }
    }
    let (le, te) = (le?, te?);
    let half = (zoom_fraction * (te[0] - le[0])).max(1e-12);
    let square = |c: [f64; 2]| ([c[0] - half, c[0] + half], [c[1] - half, c[1] + half]);
    Some((square(le), square(te)))
}

fn node(b: &Block, i: usize, j: usize) -> [f64; 2] {
    let n = b.node(i, j);
    [b.x[n], b.y[n]]
}

fn wall_segments_of(b: &Block) -> Vec<([f64; 2], [f64; 2])> {
    boundary_segments(b).into_iter().filter(|(k, _, _)| matches!(k, BoundaryKind::Wall)).map(|(_, p, q)| (p, q)).collect()
}

fn boundary_segments(b: &Block) -> Vec<(BoundaryKind, [f64; 2], [f64; 2])> {
    let mut out = Vec::new();
    for patch in &b.patches {
        for f in patch.start..patch.end.min(b.face_len(patch.face)) {
            let [(i0, j0), (i1, j1)] = face_edge_nodes(b, patch.face, f);
            out.push((patch.kind.clone(), node(b, i0, j0), node(b, i1, j1)));
        }
    }
    out
}

fn boundary_colour(kind: &BoundaryKind) -> RGBColor {
    match kind {
        BoundaryKind::Wall => BLACK,
        BoundaryKind::Inlet => RGBColor(20, 60, 220),
        BoundaryKind::Outlet => RGBColor(210, 30, 30),
        BoundaryKind::Interface(c) if c.is_periodic() => RGBColor(20, 150, 40),
        BoundaryKind::Interface(_) => RGBColor(240, 140, 0),
        BoundaryKind::InviscidWall | BoundaryKind::Symmetry => RGBColor(120, 120, 120),
    }
}

/// Grid-line colours of successive blocks.
const BLOCK_COLOURS: [RGBColor; 4] = [RGBColor(60, 60, 90), RGBColor(40, 90, 140), RGBColor(110, 60, 110), RGBColor(40, 110, 80)];

/// Widen the window to the panel's aspect ratio so that x and y have the same scale.
fn equal_aspect(w: Window, pixels: (u32, u32)) -> Window {
    let (dx, dy) = (w.0[1] - w.0[0], w.1[1] - w.1[0]);
    let (cx, cy) = (0.5 * (w.0[0] + w.0[1]), 0.5 * (w.1[0] + w.1[1]));
    let aspect = pixels.0.max(1) as f64 / pixels.1.max(1) as f64;
    let (dx, dy) = if dx / dy > aspect { (dx, dx / aspect) } else { (dy * aspect, dy) };
    let (dx, dy) = (1.04 * dx.max(1e-12), 1.04 * dy.max(1e-12));
    ([cx - 0.5 * dx, cx + 0.5 * dx], [cy - 0.5 * dy, cy + 0.5 * dy])
}

/// Tick-label formatter for an axis spanning `range`: enough decimals for ~6 distinct ticks,
/// and no "-0.0".
fn tick_format(range: f64) -> impl Fn(&f64) -> String {
    let decimals = (-(range / 6.0).log10().floor()).clamp(0.0, 12.0) as usize;
    move |v: &f64| {
        let text = format!("{v:.decimals$}");
        if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            text.trim_start_matches('-').to_string()
        } else {
            text
        }
    }
}

/// The polygon clipped to the window (Sutherland-Hodgman, one window side at a time).
fn clip_polygon(w: &Window, points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    let sides: [(usize, f64, f64); 4] = [(0, w.0[0], 1.0), (0, w.0[1], -1.0), (1, w.1[0], 1.0), (1, w.1[1], -1.0)];
    let mut poly = points;
    for (k, bound, sign) in sides {
        let inside = |p: &[f64; 2]| sign * (p[k] - bound) >= 0.0;
        let mut out = Vec::with_capacity(poly.len() + 4);
        for n in 0..poly.len() {
            let (a, b) = (poly[n], poly[(n + 1) % poly.len()]);
            if inside(&a) {
                out.push(a);
            }
            if inside(&a) != inside(&b) {
                let t = (bound - a[k]) / (b[k] - a[k]);
                out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
            }
        }
        poly = out;
        if poly.is_empty() {
            break;
        }
    }
    poly
}

/// The part of segment p-q inside the window (Liang-Barsky clipping), if any.
fn clip_segment(w: &Window, p: [f64; 2], q: [f64; 2]) -> Option<([f64; 2], [f64; 2])> {
    let d = [q[0] - p[0], q[1] - p[1]];
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (k, lo, hi) in [(0, w.0[0], w.0[1]), (1, w.1[0], w.1[1])] {
        for (num, den) in [(p[k] - lo, -d[k]), (hi - p[k], d[k])] {
            if den == 0.0 {
                if num < 0.0 {
                    return None;
                }
            } else {
                let t = num / den;
                if den < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
    }
    (t0 <= t1).then(|| ([p[0] + t0 * d[0], p[1] + t0 * d[1]], [p[0] + t1 * d[0], p[1] + t1 * d[1]]))
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    mesh: &Mesh,
    outline: Option<&Outline>,
    window: Window,
    caption: &str,
    periodic_copy: bool,
) -> std::result::Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let (label_x, label_y) = (34, 70);
    let (w, h) = area.dim_in_pixel();
    let plot_pixels = (w.saturating_sub(label_y + 20), h.saturating_sub(label_x + 50));
    let win = equal_aspect(window, plot_pixels);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(label_x)
        .y_label_area_size(label_y)
        .build_cartesian_2d(win.0[0]..win.0[1], win.1[0]..win.1[1])
        .map_err(|e| err(&e))?;
    let (x_ticks, y_ticks) = (tick_format(win.0[1] - win.0[0]), tick_format(win.1[1] - win.1[0]));
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("x [m]")
        .y_desc("y [m]")
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&y_ticks)
        .label_style(("sans-serif", 14))
        .x_labels(6)
        .y_labels(6)
        .draw()
        .map_err(|e| err(&e))?;
    // Draw in pixels on the plotting area, segments clipped to the window by hand so that
    // nothing spills into the neighbouring panel.
    let plotting = chart.plotting_area().strip_coord_spec();
    let (px, py) = plotting.get_pixel_range();
    let to_px = |p: [f64; 2]| -> (i32, i32) {
        let fx = (p[0] - win.0[0]) / (win.0[1] - win.0[0]);
        let fy = (p[1] - win.1[0]) / (win.1[1] - win.1[0]);
        let x = px.start as f64 + fx * (px.end - px.start) as f64;
        let y = py.end as f64 - fy * (py.end - py.start) as f64;
        (x.clamp(-1e6, 1e6) as i32, y.clamp(-1e6, 1e6) as i32)
    };
    let clip = |(x, y): (i32, i32)| (x - px.start, y - py.start);
    let segment = |a: [f64; 2], b: [f64; 2], style: ShapeStyle| -> std::result::Result<(), String> {
        let Some((a, b)) = clip_segment(&win, a, b) else { return Ok(()) };
        plotting.draw(&PathElement::new(vec![clip(to_px(a)), clip(to_px(b))], style)).map_err(|e| err(&e))
    };

    let shifts: &[f64] = if periodic_copy && mesh.pitch > 0.0 { &[mesh.pitch, 0.0] } else { &[0.0] };
    for &dy in shifts {
        let light = dy != 0.0;
        if let Some(o) = outline {
            let fill = if light { RGBColor(225, 225, 225) } else { RGBColor(150, 150, 160) };
            let shifted = o.points.iter().map(|p| [p[0], p[1] + dy]).collect();
            let poly: Vec<(i32, i32)> = clip_polygon(&win, shifted).into_iter().map(|p| clip(to_px(p))).collect();
            if poly.len() >= 3 {
                plotting.draw(&Polygon::new(poly, fill.filled())).map_err(|e| err(&e))?;
            }
        }
        for (bi, b) in mesh.blocks.iter().enumerate() {
            let colour = if light { RGBColor(205, 205, 215) } else { BLOCK_COLOURS[bi % BLOCK_COLOURS.len()] };
            let style = colour.stroke_width(1);
            let at = |i, j| {
                let p = node(b, i, j);
                [p[0], p[1] + dy]
            };
            for j in 0..=b.nj {
                for i in 0..b.ni {
                    segment(at(i, j), at(i + 1, j), style)?;
                }
            }
            for i in 0..=b.ni {
                for j in 0..b.nj {
                    segment(at(i, j), at(i, j + 1), style)?;
                }
            }
            if !light {
                for (kind, p, q) in boundary_segments(b) {
                    let width = if kind == BoundaryKind::Wall { 3 } else { 2 };
                    segment(p, q, boundary_colour(&kind).stroke_width(width))?;
                }
            }
        }
    }
    Ok(())
}
