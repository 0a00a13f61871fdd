//! The model as a table (Markdown: printed by `turbopt perf-model` and committed under docs/).

use std::fmt::Write;

use super::model::{self, Hardware, Method};
use super::{BoundBy, PerfModel};

/// The whole report: breakdown, unit costs, counts, ratios, times to convergence, the pick and
/// the validation against full runs.
pub fn markdown(model: &PerfModel) -> String {
    let mut out = String::new();
    let m = &model.machine;
    let _ = writeln!(out, "## {}\n", model.case);
    let gpu = m.gpu.as_ref().map_or("no GPU".to_string(), |g| g.clone());
    let origin = if model.from_cache { "unit costs from the cache" } else { "unit costs measured now" };
    let _ = writeln!(out, "Machine: {} ({} cores), {gpu}; turbopt {}; {origin}.", m.cpu_model, m.cores, m.turbopt_version);
    if let Some(reason) = &model.gpu_absent {
        let _ = writeln!(out, "GPU columns absent: {reason}.");
    }
    out.push('\n');
    breakdown(&mut out, model);
    counts(&mut out, model);
    ratios(&mut out, model);
    times(&mut out, model);
    validation(&mut out, model);
    out
}

fn header(out: &mut String, first: &str, model: &PerfModel) {
    let cols: Vec<String> = model.hardware.iter().map(|h| h.hardware.label()).collect();
    let _ = writeln!(out, "| {first} | {} |", cols.join(" | "));
    let _ = writeln!(out, "|---|{}|", vec!["---:"; cols.len()].join("|"));
}

fn breakdown(out: &mut String, model: &PerfModel) {
    let Some(first) = model.hardware.first() else { return };
    let _ = writeln!(out, "### Per operation: time of one call [ms] (class)\n");
    let gpu = model.hardware.iter().find(|h| h.hardware.is_gpu());
    let cpu_all = model.hardware.iter().rfind(|h| !h.hardware.is_gpu());
    let cols: Vec<String> = model.hardware.iter().map(|h| h.hardware.label()).collect();
    let speedup = gpu.is_some() && cpu_all.is_some();
    let _ = writeln!(out, "| operation | B/cell | {}{} |", cols.join(" | "), if speedup { " | GPU / CPU all cores" } else { "" });
    let _ = writeln!(out, "|---|---:|{}{}|", vec!["---:"; cols.len()].join("|"), if speedup { "|---:" } else { "" });
    for (k, row) in first.operations.iter().enumerate() {
        let mut line = format!("| {} | {} |", row.operation, bytes_per_cell_entry(model, k, row.bytes_per_cell));
        for h in &model.hardware {
            let Some(r) = h.operations.get(k) else { continue };
            let class = BoundBy::classify(r, h.call_floor_s).map_or(String::new(), |c| format!(" ({}, {:.0} %bw)", c.label(), r.percent_of_bandwidth));
            let _ = write!(line, " {:.4}{class} |", r.seconds * 1e3);
        }
        if let (Some(g), Some(c)) = (gpu, cpu_all) {
            if let (Some(rg), Some(rc)) = (g.operations.get(k), c.operations.get(k)) {
                let _ = write!(line, " {:.1}x |", rc.seconds / rg.seconds);
            }
        }
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "\nresidual: boundary conditions + convective + viscous residual of one Runge-Kutta stage; multigrid transfer: restriction of state and residual + prolongation; Krylov iteration: one mean-flow FGMRES iteration (the SA solves' share included); factorization: one ILU(0) (the backend's `Auto` preconditioner: {}).", model.hardware.iter().map(|h| format!("{} {}", h.hardware.label(), super::preconditioner_name(h.preconditioner))).collect::<Vec<_>>().join(", "));
    let _ = writeln!(out, "Class rule (src/perf/measure.rs `BoundBy`): memory-bound at >= 40 % of the measured copy bandwidth; latency-bound under 10 smallest-copy calls ({}) or under 5 % of the bandwidth; compute-bound otherwise.\n", model.hardware.iter().map(|h| format!("{} {:.1} us, {:.1} GB/s", h.hardware.label(), h.call_floor_s * 1e6, h.bandwidth_bytes_per_s / 1e9)).collect::<Vec<_>>().join("; "));
}

/// The B/cell entry of operation `k`: one figure, or the first hardware's with the others that
/// differ (the GPU's swept ILU reads its factors once per sweep, the CPU's ILU once).
fn bytes_per_cell_entry(model: &PerfModel, k: usize, first: f64) -> String {
    let others: Vec<String> = model
        .hardware
        .iter()
        .filter_map(|h| h.operations.get(k).filter(|r| r.bytes_per_cell != first).map(|r| format!("{} {:.0}", h.hardware.label(), r.bytes_per_cell)))
        .collect();
    if others.is_empty() {
        format!("{first:.0}")
    } else {
        format!("{first:.0} ({})", others.join(", "))
    }
}

fn counts(out: &mut String, model: &PerfModel) {
    let _ = writeln!(out, "### Iterations to convergence (full runs; the same on every backend)\n");
    let _ = writeln!(out, "| method | iterations | FGMRES iterations | factorizations |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for (key, c) in &model.counts {
        let n = if c.converged { c.iterations.to_string() } else { format!(">= {} (cut off)", c.iterations) };
        let _ = writeln!(out, "| {key} | {n} | {} | {} |", c.linear_iterations, c.factorizations);
    }
    out.push('\n');
}

