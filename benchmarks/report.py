#!/usr/bin/env python3
"""The tables of BENCHMARKS.md and docs/benchmarks/, and the pictures under docs/, regenerated from benchmarks/results/.

    python3 benchmarks/report.py                   # print every table (Markdown)
    python3 benchmarks/report.py --check [FILE...] # exit 1 if a table there differs from the results
    python3 benchmarks/report.py --write [FILE...] # rewrite the tables there from the results
    python3 benchmarks/report.py --pictures        # redraw the pictures (needs matplotlib)

Run from the repository root. Without FILE, --check and --write take BENCHMARKS.md and every
docs/benchmarks/*.md. A table in these files follows a line `<!-- table: NAME -->`; NAME is one of
TABLES below. --check also exits 1 when a table of TABLES is in none of the files checked, or in more
than one place. Only the standard library is needed for the tables; the pictures need matplotlib
(`pip install matplotlib`). The cocopp ECDF pictures (docs/bbob/cocopp_ecdf_*.svg) are not redrawn
here: cocopp made them from the raw COCO data of the BBOB runs, which is not kept in the repository.
"""
import csv
import glob
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
DOCS = os.path.join(ROOT, "docs")


def rows(name):
    with open(os.path.join(RESULTS, name), newline="") as f:
        return list(csv.DictReader(f))


def table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in body]
    return lines


def thousands(x):
    """1135.3 -> 1,135.3; 16128 -> 16,128 (as the text writes numbers)."""
    s = str(x)
    whole, dot, frac = s.partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = whole.lstrip("-")
    if whole.isdigit() and len(whole) > 3:
        whole = f"{int(whole):,}"
    return sign + whole + dot + frac


def plain(name, columns, header):
    return table(header, [[r[c] for c in columns] for r in rows(name)])


# --- 1. Accuracy and validation ---

def t_verification():
    return plain("verification.csv", ["check", "figure", "hardware", "command"], ["check", "figure", "hardware", "command"])


def t_ls89_grid():
    header = ["mesh", "cells", "iterations", "solve wall, dev (2 cores)", "entropy rise", "loss coefficient",
              "loss coefficient at the 53 mm plane", "exit angle", "mass flow", "exit Mis", "Mis RMS (27 taps)"]
    unit = lambda v, u: v + u if v[:1].isdigit() or v[:1] == "-" and v[1:2].isdigit() else v
    body = [[r["mesh"], thousands(r["cells"]), r["iterations"], unit(r["solve_wall_s"], " s"), r["entropy_rise"],
             r["loss_coefficient"], r["loss_coefficient_53mm_plane"], unit(r["exit_angle_deg"], " deg"),
             unit(r["mass_flow_kg_per_s_m"], " kg/(s m)"), r["exit_mis"], r["mis_rms_27_taps"]] for r in rows("ls89_grid_convergence.csv")]
    return table(header, body)


def t_mesh_quality():
    header = ["mesh", "cells", "skewness (bound 0.8)", "growth ratio away from / at block corners (bounds 1.3 / 1.5)",
              "wall orthogonality (bound 80 deg)", "area ratio (bound 1000)", "smallest cell angle", "first-cell y+",
              "periodic mismatch"]
    body = [[r["case"], thousands(r["cells"]), r["max_skewness"], f'{r["max_growth_away_from_corners"]} / {r["max_growth_at_corners"]}',
             r["min_wall_orthogonality_deg"] + " deg", r["max_area_ratio"], r["min_cell_angle_deg"] + " deg", r["first_cell_y_plus"],
             r["periodic_mismatch_m"] + " m"]
            for r in rows("mesh_quality.csv")]
    return table(header, body)


def t_design_space():
    header = ["blade, point", "drawn", "checked", "converged", "periodic (averaged)", "budget", "diverged", "mesher failure",
              "answered (target 99 %)", "iterations median / p95", "wall per design median / p95", "study wall per checked design",
              "hardware", "command"]
    columns = ["blade_point", "drawn", "checked", "converged", "periodic", "budget", "diverged", "mesher_failures", "answered",
               "iterations_median_p95", "wall_per_design_median_p95", "study_wall_per_checked_design", "hardware", "command"]
    return table(header, [[r[c] for c in columns] for r in rows("design_space_study.csv")])


