#!/usr/bin/env python3
"""Fractions of (function, instance, target) triples solved at the end of the budget, read from
COCO's .info files (each run's final f - f_opt), for the issue-16 criteria: per dimension over
all 24 functions, and per function. Targets 10^2 ... 10^-8 in steps of 10^0.2 (51 targets, as in
cocopp's runtime ECDFs).

  python3 summarize.py [--plot out.png] [--instances 1-5] exdata/turbopt-LSHADE_budget10000 exdata/scipy-DE_budget10000 ...

A folder is read with its subfolders, so the COCO folders of one algorithm run in parts (e.g.
instances 1-5 and 6-10 as two processes) are read as one when copied under a common folder.

--instances keeps the runs on those COCO instance numbers only (to compare folders run on different
instance sets on the ones they share), e.g. 1-5,71-73: the numbers in the .info files, where the
suites' 6th to 15th instances are 71-80.
"""
import glob
import os
import re
import sys
from collections import defaultdict

TARGETS = [10 ** (2 - 0.2 * k) for k in range(51)]


def read(folder, keep):
    """{dim: {function: [final delta f of each instance]}}, instances in `keep` (None: all)"""
    runs = defaultdict(lambda: defaultdict(list))
    for info in glob.glob(os.path.join(folder, "**", "*.info"), recursive=True):
        header = None
        for line in open(info):
            m = re.search(r"funcId = (\d+), DIM = (\d+)", line)
            if m:
                header = (int(m.group(2)), int(m.group(1)))
            elif header and line.startswith("data_"):
                for run in line.strip().split(", ")[1:]:
                    instance = int(run.split(":")[0])
                    if keep is None or instance in keep:
                        runs[header[0]][header[1]].append(float(run.split("|")[1]))
    return runs


def instance_numbers(spec):
    """COCO instance numbers from "1-5,71-75" (ranges and single numbers, comma-separated)."""
    keep = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        keep.update(range(int(lo), int(hi or lo) + 1))
    return keep


def fraction(deltas):
    return sum(d <= t for d in deltas for t in TARGETS) / (len(deltas) * len(TARGETS))


def plot(data, names, dims, path):
    """Bars of the fraction solved per function, one panel per dimension."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(dims), 1, figsize=(12, 3.2 * len(dims)), squeeze=False)
    width = 0.8 / len(names)
    for ax, dim in zip(axes[:, 0], dims):
        for k, n in enumerate(names):
            values = [fraction(data[n][dim][f]) if data[n].get(dim, {}).get(f) else 0.0 for f in range(1, 25)]
            ax.bar([f + (k - len(names) / 2 + 0.5) * width for f in range(1, 25)], values, width, label=n)
        ax.set_title(f"BBOB {dim}-D: fraction of (instance, target) pairs solved per function")
        ax.set_xticks(range(1, 25))
        ax.set_ylim(0, 1.05)
    axes[0, 0].legend(fontsize=8, ncol=len(names))
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    args = sys.argv[1:]
    png = None
    if args[:1] == ["--plot"]:
        png, args = args[1], args[2:]
    keep = None
    if args[:1] == ["--instances"]:
        keep, args = instance_numbers(args[1]), args[2:]
    data = {os.path.basename(f.rstrip("/")): read(f, keep) for f in args}
    names = list(data)
    dims = sorted({d for r in data.values() for d in r})
    for dim in dims:
        print(f"\n### {dim}-D: fraction of (function, instance, target) triples solved\n")
        print("| function | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        totals = defaultdict(list)
        for f in range(1, 25):
            row = []
            for n in names:
                deltas = data[n].get(dim, {}).get(f, [])
                v = fraction(deltas) if deltas else float("nan")
                totals[n].append(v)
                row.append(f"{v:.2f} ({len(deltas)})")
            print(f"| f{f} | " + " | ".join(row) + " |")
        print("| **all** | " + " | ".join(f"**{sum(totals[n]) / len(totals[n]):.3f}**" for n in names) + " |")
    if png:
        plot(data, names, dims, png)


if __name__ == "__main__":
    main()
