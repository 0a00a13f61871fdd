#!/usr/bin/env python3
"""The peers of turbopt-bbob on the same BBOB problems, writing COCO's standard data.

  python3 peers.py --solver scipy-de --dimensions 5,10 --instances 1-15 --budget 10000
  python3 peers.py --solver cma-ipop --dimensions 5,10 --instances 1-15 --budget 10000
  python3 peers.py --solver egobox   --dimensions 2,5  --instances 1-15 --budget 50

scipy-de: scipy.optimize.differential_evolution with its defaults (best1bin, popsize 15,
dithered F in [0.5, 1), CR 0.7, Latin hypercube) except tol=0 and polish=False, so that it
spends the budget; restarted with a new seed while budget remains. cma-ipop: pycma's fmin2
with IPOP restarts (population doubled at every restart, up to 9), x0 uniform in [-4, 4]^D,
sigma0 = 2, as in the BBOB examples of pycma. egobox: Egor with its defaults (LHS DOE of 2 D, log-EI), continued from its database while
budget remains.
Every solver stops once COCO's final target (f_opt + 1e-8) is hit.
Needs: pip install coco-experiment scipy cma egobox.
"""
import argparse

import cocoex
import numpy as np


class Hit(Exception):
    pass


def stopping(problem, budget):
    """The problem as a function that raises Hit once the final target or the budget is reached."""

    def f(x):
        if problem.final_target_hit or problem.evaluations >= budget:
            raise Hit()
        return problem(np.asarray(x, dtype=float))

    return f


def scipy_de(problem, budget, seed):
    from scipy.optimize import differential_evolution

    dim = problem.dimension
    bounds = list(zip(problem.lower_bounds, problem.upper_bounds))
    f = stopping(problem, budget)
    while problem.evaluations < budget and not problem.final_target_hit:
        remaining = budget - problem.evaluations
        maxiter = max(1, remaining // (15 * dim) - 1)
        try:
            differential_evolution(f, bounds, maxiter=maxiter, tol=0, polish=False, seed=seed)
        except Hit:
            return
        seed += 1000


def cma_ipop(problem, budget, seed):
    import cma

    dim = problem.dimension
    f = stopping(problem, budget)
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-4, 4, dim)
    options = {"maxfevals": budget, "verbose": -9, "seed": seed + 1, "bounds": [list(problem.lower_bounds), list(problem.upper_bounds)]}
    try:
        cma.fmin2(f, x0, 2.0, options, restarts=9, incpopsize=2)
    except Hit:
        pass


def egobox(problem, budget, seed):
    """Egor with its defaults; continued from its own database (x_doe, y_doe: no re-evaluation)
    while budget remains, since Egor ends a run early once its infill points repeat known ones."""
    import egobox as egx

    dim = problem.dimension
    f = stopping(problem, budget)

    def batch(x):
        return np.array([[f(row)] for row in np.atleast_2d(x)])

    xlimits = [[lo, hi] for lo, hi in zip(problem.lower_bounds, problem.upper_bounds)]
    doe = {"n_doe": 2 * dim}
    try:
        while problem.evaluations < budget:
            before = problem.evaluations
            res = egx.Egor(xlimits, seed=seed, **doe).minimize(batch, max_iters=max(1, budget - problem.evaluations))
            result = getattr(res, "result", res)
            doe = {"x_doe": result.x_doe, "y_doe": result.y_doe}
            seed += 1000
            if problem.evaluations == before:
                return
    except Hit:
        pass


SOLVERS = {"scipy-de": scipy_de, "cma-ipop": cma_ipop, "egobox": egobox}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--solver", choices=SOLVERS, required=True)
    p.add_argument("--dimensions", default="5,10")
    p.add_argument("--instances", default="1-15")
    p.add_argument("--functions", default="1-24")
    p.add_argument("--budget", type=int, default=10000, help="evaluations per problem divided by the dimension")
    a = p.parse_args()
    name = {"scipy-de": "scipy-DE", "cma-ipop": "pycma-IPOP", "egobox": "egobox-EGO"}[a.solver]
    suite = cocoex.Suite("bbob", "", f"dimensions: {a.dimensions} instance_indices: {a.instances} function_indices: {a.functions}")
    observer = cocoex.Observer("bbob", f"result_folder: {name}_budget{a.budget} algorithm_name: {name}")
    for problem in suite:
        problem.observe_with(observer)
        SOLVERS[a.solver](problem, a.budget * problem.dimension, problem.id_instance)
        print(f"{problem.id} {problem.evaluations:>8} evaluations, hit {problem.final_target_hit}", flush=True)
        problem.free()
    print("data in", observer.result_folder)


if __name__ == "__main__":
    main()
