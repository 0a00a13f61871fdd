"""Optimizes the LS89 vane from Python: its entropy rise at MUR47 over four design variables,
subject to an exit angle of at least 74 degrees, with turbopt's Kriging-assisted optimizer
calling a Python objective that scores each design with the RANS evaluator. Then the best design
and the baseline are solved once more for their blade Mach numbers, and, when matplotlib is
installed, two pictures are drawn: the blade isentropic Mach number of both, and every
evaluation in the (exit angle, entropy rise) plane.

    python python/examples/optimize_blade.py [--budget 14] [--out out/python-ls89]

Run it from the repository root (it reads blades/ls89.ron). About five minutes on two cores at
the default budget; `--quick` makes a smoke test of it (four designs, short solves).
"""

import argparse
import pathlib

import numpy as np

import turbopt

VARIABLES = ["exit_metal_angle_deg", "camber_4", "camber_5", "thickness_4"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=14, help="designs to evaluate")
    parser.add_argument("--out", default="out/python-ls89", help="folder for the pictures")
    parser.add_argument("--quick", action="store_true", help="four designs with 40-iteration solves, each accepted once its residual dropped one order: a smoke test")
    parser.add_argument("--backend", default="cpu", help='"cpu" or "gpu"')
    args = parser.parse_args()
    budget, iterations = (4, 40) if args.quick else (args.budget, None)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    config = {
        "blade": "blades/ls89.ron",
        "operating_points": ["MUR47"],
        "density": "coarse",
        "objectives": ["EntropyRise"],
        "constraints": [{"ExitAngleAtLeast": 74.0}],
    }
    if args.quick:
        # Each short solve is accepted once its residual dropped one order.
        config["solver"] = {"accept_orders": 1.0}
    evaluator = turbopt.Evaluator(config, backend=args.backend, max_iterations=iterations)
    space = evaluator.space
    free = [space.names.index(v) for v in VARIABLES]
    bounds = [(space.lower[k], space.upper[k]) for k in free]

    # One evaluation per design, shared by the objective and the constraint, and kept for the
    # picture of every evaluation.
    evaluations = {}

    def evaluate(x):
        key = x.tobytes()
        if key not in evaluations:
            design = space.baseline.copy()
            design[free] = x
            evaluations[key] = (x.copy(), evaluator(design))
            e = evaluations[key][1]
            print(f"design {len(evaluations):3d}: {e.status:13s} entropy rise {e.objectives[0] if len(e.objectives) else float('nan'):.5e}")
        return evaluations[key][1]

    def entropy_rise(x):
        e = evaluate(x)
        if e.status != "ok":
            raise RuntimeError(f"{e.status}: {e.reason}")
        return e.objectives[0]

    def exit_angle_constraint(x):
        return evaluate(x).constraints

    baseline = space.baseline[free]
    result = turbopt.minimize(entropy_rise, bounds, method="kriging", budget=budget, seed=1, constraints=exit_angle_constraint, x0=baseline)
    print(f"best entropy rise {result.fun:.5e} (feasible: {result.success}) after {result.nfev} designs")
    for name, value in zip(VARIABLES, result.x):
        print(f"  {name:22s} {value:.6f}")

    solves = {}
    for label, x in [("baseline", baseline), ("best", result.x)]:
        design = space.baseline.copy()
        design[free] = x
        solves[label] = turbopt.solve("blades/ls89.ron", case="MUR47", design=design, max_iterations=iterations, backend=args.backend)
        print(f"{label}: {solves[label]}")
    draw(solves, list(evaluations.values()), out)


def draw(solves, evaluations, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no pictures")
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for (label, r), colour in zip(solves.items(), ["tab:blue", "tab:red"]):
        mis = r.mis
        for side, style in [("ss", "-"), ("ps", "--")]:
            on = mis["side"] == side
            ax.plot(mis["x_over_axial_chord"][on], mis["mis"][on], style, color=colour, label=f"{label} ({'suction' if side == 'ss' else 'pressure'} side)")
    ax.set_xlabel("x / axial chord")
    ax.set_ylabel("isentropic Mach number")
    ax.legend()
    fig.savefig(out / "mis.png", dpi=120)
    fig, ax = plt.subplots(figsize=(6, 5))
    scored = [(e.constraints[0], e.objectives[0], e.status == "ok") for _, e in evaluations if len(e.objectives)]
    if scored:
        c, f, ok = map(np.array, zip(*scored))
        ax.scatter(74.0 - c[ok], f[ok], label="converged")
        ax.scatter(74.0 - c[~ok], f[~ok], marker="x", label="not converged")
    ax.axvline(74.0, color="grey", linestyle=":", label="exit angle limit")
    ax.set_xlabel("|exit angle| [deg]")
    ax.set_ylabel("entropy rise")
    ax.legend()
    fig.savefig(out / "evaluations.png", dpi=120)
    print(f"pictures in {out}")


if __name__ == "__main__":
    main()