fn ratios(out: &mut String, model: &PerfModel) {
    let Some(first) = model.hardware.first() else { return };
    let _ = writeln!(out, "### Ratios (thesis eq. 6.1-6.3)\n");
    for method in [Method::ExplicitSingleGrid, Method::ExplicitMultigrid] {
        if let Some(r) = model.convergence_ratio(method, first.preconditioner) {
            let _ = writeln!(out, "- R_C ({}) = N_exp / N_imp = {r:.1} (eq. 6.3){}", method.label(), if model.counts.get(&super::count_key(method, first.preconditioner)).is_some_and(|c| !c.converged) { ", a lower bound" } else { "" });
        }
    }
    for h in &model.hardware {
        let Some((count, same)) = model.implicit_count(h.preconditioner) else { continue };
        let t_imp = model::implicit_iteration_s(&h.implicit, count, same);
        let r = model::iteration_ratio(t_imp, h.explicit.iteration_s);
        let approx = model::iteration_ratio_approximation(t_imp, h.implicit.residual_s);
        let _ = writeln!(out, "- {}: R_ITR = t_imp / t_exp = {:.2} ms / {:.3} ms = {r:.1}; eq. 6.1's 1 + t_T / t_S = {approx:.1} (t_S = {:.3} ms)", h.hardware.label(), t_imp * 1e3, h.explicit.iteration_s * 1e3, h.implicit.residual_s * 1e3);
    }
    let gpu = model.hardware.iter().find(|h| h.hardware.is_gpu());
    if let (Some(g), Some(c)) = (gpu, model.hardware.iter().rfind(|h| !h.hardware.is_gpu())) {
        if let (Some((cg, sg)), Some((cc, sc))) = (model.implicit_count(g.preconditioner), model.implicit_count(c.preconditioner)) {
            let (ti_g, ti_c) = (model::implicit_iteration_s(&g.implicit, cg, sg), model::implicit_iteration_s(&c.implicit, cc, sc));
            let (a_exp, a_imp) = (c.explicit.iteration_s / g.explicit.iteration_s, ti_c / ti_g);
            let r_cpu = model::iteration_ratio(ti_c, c.explicit.iteration_s);
            let _ = writeln!(out, "- eq. 6.2 against {}: a_exp = {a_exp:.1}, a_imp = {a_imp:.1}, R_ITR(GPU) = R_ITR(CPU) a_exp / a_imp = {:.1}", c.hardware.label(), model::gpu_iteration_ratio(r_cpu, a_exp, a_imp));
        }
    }
    out.push('\n');
}

fn times(out: &mut String, model: &PerfModel) {
    let _ = writeln!(out, "### Predicted time to convergence [s]\n");
    header(out, "method", model);
    for method in Method::ALL {
        let mut line = format!("| {} |", method.label());
        for h in &model.hardware {
            let cell = match model.predict(h, method) {
                Some(p) if p.lower_bound => format!(">= {:.1}", p.seconds),
                Some(p) if p.estimated_linear_work => format!("{:.1} (linear work estimated)", p.seconds),
                Some(p) => format!("{:.1}", p.seconds),
                None => "no count".into(),
            };
            let _ = write!(line, " {cell} |");
        }
        let _ = writeln!(out, "{line}");
    }
    match model.fastest() {
        Some((c, p, undecided)) => {
            let _ = writeln!(out, "\n**Fastest: {}**, {:.1} s predicted{}.\n", c.label(), p.seconds, if undecided { " (a cut-off run's lower bound lies below it: undecided)" } else { "" });
        }
        None => out.push_str("\nNo complete prediction.\n\n"),
    }
    if let Some(h) = model.hardware.iter().find(|h| h.hardware == Hardware::Cpu { threads: 1 }) {
        let _ = writeln!(out, "Unit costs on {}: explicit iteration {:.3} ms, multigrid cycle {:.3} ms (after {} single-grid iterations).\n", h.hardware.label(), h.explicit.iteration_s * 1e3, h.explicit.cycle_s * 1e3, model.multigrid_delay);
    }
}

fn validation(out: &mut String, model: &PerfModel) {
    let rows = model.validation();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Predicted against measured full runs\n");
    let _ = writeln!(out, "| combination | iterations | predicted [s] | measured [s] | error |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for (c, predicted, measured, error) in &rows {
        let n = model.full_runs.iter().find(|r| r.combination == *c).map_or(0, |r| r.count.iterations);
        let _ = writeln!(out, "| {} | {n} | {predicted:.1} | {measured:.1} | {:+.1} % |", c.label(), 100.0 * error);
    }
    let worst = rows.iter().map(|r| r.3.abs()).fold(0.0, f64::max);
    let _ = writeln!(out, "\nLargest |error| {:.1} % (target 25 %).", 100.0 * worst);
    if let (Some((pick, ..)), Some(best)) = (model.fastest(), rows.iter().min_by(|a, b| a.2.total_cmp(&b.2))) {
        if let Some(pick_row) = rows.iter().find(|r| r.0 == pick) {
            let _ = writeln!(out, "Pick {} measured {:.1} s; fastest measured {} {:.1} s: pick {} ({:+.1} %, target within 10 %).", pick.label(), pick_row.2, best.0.label(), best.2, if pick_row.2 <= 1.1 * best.2 { "OK" } else { "NOT within 10 %" }, 100.0 * (pick_row.2 / best.2 - 1.0));
        }
    }
    for r in model.full_runs.iter().filter(|r| !r.count.converged) {
        let _ = writeln!(out, "- {}: cut off at {} iterations ({:.1} s): not validated.", r.combination.label(), r.count.iterations, r.wall_s);
    }
    out.push('\n');
}
