"""turbopt: CFD-driven design of turbomachinery cascade blades, from Python.

A compressible RANS solver (Roe/MUSCL, Spalart-Allmaras; explicit and implicit schemes) on the
CPU and NVIDIA GPUs, the evaluator that scores a parameterized blade with it, and the
differential-evolution and Kriging-assisted optimizers, through a thin layer over the turbopt
Rust crate: the numbers are the Rust ones, to the last bit.

- :func:`solve` solves a blade at one operating point and returns its figures, blade-surface
  Mach number and convergence history as numpy arrays;
- :class:`Evaluator` scores design vectors (one, or a batch on every core or GPU) with
  objectives, constraints, status and diagnostics;
- :func:`minimize` minimizes a Python function or an :class:`Evaluator` (scipy-style arguments
  and result; :func:`differential_evolution` takes scipy's own);
- :func:`import_blade` makes a blade file from a coordinate file (the fitted design
  parameterization, the fit picture and report), as ``turbopt import`` does;
- :func:`run_campaign` runs or resumes a campaign file as ``turbopt optimize`` does.

Long calls release the interpreter (other threads run) and stop on Ctrl-C with
``KeyboardInterrupt``; a stopped campaign loses nothing and resumes with ``resume=True``.
"""

from __future__ import annotations

import numbers
import secrets
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _turbopt
from ._turbopt import (
    DesignSpace,
    Evaluation,
    Evaluator,
    GpuError,
    SolveResult,
    SolverError,
    __version__,
    import_blade,
    run_campaign,
    solve,
)

__all__ = [
    "CUDA",
    "DesignSpace",
    "Evaluation",
    "Evaluator",
    "GpuError",
    "OptimizeResult",
    "SolveResult",
    "SolverError",
    "__version__",
    "differential_evolution",
    "import_blade",
    "minimize",
    "run_campaign",
    "solve",
]

#: Whether this build has the GPU backend (``backend="gpu"``); without it a GPU request raises
#: :class:`GpuError`.
CUDA: bool = _turbopt.CUDA

#: The optimizers of :func:`minimize`.
METHODS = ("lshade", "shade", "jde", "de", "kriging")

Bounds = Sequence[Tuple[float, float]]


class OptimizeResult(dict):
    """The result of :func:`minimize`, a dict whose keys are also attributes (as scipy's).

    ``x`` (best design, feasible whenever a feasible one was found), ``fun`` (its objective),
    ``success`` (a feasible design was found), ``message``, ``nfev`` (evaluations), ``nit``
    (generations or Kriging cycles), ``history`` (rows of evaluation number and best feasible
    objective, at every improvement), ``constraints`` and ``violation`` of ``x``,
    ``nfev_to_target`` and ``failures`` (``(evaluation index, reason)`` of every failed
    evaluation: an exception of the objective keeps its text).
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __dir__(self) -> List[str]:
        return list(self.keys())

    def __repr__(self) -> str:
        width = max(map(len, self.keys())) + 1
        return "\n".join(f"{k.rjust(width)}: {v!r}" for k, v in self.items())


def _bounds(bounds: Any) -> Tuple[List[float], List[float]]:
    """``[(lo, hi), ...]`` or an object with ``lb`` and ``ub`` (scipy's ``Bounds``)."""
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):
        lower = np.atleast_1d(np.asarray(bounds.lb, dtype=float))
        upper = np.atleast_1d(np.asarray(bounds.ub, dtype=float))
        if lower.shape != upper.shape:
            raise ValueError(f"bounds: lb has shape {lower.shape} and ub {upper.shape}")
    else:
        pairs = np.asarray(bounds, dtype=float)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] == 0:
            raise ValueError(f"bounds must be a sequence of (min, max) pairs, got shape {pairs.shape}")
        lower, upper = pairs[:, 0], pairs[:, 1]
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ValueError(f"bounds must be finite with min < max: {list(zip(lower.tolist(), upper.tolist()))}")
    return lower.tolist(), upper.tolist()