def t_import_fits():
    header = ["profile", "points", "fit RMS / max [% chord]", "chord", "stagger", "throat", "LE radius", "import, 2 dev cores"]
    body = [[r["profile"], thousands(r["points"]), f'{r["fit_rms_percent_chord"]} / {r["fit_max_percent_chord"]}', r["chord_mm"] + " mm",
             r["stagger_deg"] + " deg", r["throat_mm"] + " mm", r["leading_edge_radius_mm"] + " mm", r["dev_2_cores_s"] + " s"]
            for r in rows("import_fits.csv")]
    return table(header, body)


def t_imported_solves():
    header = ["blade", "point", "mesh", "iterations", "entropy rise", "exit angle", "loss coefficient", "exit Mis", "Mis RMS (27 taps)"]
    body = [[r["blade"], r["point"], r["mesh"], r["iterations"], r["entropy_rise"], r["exit_angle_deg"] + " deg",
             r["loss_coefficient"] or "-", r["exit_mis"], r["mis_rms_27_taps"] or "-"] for r in rows("imported_solves.csv")]
    return table(header, body)


def t_naca65():
    header = ["mesh", "beta1", "solidity", "alpha", "cl measured / computed", "cd measured / computed", "turning", "iterations, H100"]
    body = []
    for r in rows("naca65_cascade.csv"):
        if r["status"] == "converged":
            cl = f'{r["cl_measured"]} / {r["cl_inlet"]}'
            cd = f'{r["cd_measured"]} / {r["cd_inlet"]}'
            rest = [r["turning_deg"] + " deg", f'{r["iterations"]}, {r["gpu_h100_s"]} s']
        else:
            cl, cd, rest = f'{r["cl_measured"]} / -', f'{r["cd_measured"]} / -', [r["status"], "-"]
        body.append([r["density"], r["beta1_deg"] + " deg", r["solidity"], r["alpha_deg"] + " deg", cl, cd] + rest)
    return table(header, body)


# --- 2. Solver speed ---

def t_implicit_times():
    header = ["case", "cells", "iterations (GPU / CPU)", "H100 GPU", "16 host cores", "1 host core", "2 dev cores"]
    body = [[r["case"], thousands(r["cells"]), f'{r["iterations_gpu"]} / {r["iterations_cpu"]}', r["gpu_h100_s"] + " s",
             r["h100_host_16_cores_s"] + " s", r["h100_host_1_core_s"] + " s", r["dev_2_cores_s"] + " s"]
            for r in rows("implicit_solve_times.csv")]
    return table(header, body)


def t_gpu_speed():
    return plain("gpu_speed.csv", ["figure", "value", "hardware", "command"], ["figure", "value", "hardware", "command"])


def t_operations():
    header = ["operation", "bytes a cell", "1 core [ms]", "16 cores [ms]", "H100 [ms]", "H100 / 16 cores"]
    skip = ("smoothing", "multigrid transfer")  # explicit-scheme details, in the CSV
    shown = [r for r in rows("perf_model_operations_ls89_medium_h100.csv") if r["operation"] not in skip]
    return table(header, [[r["operation"], r["bytes_per_cell"], r["cpu_1_core_ms"], r["cpu_16_cores_ms"], r["gpu_ms"],
                           r["gpu_against_16_cores"]] for r in shown])


KERNELS = {
    "ilu_backward_jacobi_f32_b4": "4x4 backward sweep of the swept ILU (f32 factors)",
    "ilu_forward_jacobi_f32_b4": "4x4 forward sweep",
    "subtract_projection_dot": "modified Gram-Schmidt step",
    "bsr4_spmv": "block SpMV",
    "ilu_backward_jacobi_f32_b1": "SA backward sweep",
    "ilu_forward_jacobi_f32_b1": "SA forward sweep",
}


