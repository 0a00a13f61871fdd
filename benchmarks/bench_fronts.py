#!/usr/bin/env python3
"""Fronts against peers: turbopt's GDE3 against pymoo's NSGA-II, turbopt's Kriging front optimizer
against BoTorch's qLogNEHVI, on ZDT1-3 (30 variables), DTLZ2 (12 variables, 3 objectives),
Branin-Currin and C2-DTLZ2 (12 variables, constrained), seeds 1-10, hypervolume of the feasible
non-dominated set over ALL evaluations of a run against the problems' usual reference points,
after a quarter, half, three quarters and all of the budget (medians), [min, max] at its end.

Needs numpy, pymoo, and for the Kriging comparison torch and botorch
(pip install numpy pymoo botorch). Run from the repository root:

    python3 benchmarks/bench_fronts.py [--seeds 10] [--skip-botorch] [--csv benchmarks/results/fronts.csv]

BoTorch takes minutes a run on a laptop: `--botorch-only --botorch-log runs.jsonl` runs (and
resumes) its runs alone, seeds interleaved; the full run with the same `--botorch-log` then
reads them instead of running them again.

The turbopt side is the ignored test `front_benchmarks` in tests/optim_fronts.rs (no baseline
design: every evaluation is the optimizer's), whose output lines this script reads.
"""
import argparse
import math
import os
import platform
import re
import statistics
import subprocess
import time

import numpy as np

# (problem, variables, objectives, constrained, reference point, evolutionary budget)
PROBLEMS = {
    "ZDT1": (30, 2, False, [1.1, 1.1], 5000),
    "ZDT2": (30, 2, False, [1.1, 1.1], 5000),
    "ZDT3": (30, 2, False, [1.1, 1.1], 5000),
    "DTLZ2": (12, 3, False, [1.1, 1.1, 1.1], 10000),
    "BraninCurrin": (2, 2, False, [18.0, 6.0], 500),
    "C2DTLZ2": (12, 2, True, [1.1, 1.1], 2000),
}
KRIGING_PROBLEMS = ["BraninCurrin", "C2DTLZ2"]
KRIGING_BUDGET = 100
KRIGING_BATCH = 2


def branin(a, b):
    return (b - 5.1 / (4 * np.pi ** 2) * a * a + 5 / np.pi * a - 6) ** 2 + 10 * (1 - 1 / (8 * np.pi)) * np.cos(a) + 10


def evaluate(name, x):
    """Objectives (n, m) and constraint values g <= 0 feasible (n,) or None; turbopt's definitions."""
    n = x.shape[1]
    if name.startswith("ZDT"):
        g = 1 + 9 * x[:, 1:].sum(1) / (n - 1)
        h = x[:, 0] / g
        if name == "ZDT1":
            f2 = g * (1 - np.sqrt(h))
        elif name == "ZDT2":
            f2 = g * (1 - h * h)
        else:
            f2 = g * (1 - np.sqrt(h) - h * np.sin(10 * np.pi * x[:, 0]))
        return np.c_[x[:, 0], f2], None
    if name in ("DTLZ2", "C2DTLZ2"):
        m = PROBLEMS[name][1]
        g = ((x[:, m - 1:] - 0.5) ** 2).sum(1)
        fs = []
        for i in range(m):
            last = m - 1 - i
            f = (1 + g) * np.prod(np.cos(x[:, :last] * np.pi / 2), axis=1)
            if i > 0:
                f = f * np.sin(x[:, last] * np.pi / 2)
            fs.append(f)
        F = np.stack(fs, 1)
        if name == "DTLZ2":
            return F, None
        r = 0.2
        caps = np.min([(F[:, i] - 1) ** 2 + sum(F[:, j] ** 2 - r * r for j in range(m) if j != i) for i in range(m)], axis=0)
        centre = ((F - 1 / np.sqrt(m)) ** 2 - r * r).sum(1)
        return F, np.minimum(caps, centre)
    x0, x1 = x[:, 0], x[:, 1]
    f1 = branin(15 * x0 - 5, 15 * x1)
    with np.errstate(divide="ignore", over="ignore"):
        f2 = (1 - np.exp(-1 / (2 * x1))) * (2300 * x0 ** 3 + 1900 * x0 ** 2 + 2092 * x0 + 60) / (100 * x0 ** 3 + 500 * x0 ** 2 + 4 * x0 + 20)
    return np.c_[f1, f2], None


