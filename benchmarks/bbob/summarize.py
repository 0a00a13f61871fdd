#!/usr/bin/env python3
"""Fractions of (function, instance, target) triples solved at the end of the budget, read from
COCO's .info files (each run's final f - f_opt), for the issue-16 criteria: per dimension over
all 24 functions, and per function. Targets 10^2 ... 10^-8 in steps of 10^0.2 (51 targets, as in
cocopp's runtime ECDFs).

  python3 summarize.py exdata/turbopt-LSHADE_budget10000 exdata/scipy-DE_budget10000 ...
"""
import glob
import os
import re
import sys
from collections import defaultdict

TARGETS = [10 ** (2 - 0.2 * k) for k in range(51)]


def read(folder):
    """{dim: {function: [final delta f of each instance]}}"""
    runs = defaultdict(lambda: defaultdict(list))
    for info in glob.glob(os.path.join(folder, "*.info")):
        header = None
        for line in open(info):
            m = re.search(r"funcId = (\d+), DIM = (\d+)", line)
            if m:
                header = (int(m.group(2)), int(m.group(1)))
            elif header and line.startswith("data_"):
                for run in line.strip().split(", ")[1:]:
                    delta = float(run.split("|")[1])
                    runs[header[0]][header[1]].append(delta)
    return runs


def fraction(deltas):
    return sum(d <= t for d in deltas for t in TARGETS) / (len(deltas) * len(TARGETS))


def main():
    data = {os.path.basename(f.rstrip("/")): read(f) for f in sys.argv[1:]}
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


if __name__ == "__main__":
    main()