def _constraint_functions(constraints: Any) -> List[Callable[..., Any]]:
    """Callables returning values feasible at ``<= 0``, from callables or scipy's
    ``NonlinearConstraint`` (``lb <= fun(x) <= ub``)."""
    if constraints is None:
        return []
    if callable(constraints) or hasattr(constraints, "fun"):
        constraints = [constraints]
    out: List[Callable[..., Any]] = []
    for c in constraints:
        if hasattr(c, "fun") and hasattr(c, "lb") and hasattr(c, "ub"):
            out.append(_nonlinear(c))
        elif callable(c):
            out.append(c)
        else:
            raise TypeError(f"a constraint must be a callable g(x) (feasible when <= 0) or a NonlinearConstraint, not {type(c).__name__}")
    return out


def _nonlinear(c: Any) -> Callable[..., np.ndarray]:
    lb, ub, fun = c.lb, c.ub, c.fun

    def g(x: np.ndarray, *args: Any) -> np.ndarray:
        v = np.atleast_1d(np.asarray(fun(x), dtype=float))
        lower = np.broadcast_to(np.asarray(lb, dtype=float), v.shape)
        upper = np.broadcast_to(np.asarray(ub, dtype=float), v.shape)
        return np.concatenate([(lower - v)[np.isfinite(lower)], (v - upper)[np.isfinite(upper)]])

    return g


def _seed(seed: Optional[int]) -> int:
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer or None, not {seed!r}")
    return int(seed)


def _budget(method: str, dim: int, budget: Optional[int], maxiter: Optional[int], population: Optional[int]) -> int:
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget < 2:
            raise ValueError(f"budget must be an integer of at least 2, not {budget!r}")
        return int(budget)
    if maxiter is not None:
        if method == "kriging":
            raise ValueError("maxiter counts generations of differential evolution: give the Kriging optimizer a budget")
        # scipy's count: the initial population and maxiter generations of it.
        return (int(maxiter) + 1) * (population or 15 * dim)
    return max(20, 10 * dim) if method == "kriging" else 10_000 * dim