def hypervolume(F, G, ref):
    from pymoo.indicators.hv import HV
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    F = np.asarray(F)
    if G is not None:
        F = F[np.asarray(G) <= 0]
    F = F[np.all(F < np.asarray(ref), axis=1)]
    if len(F) == 0:
        return 0.0
    nd = NonDominatedSorting().do(F, only_non_dominated_front=True)
    return float(HV(ref_point=np.asarray(ref))(F[nd]))


def pymoo_nsga2(name, seed, population):
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import Problem
    from pymoo.optimize import minimize

    n, m, constrained, ref, budget = PROBLEMS[name]
    seen = {"F": [], "G": []}

    class P(Problem):
        def __init__(self):
            super().__init__(n_var=n, n_obj=m, n_ieq_constr=1 if constrained else 0, xl=0.0, xu=1.0)

        def _evaluate(self, x, out, *args, **kwargs):
            F, G = evaluate(name, x)
            out["F"] = F
            seen["F"].append(F)
            if constrained:
                out["G"] = G[:, None]
                seen["G"].append(G)

    minimize(P(), NSGA2(pop_size=population), ("n_eval", budget), seed=seed, verbose=False)
    F = np.vstack(seen["F"])[:budget]
    G = np.concatenate(seen["G"])[:budget] if constrained else None
    return quarters(F, G, ref, budget)