def t_kernels():
    header = ["kernel", "what", "share of GPU time", "mean time", "DRAM throughput (of peak)"]
    data = rows("gpu_kernels_stacked16.csv")
    body, shown = [], 0.0
    for r in data:
        if r["kernel"] in KERNELS:
            shown += float(r["share_of_gpu_time_pct"])
            dram = f'{r["dram_throughput_pct_of_peak"]} %'
            if float(r["dram_throughput_pct_of_peak"]) >= 70:
                dram = f'**{dram} ({float(r["gb_per_s"]) / 1000:.2f} TB/s)**'
            body.append([f'`{r["kernel"]}`', KERNELS[r["kernel"]], f'{r["share_of_gpu_time_pct"]} %',
                         f'{r["mean_time_us"]} us', dram])
    others = len(data) - len(body)
    body.append([f"{others} other kernels", "dots, axpy, scaling, assembly, residual...", f"{100 - shown:.1f} %", "", ""])
    return table(header, body)


# --- 3. Batches and campaigns ---

def t_batch_k():
    by_k = defaultdict(dict)
    for r in rows("batch_streams_vs_stacked.csv"):
        by_k[int(r["designs"])][r["run"]] = r
    header = ["designs at once", "on streams (design-iterations a second)", "stacked in one mesh", "stacked against streams"]
    body = []
    for k in sorted(by_k):
        a, b = by_k[k]["1"], by_k[k]["2"]
        body.append([k, f'{a["streams_design_iterations_per_s"]} / {b["streams_design_iterations_per_s"]}',
                     f'{a["stacked_design_iterations_per_s"]} / {b["stacked_design_iterations_per_s"]}',
                     f'{a["stacked_against_streams"]} / {b["stacked_against_streams"]}'])
    return table(header, body)


def t_batch_figures():
    return plain("batch_figures.csv", ["figure", "value", "hardware", "command"], ["figure", "value", "hardware", "command"])


def t_campaigns():
    header = ["campaign", "evaluations", "entropy rise: baseline -> best feasible", "failed", "time (wall)",
              "evaluations an hour", "hardware", "command"]
    cols = ["campaign", "evaluations", "baseline_to_best", "failed", "time", "evaluations_an_hour", "hardware", "command"]
    return plain("campaigns.csv", cols, header)


# --- 4. Performance model ---

def t_perf_validation():
    groups = defaultdict(list)
    for r in rows("perf_model_validation.csv"):
        groups[(r["machine"], r["case"])].append(
            f'{r["combination"]} {thousands(r["predicted_s"])} / {thousands(r["measured_s"])} ({r["error"]})')
    header = ["machine", "case", "combination: predicted / measured time to convergence [s] (error)"]
    return table(header, [[m, c, "; ".join(v)] for (m, c), v in groups.items()])


# --- 5. Optimizers ---

def t_bbob():
    data = {(int(r["dimension"]), int(r["budget_per_dimension"]), r["optimizer"]): r["fraction_solved"]
            for r in rows("bbob_totals.csv")}
    header = ["dimension", "budget", "turbopt", "scipy DE", "CMA-ES IPOP", "egobox EGO"]
    body = []
    for budget, ours, peers in ((10000, "L-SHADE", ["scipy DE", "CMA-ES IPOP", None]),
                                (50, "turbopt Kriging", [None, None, "egobox EGO"])):
        for dim in sorted({d for d, b, _ in data if b == budget}):
            name = ours.replace("turbopt ", "")
            body.append([f"{dim}-D", "10^4 D" if budget == 10000 else f"{budget} D", f"{name} {data[(dim, budget, ours)]}"]
                        + [data[(dim, budget, p)] if p else "-" for p in peers])
    return table(header, body)


def t_kriging_analytic():
    header = ["problem", "budget", "target", "seeds", "reached", "median evaluations"]
    return plain("kriging_analytic.csv", ["problem", "budget", "target", "seeds", "reached", "median_evaluations"], header)


def t_de_peers():
    header = ["function", "target", "turbopt L-SHADE (reached, median evaluations)", "turbopt jDE", "scipy DE"]
    return plain("de_peers.csv", ["function", "target", "lshade", "jde", "scipy_de"], header)


def t_fronts():
    header = ["problem", "optimizers", "budget", "seeds", "turbopt: hypervolume after 1/4, 1/2, 3/4, all of the budget (medians) [min, max at the end]",
              "peer, the same", "machine"]
    return [*table(header, [[r["problem"], r["kind"], r["budget"], r["seeds"], f'{r["optimizer"]}: {r["hypervolume"]}', r["peer"], r["machine"]]
                             for r in rows("fronts.csv")])]