def minimize(
    func: Union[Callable[..., float], Evaluator],
    bounds: Optional[Any] = None,
    args: Tuple[Any, ...] = (),
    *,
    method: str = "lshade",
    budget: Optional[int] = None,
    maxiter: Optional[int] = None,
    popsize: Optional[int] = None,
    seed: Optional[int] = None,
    constraints: Any = None,
    target: Optional[float] = None,
    x0: Optional[Any] = None,
    strategy: Optional[str] = None,
    mutation: Optional[Union[float, Tuple[float, float]]] = None,
    recombination: Optional[float] = None,
    polish: bool = False,
    objective: Union[int, str] = 0,
) -> OptimizeResult:
    """Minimizes ``func`` over ``bounds`` subject to ``constraints``.

    ``func(x, *args)`` is a Python function of a 1-D numpy array returning a number, or a
    :class:`Evaluator` (then everything runs in Rust: its design space is the bounds, its
    ``objective`` (index or name) the objective and its constraints, all or those named in
    ``constraints``, the constraints; a batch of designs runs at once on every core or GPU).

    ``method``: ``"lshade"`` (L-SHADE, the default), ``"shade"``, ``"jde"``, ``"de"`` (classic
    differential evolution with scipy's ``strategy``, ``mutation`` and ``recombination``) or
    ``"kriging"`` (the Kriging-assisted optimizer, for expensive functions). ``budget`` is the
    number of evaluations; scipy's ``maxiter`` (generations) and ``popsize`` (the population is
    ``popsize * len(x)``) may give it instead. ``target`` stops at a feasible objective this low;
    ``x0`` joins the first population (or initial sample). ``constraints``: callables ``g(x, *args)``
    feasible when every value is ``<= 0``, or scipy ``NonlinearConstraint`` objects. An exception
    in ``func`` or a constraint is a failed evaluation (its text in ``result.failures``), and the
    run goes on. The same ``seed`` gives the same result, to the last bit, as the Rust optimizer.
    """
    if method not in METHODS:
        raise ValueError(f"method {method!r}: expected one of {METHODS}")
    if polish:
        raise ValueError("turbopt does not polish the result with a local optimizer (scipy's polish=True); pass polish=False")
    if method != "de" and (strategy is not None or mutation is not None or recombination is not None):
        raise ValueError(f"strategy, mutation and recombination set classic differential evolution (method='de'), not {method!r}")
    if isinstance(mutation, numbers.Real):
        mutation = (float(mutation), float(mutation))
    elif mutation is not None:
        mutation = tuple(float(m) for m in mutation)  # type: ignore[assignment]
    seed = _seed(seed)

    if isinstance(func, Evaluator):
        if bounds is not None:
            raise ValueError("an Evaluator's bounds are its design space: leave bounds out")
        if args:
            raise ValueError("an Evaluator takes no args")
        dim = len(func.space)
        population = popsize * dim if popsize is not None else None
        names = func.constraint_names
        selected: Optional[List[int]] = None
        if constraints is not None:
            selected = []
            for c in [constraints] if isinstance(constraints, (str, int)) else constraints:
                if isinstance(c, str):
                    if c not in names:
                        raise ValueError(f"no constraint named {c!r} (the evaluator has {names})")
                    selected.append(names.index(c))
                else:
                    selected.append(int(c))
        if isinstance(objective, str):
            if objective not in func.objective_names:
                raise ValueError(f"no objective named {objective!r} (the evaluator has {func.objective_names})")
            objective = func.objective_names.index(objective)
        initial = None if x0 is None else [np.asarray(x0, dtype=float).tolist()]
        out = _turbopt.minimize_evaluator(
            func,
            objective=int(objective),
            constraints=selected,
            method=method,
            budget=_budget(method, dim, budget, maxiter, population),
            seed=seed,
            target=target,
            population=population,
            initial=initial,
        )
    else:
        if not callable(func):
            raise TypeError(f"func must be a callable or a turbopt.Evaluator, not {type(func).__name__}")
        if bounds is None:
            raise ValueError("bounds are needed: a sequence of (min, max) pairs, one per variable")
        lower, upper = _bounds(bounds)
        dim = len(lower)
        population = popsize * dim if popsize is not None else None
        initial = None
        if x0 is not None:
            x = np.asarray(x0, dtype=float)
            if x.shape != (dim,) or not np.all(np.isfinite(x)):
                raise ValueError(f"x0 must be {dim} finite numbers, got {x0!r}")
            initial = [x.tolist()]
        out = _turbopt.minimize_function(
            func,
            lower,
            upper,
            args=tuple(args),
            constraints=_constraint_functions(constraints),
            method=method,
            budget=_budget(method, dim, budget, maxiter, population),
            seed=seed,
            target=target,
            population=population,
            strategy=strategy,
            mutation=mutation,
            recombination=recombination,
            initial=initial,
        )
    out["success"] = bool(out["feasible"]) and bool(np.isfinite(out["fun"]))
    out["history"] = np.asarray(out["history"], dtype=float).reshape(-1, 2)
    return OptimizeResult(out)


def differential_evolution(
    func: Callable[..., float],
    bounds: Any,
    args: Tuple[Any, ...] = (),
    strategy: str = "best1bin",
    maxiter: int = 1000,
    popsize: int = 15,
    mutation: Union[float, Tuple[float, float]] = (0.5, 1),
    recombination: float = 0.7,
    seed: Optional[int] = None,
    constraints: Any = (),
    x0: Optional[Any] = None,
    polish: bool = False,
) -> OptimizeResult:
    """``scipy.optimize.differential_evolution`` with its own argument names and defaults
    (classic DE, ``method='de'`` of :func:`minimize`): code written against scipy runs with
    ``from turbopt import differential_evolution``. It runs its whole budget (``(maxiter + 1) *
    popsize * len(x)`` evaluations) rather than scipy's population-spread stop, and does not
    polish (``polish`` must be False)."""
    return minimize(
        func,
        bounds,
        args,
        method="de",
        maxiter=maxiter,
        popsize=popsize,
        seed=seed,
        constraints=constraints,
        x0=x0,
        strategy=strategy,
        mutation=mutation,
        recombination=recombination,
        polish=polish,
    )