def quarters(F, G, ref, budget):
    """Hypervolume of the first quarter, half, three quarters and all of a run's evaluations."""
    return [hypervolume(F[: budget * q // 4], None if G is None else G[: budget * q // 4], ref) for q in range(1, 5)]


def botorch_qlognehvi(name, seed, device="cpu", checkpoint=None):
    """One qLogNEHVI run; with `checkpoint` (a file) its evaluations are saved after every batch and a
    run found there continues from them (the random stream then restarts, which the record says)."""
    import torch
    import warnings
    from botorch.acquisition.multi_objective.logei import qLogNoisyExpectedHypervolumeImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP, ModelListGP
    from botorch.models.transforms.outcome import Standardize
    from botorch.optim import optimize_acqf
    from botorch.sampling.normal import SobolQMCNormalSampler
    from botorch.utils.sampling import draw_sobol_samples
    from gpytorch.mlls.sum_marginal_log_likelihood import SumMarginalLogLikelihood

    warnings.filterwarnings("ignore")
    torch.manual_seed(seed)
    n, m, constrained, ref, _ = PROBLEMS[name]
    tkw = {"dtype": torch.double, "device": torch.device(device)}
    bounds = torch.stack([torch.zeros(n, **tkw), torch.ones(n, **tkw)])

    def observe(x):
        F, G = evaluate(name, x.cpu().numpy())
        y = torch.tensor(-F, **tkw)  # BoTorch maximizes
        c = torch.tensor(G, **tkw).unsqueeze(-1) if constrained else None
        return y, c

    started = time.perf_counter()
    resumed = checkpoint is not None and os.path.exists(checkpoint)
    if resumed:
        saved = torch.load(checkpoint)
        x, y, c = (None if t is None else t.to(**tkw) for t in (saved["x"], saved["y"], saved["c"]))
        torch.manual_seed(seed * 1000 + len(x))
    else:
        x = draw_sobol_samples(bounds=bounds, n=2 * (n + 1), q=1, seed=seed).squeeze(1)
        y, c = observe(x)
    ref_point = -torch.tensor(ref, **tkw)
    while len(x) < KRIGING_BUDGET:
        outputs = torch.cat([y, c], -1) if constrained else y
        models = [SingleTaskGP(x, outputs[:, i:i + 1], outcome_transform=Standardize(m=1)) for i in range(outputs.shape[-1])]
        model = ModelListGP(*models)
        fit_gpytorch_mll(SumMarginalLogLikelihood(model.likelihood, model))
        acqf = qLogNoisyExpectedHypervolumeImprovement(
            model=model,
            ref_point=ref_point,
            X_baseline=x,
            prune_baseline=True,
            sampler=SobolQMCNormalSampler(sample_shape=torch.Size([128])),
            objective=None if not constrained else __import__("botorch").acquisition.multi_objective.objective.IdentityMCMultiOutputObjective(outcomes=list(range(m))),
            constraints=[lambda Z: Z[..., -1]] if constrained else None,
        )
        q = min(KRIGING_BATCH, KRIGING_BUDGET - len(x))
        candidates, _ = optimize_acqf(acqf, bounds=bounds, q=q, num_restarts=10, raw_samples=512, options={"batch_limit": 5, "maxiter": 200}, sequential=True)
        yn, cn = observe(candidates.detach())
        if os.environ.get("BENCH_FRONTS_VERBOSE"):
            print(f"  {name} seed {seed}: {len(x) + q} evaluations, {time.perf_counter() - started:.0f} s", flush=True)
        x = torch.cat([x, candidates.detach()])
        y = torch.cat([y, yn])
        if constrained:
            c = torch.cat([c, cn])
        if checkpoint is not None:
            torch.save({"x": x.cpu(), "y": y.cpu(), "c": None if c is None else c.cpu()}, checkpoint)
    hv = quarters(-y.cpu().numpy(), c.squeeze(-1).cpu().numpy() if constrained else None, ref, KRIGING_BUDGET)
    return hv, resumed


def botorch_run(name, seed, log, device="cpu", checkpoint=None):
    """One BoTorch run's hypervolume quarters and time, from `log` when it holds it, else run (and logged)."""
    import json

    logged = next((r for r in logged_runs(log, name) if r["seed"] == seed), None)
    if logged:
        return logged
    t = time.perf_counter()
    hv, resumed = botorch_qlognehvi(name, seed, device, checkpoint)
    r = {"problem": name, "seed": seed, "quarters": hv, "seconds": time.perf_counter() - t, "machine": machine_name(device)}
    if resumed:
        r["resumed"] = True
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(r) + "\n")
    print(f"BoTorch {name} seed {seed}: {r['quarters']} in {r['seconds']:.0f} s", flush=True)
    return r


def logged_runs(log, name):
    """The runs of `name` that `log` holds, by seed."""
    import json

    runs = [r for r in map(json.loads, open(log)) if r["problem"] == name] if log and os.path.exists(log) else []
    return sorted(runs, key=lambda r: r["seed"])


def turbopt_runs(seeds):
    env = dict(os.environ, TURBOPT_FRONT_SEEDS=str(seeds))
    cmd = ["cargo", "test", "--release", "--test", "optim_fronts", "--", "--ignored", "--nocapture", "front_benchmarks"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    runs = {}
    for m in re.finditer(r"FRONT problem=(\w+) optimizer=([\w-]+) seed=(\d+) evaluations=(\d+) hypervolume=(\S+) seconds=(\S+) history=(\S+)", out):
        by_quarter = [float(v) for v in m.group(7).split(",")]
        runs.setdefault((m.group(1), m.group(2)), []).append((by_quarter, float(m.group(6))))
    return runs


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_name(device="cpu"):
    """The CPU and its cores, and the GPU where BoTorch ran on one."""
    name = f"{cpu_model()}, {os.cpu_count()} cores"
    if device != "cpu":
        import torch

        name += f", {torch.cuda.get_device_name(torch.device(device))}"
    return name


def botorch_job(job):
    """`botorch_run` of one (problem, seed, log, device, checkpoint folder) job."""
    name, seed, log, device, checkpoint_dir = job
    checkpoint = os.path.join(checkpoint_dir, f"{name}-{seed}.pt") if checkpoint_dir else None
    return botorch_run(name, seed, log, device, checkpoint)


def botorch_worker(job):
    """`botorch_job` in a pool worker, on one thread."""
    import torch

    torch.set_num_threads(1)
    return botorch_job(job)


def run_times(runs):
    """Median seconds a run on each machine the runs used, with the seeds run there; a resumed
    run's time covers only its last part and is left out."""
    by_machine = {}
    for r in runs:
        if not r.get("resumed"):
            by_machine.setdefault(r.get("machine", "unrecorded machine"), []).append(r)
    parts = []
    for where, rs in by_machine.items():
        seeds = ", ".join(str(r["seed"]) for r in rs)
        parts.append(f"{statistics.median(r['seconds'] for r in rs):.0f} s a run on {where} (seeds {seeds})")
    resumed = [str(r["seed"]) for r in runs if r.get("resumed")]
    if resumed:
        parts.append(f"seeds {', '.join(resumed)} resumed from their evaluations after an interruption")
    return "; ".join(parts)


def describe(runs):
    """Median hypervolume at a quarter, half, three quarters and all of the budget; [min, max] at its end."""
    medians = " / ".join(f"{statistics.median(r[q] for r in runs):.4g}" for q in range(4))
    ends = [r[3] for r in runs]
    return f"{medians} [{min(ends):.4g}, {max(ends):.4g}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--skip-botorch", action="store_true")
    ap.add_argument("--botorch-seeds", type=int, default=None, help="seeds for BoTorch (default: --seeds); each run takes minutes on a laptop")
    ap.add_argument("--botorch-log", default=None,
                    help="JSON-lines file of BoTorch runs: runs found there are not repeated, new ones are appended as they finish")
    ap.add_argument("--botorch-only", action="store_true", help="only run the BoTorch runs missing from --botorch-log, seeds interleaved")
    ap.add_argument("--botorch-logged", action="store_true", help="report the BoTorch runs --botorch-log holds, run no new ones")
    ap.add_argument("--botorch-problems", nargs="+", default=KRIGING_PROBLEMS, choices=KRIGING_PROBLEMS, help="problems of the BoTorch runs (--botorch-only)")
    ap.add_argument("--botorch-device", default="cpu", help="torch device of the BoTorch runs (cpu, cuda)")
    ap.add_argument("--botorch-parallel", type=int, default=1, help="BoTorch runs at once, one thread each (--botorch-only)")
    ap.add_argument("--botorch-checkpoints", default=None, help="folder where unfinished BoTorch runs save their evaluations after every batch")
    ap.add_argument("--csv", default="benchmarks/results/fronts.csv")
    args = ap.parse_args()
    seeds = range(1, args.seeds + 1)
    bo_seeds = range(1, (args.botorch_seeds or args.seeds) + 1)
    if args.botorch_only:
        jobs = [(name, seed, args.botorch_log, args.botorch_device, args.botorch_checkpoints) for seed in bo_seeds for name in args.botorch_problems]
        if args.botorch_parallel > 1:
            import multiprocessing

            # Workers append whole lines to the log as they finish; a line is one write.
            with multiprocessing.get_context("spawn").Pool(args.botorch_parallel) as pool:
                pool.map(botorch_worker, jobs, chunksize=1)
        else:
            for job in jobs:
                botorch_job(job)
        return
    machine = machine_name()
    ours = turbopt_runs(args.seeds)
    rows = []
    for name, (n, m, constrained, ref, budget) in PROBLEMS.items():
        gde3 = [hv for hv, _ in ours[(name, "gde3")]]
        own_population = min(100, max(8, round(math.sqrt(budget))))
        nsga_default = [pymoo_nsga2(name, s, 100) for s in seeds]
        nsga_same = [pymoo_nsga2(name, s, own_population) for s in seeds] if own_population != 100 else nsga_default
        peer = f"NSGA-II (pymoo) pop 100: {describe(nsga_default)}"
        if own_population != 100:
            peer += f"; pop {own_population}: {describe(nsga_same)}"
        rows.append([name, "evolutionary", budget, len(gde3), "GDE3 (turbopt)", describe(gde3), peer, machine])
        print(rows[-1], flush=True)
    for name in KRIGING_PROBLEMS:
        kr = ours[(name, "kriging-front")]
        hv = [h for h, _ in kr]
        secs = statistics.median([t for _, t in kr])
        if args.skip_botorch:
            peer = "not run"
        else:
            runs = logged_runs(args.botorch_log, name) if args.botorch_logged else [botorch_run(name, s, args.botorch_log) for s in bo_seeds]
            bo = [r["quarters"] for r in runs]
            if bo:
                seed_list = ", ".join(str(r["seed"]) for r in runs)
                peer = f"qLogNEHVI (BoTorch, q = {KRIGING_BATCH}, seeds {seed_list}): {describe(bo)}; {run_times(runs)}"
            else:
                peer = "not run"
        rows.append([name, "Kriging", KRIGING_BUDGET, len(hv), f"Kriging front (turbopt, batch {KRIGING_BATCH})", f"{describe(hv)}, {secs:.0f} s a run", peer, machine])
        print(rows[-1], flush=True)
    import csv

    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["problem", "kind", "budget", "seeds", "optimizer", "hypervolume", "peer", "machine"])
        w.writerows(rows)
    print(f"wrote {args.csv}")


if __name__ == "__main__":
    main()