def t_ls89_fronts():
    header = ["campaign", "evaluations", "front", "hypervolume (common reference)", "failed", "time", "medium-mesh re-check", "hardware", "command"]
    return plain("ls89_fronts.csv", ["campaign", "evaluations", "front", "hypervolume", "failed", "time", "medium_recheck", "hardware", "command"], header)


def t_kriging_fit():
    data = {(r["library"], r["correlation"]): r for r in rows("kriging_fit.csv")}
    libraries = list(dict.fromkeys(lib for lib, _ in data))
    header = ["correlation"] + [f"{lib} ({data[(lib, 'Gaussian')]['machine']})" for lib in libraries]
    body = [[corr] + [f'{data[(lib, corr)]["fit_s"]} s, RMSE {data[(lib, corr)]["test_rmse"]}' for lib in libraries]
            for corr in dict.fromkeys(c for _, c in data)]
    return table(header, body)


# --- 6. Scaling ---

def t_two_gpus():
    header = ["what", "1 GPU", "2 GPUs", "speed-up", "command"]
    return plain("two_gpus.csv", ["what", "one_gpu", "two_gpus", "speed_up", "command"], header)


def t_python():
    return plain("python.csv", ["figure", "value", "hardware", "command"], ["figure", "value", "hardware", "command"])


def t_mpi():
    return plain("mpi.csv", ["campaign", "one_process", "mpirun_np_3"], ["campaign", "one process", "`mpirun -np 3`"])


TABLES = {
    "verification": t_verification,
    "ls89-grid": t_ls89_grid,
    "mesh-quality": t_mesh_quality,
    "import-fits": t_import_fits,
    "imported-solves": t_imported_solves,
    "naca65": t_naca65,
    "implicit-times": t_implicit_times,
    "gpu-speed": t_gpu_speed,
    "operations": t_operations,
    "kernels": t_kernels,
    "batch-k": t_batch_k,
    "batch": t_batch_figures,
    "design-space": t_design_space,
    "campaigns": t_campaigns,
    "perf-validation": t_perf_validation,
    "bbob": t_bbob,
    "kriging-analytic": t_kriging_analytic,
    "de-peers": t_de_peers,
    "kriging-fit": t_kriging_fit,
    "fronts": t_fronts,
    "ls89-fronts": t_ls89_fronts,
    "two-gpus": t_two_gpus,
    "mpi": t_mpi,
    "python": t_python,
}


ORDER = ["L-SHADE", "scipy DE", "CMA-ES IPOP", "turbopt Kriging", "egobox EGO"]


def bbob_per_function():
    """The per-function fractions behind the bars (not in the benchmark pages)."""
    data = defaultdict(dict)
    for r in rows("bbob_per_function.csv"):
        data[(int(r["dimension"]), int(r["budget_per_dimension"]))].setdefault(r["optimizer"], {})[r["function"]] = r["fraction_solved"]
    out = []
    for (dim, budget), by in sorted(data.items(), key=lambda kv: (kv[0][1], kv[0][0]), reverse=True):
        names = [n for n in ORDER if n in by]
        out += ["", f"BBOB {dim}-D, budget {budget} D: fraction of (instance, target) pairs solved per function", ""]
        out += table(["function"] + names, [[f"f{f}"] + [by[n][f"f{f}"] for n in names] for f in range(1, 25)])
    return out


# --- BENCHMARKS.md and docs/benchmarks/*.md ---

MARKER = re.compile(r"^<!-- table: ([\w-]+) -->$")


def pages():
    """BENCHMARKS.md and the detailed pages under docs/benchmarks/ (paths from the working directory)."""
    found = sorted(glob.glob(os.path.join(ROOT, "docs", "benchmarks", "*.md")))
    return [os.path.relpath(p) for p in [os.path.join(ROOT, "BENCHMARKS.md")] + found]


def sync(path, write):
    """The tables of one file against the results: (names that differ, names found in order)."""
    lines = open(path).read().split("\n")
    out, i, differ, seen = [], 0, [], []
    while i < len(lines):
        out.append(lines[i])
        m = MARKER.match(lines[i])
        i += 1
        if not m:
            continue
        name = m.group(1)
        if name not in TABLES:
            sys.exit(f"{path}: unknown table {name!r}")
        seen.append(name)
        old = []
        while i < len(lines) and lines[i].startswith("|"):
            old.append(lines[i])
            i += 1
        new = TABLES[name]()
        if new != old:
            differ.append(name)
        out += new
    if write:
        open(path, "w").write("\n".join(out))
    return differ, seen


