#!/usr/bin/env python3
"""Differential evolution: evaluations to reach the target, turbopt vs
scipy.optimize.differential_evolution (best1bin, its defaults), 10 seeds, budget 10000 * D.

Rosenbrock-10D on [-5, 5]^10 to f < 1e-6 and Rastrigin-10D on [-5.12, 5.12]^10 to f < 1e-3.
Needs numpy and scipy (pip install numpy scipy into a venv). Run from the crate root:
    python3 benchmarks/bench_de_scipy.py [--out out/bench/de_vs_scipy.md]
The turbopt side is tests/optim_de.rs (its DE_RUN lines).
"""
import argparse
import math
import os
import re
import statistics
import subprocess

import numpy as np
from scipy.optimize import differential_evolution

DIM = 10
BUDGET = 10000 * DIM


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def rastrigin(x):
    return float(10.0 * len(x) + np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x)))


PROBLEMS = {
    "Rosenbrock-10D": (rosenbrock, 5.0, 1e-6),
    "Rastrigin-10D": (rastrigin, 5.12, 1e-3),
}


class Reached(Exception):
    pass


def scipy_run(f, half_width, target, seed):
    count = [0]

    def counted(x):
        count[0] += 1
        v = f(x)
        if v < target:
            raise Reached()
        return v

    popsize = 15  # scipy default: 15 * DIM individuals
    maxiter = math.ceil(BUDGET / (popsize * DIM)) - 1
    try:
        differential_evolution(counted, [(-half_width, half_width)] * DIM, strategy="best1bin", popsize=popsize,
                               maxiter=maxiter, tol=0.0, atol=0.0, polish=False, seed=seed)
    except Reached:
        return count[0] if count[0] <= BUDGET else None
    return None


def turbopt_runs():
    cmd = ["cargo", "test", "--test", "optim_de", "--", "--nocapture", "10d"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    runs = {}
    for m in re.finditer(r"DE_RUN problem=(\S+) seed=(\d+) evaluations=(\w+)", out):
        runs.setdefault(m.group(1), []).append(None if m.group(3) == "none" else int(m.group(3)))
    return runs


def describe(runs):
    hits = [r for r in runs if r is not None]
    med = f"{statistics.median(hits) / 1000:.1f}k" if hits else "-"
    return med, f"{len(hits)}/{len(runs)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="out/bench/de_vs_scipy.md")
    args = ap.parse_args()
    ours = turbopt_runs()
    import scipy

    lines = [
        "## Differential evolution: evaluations to target (10 seeds, budget 10000 * D = 100k)",
        "",
        f"turbopt: its default DE (`DeSettings::for_dimension`: L-SHADE). scipy {scipy.__version__}: "
        "`differential_evolution(strategy='best1bin', popsize=15, tol=0, polish=False)`, its other defaults "
        "(dithered F in [0.5, 1), CR 0.7, Latin hypercube, immediate updating). "
        "Median over the seeds that reached the target. Command: `python3 benchmarks/bench_de_scipy.py`.",
        "",
        "| problem | target | turbopt median evals | turbopt successes | scipy median evals | scipy successes |",
        "|---|---|---|---|---|---|",
    ]
    for name, (f, hw, target) in PROBLEMS.items():
        theirs = [scipy_run(f, hw, target, seed) for seed in range(10)]
        om, os_ = describe(ours.get(name, []))
        tm, ts = describe(theirs)
        lines.append(f"| {name} | {target:g} | {om} | {os_} | {tm} | {ts} |")
        print(name, "turbopt", ours.get(name), "scipy", theirs, flush=True)
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
