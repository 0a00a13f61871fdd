#!/usr/bin/env python3
"""Kriging fit time: turbopt vs egobox on the same samples (Rosenbrock-9D on [-2, 2]^9, 200 and
500 Latin hypercube samples), Gaussian and Matern 5/2 correlations, constant trend.

Needs numpy, scipy and egobox (pip install numpy scipy egobox into a venv). Run from the crate
root:  python3 benchmarks/bench_kriging_egobox.py [--out out/bench/kriging_vs_egobox.md]
The Rust side is the ignored test `fit_time_9d` in tests/optim_kriging.rs, fed the same CSV files.
"""
import argparse
import os
import platform
import re
import subprocess
import tempfile
import time

import numpy as np
from scipy.stats import qmc


def rosenbrock(x):
    return np.sum(100.0 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1.0 - x[:, :-1]) ** 2, axis=1)


def write_csv(path, x, y):
    header = ",".join([f"x{i + 1}" for i in range(x.shape[1])] + ["y"])
    np.savetxt(path, np.column_stack([x, y]), delimiter=",", header=header, comments="", fmt="%.17g")


def egobox_fits(data, sizes):
    import egobox as egx

    rows = []
    xt, yt = data["test"]
    for n in sizes:
        x, y = data[n]
        for name, spec in [("Gaussian", egx.CorrelationSpec.SQUARED_EXPONENTIAL), ("Matern52", egx.CorrelationSpec.MATERN52)]:
            t = time.perf_counter()
            gp = egx.Gpx.builder(regr_spec=egx.RegressionSpec.CONSTANT, corr_spec=spec, seed=0).fit(x, y.reshape(-1, 1))
            secs = time.perf_counter() - t
            pred = np.asarray(gp.predict(xt)).ravel()
            rmse = float(np.sqrt(np.mean((pred - yt) ** 2)))
            rows.append((n, name, secs, rmse))
    return rows


def turbopt_fits(data_dir):
    env = dict(os.environ, TURBOPT_KRIGING_BENCH_DIR=data_dir)
    cmd = ["cargo", "test", "--test", "optim_kriging", "--", "--ignored", "--nocapture", "fit_time_9d"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    rows = []
    for m in re.finditer(r"KRIGING_FIT n=(\d+) d=9 correlation=(\w+) seconds=([\d.]+) test_rmse=(\S+)", out):
        rows.append((int(m.group(1)), m.group(2), float(m.group(3)), float(m.group(4))))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="out/bench/kriging_vs_egobox.md")
    args = ap.parse_args()
    sizes = [200, 500]
    lo, hi = -2.0, 2.0
    data = {}
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            x = qmc.scale(qmc.LatinHypercube(d=9, seed=n).random(n), [lo] * 9, [hi] * 9)
            data[n] = (x, rosenbrock(x))
            write_csv(os.path.join(d, f"train_{n}.csv"), *data[n])
        xt = np.random.default_rng(7).uniform(lo, hi, size=(500, 9))
        data["test"] = (xt, rosenbrock(xt))
        write_csv(os.path.join(d, "test.csv"), *data["test"])
        ours = turbopt_fits(d)
        try:
            theirs = egobox_fits(data, sizes)
            import egobox

            ego_version = getattr(egobox, "__version__", "?")
        except ImportError as e:
            theirs, ego_version = [], f"not installed ({e})"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "## Kriging fit time, Rosenbrock-9D on [-2, 2]^9 (same samples for both)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} at the start; "
        f"egobox {ego_version}. Command: `python3 benchmarks/bench_kriging_egobox.py`.",
        "turbopt: ordinary Kriging, ML hyperparameters by 4-start L-BFGS (analytic gradient); "
        "egobox: Gpx, constant trend, default 10-start optimizer. Test RMSE on 500 uniform random points.",
        "",
        "| samples | correlation | turbopt fit (s) | turbopt test RMSE | egobox fit (s) | egobox test RMSE |",
        "|---|---|---|---|---|---|",
    ]
    for n, name, secs, rmse in ours:
        other = [r for r in theirs if r[0] == n and r[1] == name]
        e = f"{other[0][2]:.2f} | {other[0][3]:.4g}" if other else "- | -"
        lines.append(f"| {n} | {name} | {secs:.2f} | {rmse:.4g} | {e} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