# --- pictures ---

def pictures():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def save(fig, *path):
        p = os.path.join(DOCS, *path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        fig.savefig(p, dpi=90, metadata={"Software": None})
        plt.close(fig)
        print("wrote", os.path.relpath(p, ROOT))

    # BBOB: fraction solved per function, as benchmarks/bbob/summarize.py --plot draws it
    per = defaultdict(lambda: defaultdict(dict))
    for r in rows("bbob_per_function.csv"):
        per[(int(r["dimension"]), int(r["budget_per_dimension"]))][r["optimizer"]][int(r["function"][1:])] = float(r["fraction_solved"])
    for fname, budget, dims, names in [
        ("de_cma_5d_10d.png", 10000, [5, 10], ["L-SHADE", "scipy DE", "CMA-ES IPOP"]),
        ("de_cma_20d.png", 10000, [20], ["L-SHADE", "scipy DE", "CMA-ES IPOP"]),
        ("kriging_egobox_2d.png", 50, [2], ["turbopt Kriging", "egobox EGO"]),
        ("kriging_egobox_5d.png", 50, [5], ["turbopt Kriging", "egobox EGO"]),
    ]:
        fig, axes = plt.subplots(len(dims), 1, figsize=(12, 3.2 * len(dims)), squeeze=False)
        width = 0.8 / len(names)
        for ax, dim in zip(axes[:, 0], dims):
            for k, n in enumerate(names):
                values = [per[(dim, budget)][n][f] for f in range(1, 25)]
                ax.bar([f + (k - len(names) / 2 + 0.5) * width for f in range(1, 25)], values, width, label=n)
            ax.set_title(f"BBOB {dim}-D, budget {budget} D: fraction of (instance, target) pairs solved per function")
            ax.set_xticks(range(1, 25))
            ax.set_ylim(0, 1.05)
        axes[0, 0].legend(fontsize=8, ncol=len(names))
        fig.tight_layout()
        save(fig, "bbob", fname)

    # performance model: predicted against measured time to convergence
    fig, ax = plt.subplots(figsize=(6.5, 6))
    style = {"GPU": ("o", "tab:green"), "16 cores": ("s", "tab:red"), "2 cores": ("s", "tab:purple"), "1 core": ("^", "tab:blue")}
    done = set()
    for r in rows("perf_model_validation.csv"):
        hw = next(h for h in style if r["combination"].endswith(h))
        machine = "dev" if r["machine"] == "dev" else "H100 host"
        label = f"{hw} ({machine})"
        marker, colour = style[hw]
        ax.scatter(float(r["predicted_s"]), float(r["measured_s"]), marker=marker, color=colour,
                   facecolors="none" if r["machine"] == "dev" else colour, zorder=3,
                   label=None if label in done else label)
        done.add(label)
    xs = [2, 2000]
    ax.plot(xs, xs, "k-", lw=0.8, label="measured = predicted")
    ax.fill_between(xs, [x / 1.25 for x in xs], [x * 1.25 for x in xs], color="0.9", zorder=0, label="within 25 %")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xs)
    ax.set_ylim(*xs)
    ax.set_xlabel("predicted time to convergence [s]")
    ax.set_ylabel("measured full run [s]")
    ax.set_title("turbopt perf-model: LS89, coarse and medium")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    save(fig, "perf", "model-validation.png")

    # a batch of designs on one H100, and LS89 TC1 evaluations an hour
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    by = defaultdict(lambda: defaultdict(list))
    for r in rows("batch_streams_vs_stacked.csv"):
        by[r["run"]]["k"].append(int(r["designs"]))
        by[r["run"]]["streams"].append(float(r["streams_design_iterations_per_s"]))
        by[r["run"]]["stacked"].append(float(r["stacked_design_iterations_per_s"]))
    for run, ls in (("1", "-"), ("2", "--")):
        a.plot(by[run]["k"], by[run]["streams"], "o" + ls, color="tab:blue", label=f"on streams, run {run}")
        a.plot(by[run]["k"], by[run]["stacked"], "s" + ls, color="tab:orange", label=f"stacked in one mesh, run {run}")
    a.set_xlabel("LS89 coarse designs at once")
    a.set_ylabel("design-iterations a second")
    a.set_xticks([1, 4, 8, 16])
    a.set_ylim(0, None)
    a.set_title("One H100: throughput of a batch of designs")
    a.legend(fontsize=8)
    a.grid(True, lw=0.3)
    bars = []
    for r in rows("campaigns.csv"):
        if r["evaluations_an_hour"] != "-" and "H100" in r["hardware"] and "CPU" not in r["campaign"]:
            name = "DE" if "DE" in r["campaign"] or r["evaluations"] == "161" else "Kriging"
            how = r["hardware"].replace("H100, ", "").replace("H100", "one context")
            if "Nearest" in r["campaign"]:
                how = "Nearest warm starts"
            bars.append((f"TC1 {name}, {how}", int(r["evaluations_an_hour"].replace(",", ""))))
    for r in rows("two_gpus.csv"):
        m = re.search(r"([\d,]+) an hour", r["two_gpus"])
        if m:
            bars.append(("TC1 DE, two H100s under MPS", int(m.group(1).replace(",", ""))))
    b.barh([n for n, _ in bars], [v for _, v in bars], color="tab:blue")
    b.axvline(10000, color="k", lw=0.8, ls="--")
    b.text(10150, 0.5, "10,000 an hour", fontsize=8, va="center")
    b.invert_yaxis()
    b.set_xlabel("evaluations an hour")
    b.set_title("LS89 test case 1 on H100s")
    b.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    save(fig, "gpu", "batch-throughput.png")

    # campaigns: best feasible entropy rise against evaluations
    fig, ax = plt.subplots(figsize=(8, 4.5))
    folder = os.path.join(RESULTS, "campaign-histories")
    labels = {"ls89_tc1_de-h100-mps.csv": "TC1, DE (H100)", "ls89_tc1_kriging-h100-mps.csv": "TC1, Kriging (H100)",
              "ls89_tc1_wide_kriging-h200.csv": "TC1 over 16 variables, Kriging (H200)",
              "ls89_full_space_kriging-h200.csv": "TC1 over all 41 variables, Kriging (H200)",
              "ls89_tc2_kriging-h200.csv": "TC2, Kriging (H200)", "ls89_tc3_kriging-h200.csv": "TC3, Kriging (H200)"}
    for fname, label in labels.items():
        with open(os.path.join(folder, fname), newline="") as f:
            history = list(csv.DictReader(f))
        base = float(history[0]["objective"])
        best, xs, ys = base, [], []
        for r in history:
            if r["feasible"] == "true" and r["objective"]:
                best = min(best, float(r["objective"]))
            xs.append(int(r["index"]) + 1)
            ys.append(100 * (best / base - 1))
        ax.step(xs, ys, where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("evaluations")
    ax.set_ylabel("best feasible entropy rise against the baseline [%]")
    ax.set_title("LS89 optimization test cases")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, "campaigns", "convergence.png")


def main():
    args = sys.argv[1:]
    if args[:1] in (["--check"], ["--write"]):
        write = args[0] == "--write"
        files = args[1:] or pages()
        where = defaultdict(list)
        failed = False
        for path in files:
            differ, seen = sync(path, write)
            for name in seen:
                where[name].append(path)
            if write:
                print(f"{path}: {len(differ)} table(s) rewritten")
                continue
            for name in differ:
                print(f"{path}: table {name!r} differs from benchmarks/results")
                failed = True
        if write:
            return
        for name in TABLES:
            if not where[name]:
                print(f"table {name!r} is in none of {', '.join(files)}")
                failed = True
            elif len(where[name]) > 1:
                print(f"table {name!r} is there {len(where[name])} times: {', '.join(where[name])}")
                failed = True
        sys.exit(1 if failed else 0)
    if args == ["--pictures"]:
        pictures()
        return
    if args:
        sys.exit(__doc__)
    for name, make in TABLES.items():
        print(f"\n<!-- table: {name} -->")
        print("\n".join(make()))
    print("\n".join(bbob_per_function()))


if __name__ == "__main__":
    main()
