"""turbopt.minimize: Python functions and turbopt Evaluators, the Rust optimizers' results,
constraints, failures and bad input."""

import math
import threading

import numpy as np
import pytest

import turbopt


def branin(x):
    """Branin as the Rust analytic evaluator computes it, operation for operation."""
    b = 5.1 / (4.0 * math.pi * math.pi)
    c = 5.0 / math.pi
    t = 1.0 / (8.0 * math.pi)
    v = x[1] - b * x[0] * x[0] + c * x[0] - 6.0
    return v * v + 10.0 * (1.0 - t) * math.cos(x[0]) + 10.0


BRANIN_BOUNDS = [(-5.0, 10.0), (0.0, 15.0)]
BRANIN_MINIMUM = 0.397887357729739


def test_the_quick_start_minimizes_a_sphere():
    r = turbopt.minimize(lambda x: (x ** 2).sum(), [(-1, 1)] * 3, method="lshade", budget=2000, seed=1)
    assert r.success and r.nfev == 2000
    assert r.fun < 1e-8 and r.fun == (r.x ** 2).sum()
    assert r.history.shape[1] == 2 and np.all(np.diff(r.history[:, 1]) < 0)


@pytest.mark.parametrize("method, budget", [("lshade", 3000), ("jde", 3000), ("de", 3000), ("kriging", 30)])
def test_a_python_function_gives_the_rust_optimizers_result_to_the_last_bit(method, budget):
    python = turbopt.minimize(branin, BRANIN_BOUNDS, method=method, budget=budget, seed=7)
    rust = turbopt.minimize(turbopt.Evaluator({"Analytic": "Branin"}), method=method, budget=budget, seed=7)
    assert python.x.tobytes() == rust.x.tobytes()
    assert python.fun == rust.fun and python.nfev == rust.nfev
    assert python.fun < BRANIN_MINIMUM + 1e-2


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    a = turbopt.minimize(branin, BRANIN_BOUNDS, budget=1000, seed=3)
    b = turbopt.minimize(branin, BRANIN_BOUNDS, budget=1000, seed=3)
    c = turbopt.minimize(branin, BRANIN_BOUNDS, budget=1000, seed=4)
    assert a.x.tobytes() == b.x.tobytes() and a.x.tobytes() != c.x.tobytes()


def test_constraints_as_callables_and_nonlinear_constraints():
    # min x0 + x1 on [0, 1]^2 subject to x0^2 + x1^2 >= 0.5: the optimum is where the circle
    # meets an axis, at sqrt(0.5).
    g = lambda x: 0.5 - (x ** 2).sum()  # noqa: E731
    r = turbopt.minimize(lambda x: x.sum(), [(0, 1), (0, 1)], budget=4000, seed=1, constraints=g)
    assert r.success and r.violation == 0.0
    assert abs(r.fun - 0.5 ** 0.5) < 1e-6 and r.constraints.shape == (1,)

    class NonlinearConstraint:  # scipy.optimize.NonlinearConstraint's fields
        def __init__(self, fun, lb, ub):
            self.fun, self.lb, self.ub = fun, lb, ub

    r2 = turbopt.minimize(lambda x: x.sum(), [(0, 1), (0, 1)], budget=4000, seed=1, constraints=NonlinearConstraint(lambda x: (x ** 2).sum(), 0.5, np.inf))
    assert r2.x.tobytes() == r.x.tobytes()


def test_an_exception_in_the_objective_is_a_failed_evaluation_and_the_run_goes_on():
    def sometimes(x):
        if x[0] > 0.8:
            raise ZeroDivisionError("no designs beyond 0.8")
        return float((x ** 2).sum())

    r = turbopt.minimize(sometimes, [(-1, 1)] * 2, budget=500, seed=2)
    assert r.success and r.nfev == 500
    assert r.failures, "some designs fell beyond 0.8"
    index, why = r.failures[0]
    assert "ZeroDivisionError" in why and "no designs beyond 0.8" in why
    text = turbopt.minimize(lambda x: "a string", [(-1, 1)], budget=20, seed=1)
    assert not text.success and "not a number" in text.failures[0][1]


def test_scipy_names_run_classic_differential_evolution():
    r = turbopt.differential_evolution(branin, BRANIN_BOUNDS, maxiter=60, popsize=10, seed=1)
    assert r.nfev == 61 * 20 and r.fun < BRANIN_MINIMUM + 1e-3
    same = turbopt.minimize(branin, BRANIN_BOUNDS, method="de", maxiter=60, popsize=10, seed=1, mutation=(0.5, 1), recombination=0.7, strategy="best1bin")
    assert same.x.tobytes() == r.x.tobytes()
    with pytest.raises(ValueError, match="polish"):
        turbopt.differential_evolution(branin, BRANIN_BOUNDS, polish=True)
    with pytest.raises(TypeError):
        turbopt.differential_evolution(branin, BRANIN_BOUNDS, workers=4)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: turbopt.minimize(branin, [(1, 0)]), ValueError, "min < max"),
        (lambda: turbopt.minimize(branin, [[0, 1, 2]]), ValueError, "(min, max) pairs"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, method="nelder-mead"), ValueError, "method"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, budget=1), ValueError, "budget"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, seed=-1), TypeError, "seed"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, x0=[np.nan, 1.0]), ValueError, "x0"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, constraints=[3]), TypeError, "constraint"),
        (lambda: turbopt.minimize(42, BRANIN_BOUNDS), TypeError, "callable"),
        (lambda: turbopt.minimize(branin), ValueError, "bounds"),
        (lambda: turbopt.minimize(branin, BRANIN_BOUNDS, method="lshade", mutation=0.5), ValueError, "method='de'"),
    ],
)
def test_bad_input_raises_naming_the_problem(call, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_other_python_threads_run_while_an_evaluator_minimizes():
    evaluator = turbopt.Evaluator({"Analytic": {"Rosenbrock": {"dim": 10}}})
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        r = turbopt.minimize(evaluator, budget=200_000, seed=1)
    finally:
        done.set()
        counter.join()
    assert r.nfev == 200_000
    assert len(ticks) > 1000, "the counting thread ran while Rust minimized"
