"""Types of turbopt's native module (the Rust layer); the public names are re-exported by
``turbopt``."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
CUDA: bool

PathLike = Union[str, "os.PathLike[str]"]
ArrayLike = npt.ArrayLike

class GpuError(RuntimeError):
    """The GPU backend cannot run here: no `cuda` feature in this build, no driver, or no such device."""

class SolverError(RuntimeError):
    """A solve failed (diverged or went non-physical) after every attempt of the recovery chain."""

class DesignSpace:
    """The design variables of an evaluator: names, bounds and baseline."""

    @property
    def names(self) -> List[str]: ...
    @property
    def lower(self) -> npt.NDArray[np.float64]: ...
    @property
    def upper(self) -> npt.NDArray[np.float64]: ...
    @property
    def baseline(self) -> npt.NDArray[np.float64]: ...
    @property
    def bounds(self) -> List[Tuple[float, float]]:
        """``(lower, upper)`` pairs, the ``bounds`` of ``turbopt.minimize``."""
    def __len__(self) -> int: ...

class Evaluation:
    """One design's score."""

    @property
    def objectives(self) -> npt.NDArray[np.float64]: ...
    @property
    def constraints(self) -> npt.NDArray[np.float64]:
        """Feasible when every value is ``<= 0``."""
    @property
    def objective_names(self) -> List[str]: ...
    @property
    def constraint_names(self) -> List[str]: ...
    @property
    def status(self) -> str:
        """``"ok"``, ``"invalid_geometry"``, ``"mesh_failure"``, ``"diverged"``, ``"not_converged"``,
        ``"failed"`` or ``"interrupted"``."""
    @property
    def reason(self) -> Optional[str]:
        """Why the status is not ``"ok"``."""
    @property
    def diagnostics(self) -> Dict[str, Any]:
        """Iterations, residual drop, wall time, backend, scheme, stops and recovery attempts."""
    @property
    def feasible(self) -> bool: ...
    @property
    def violation(self) -> float: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Evaluator:
    """Scores designs of a blade with the RANS solver, or an analytic test function.

    ``config``: a dict (``{"blade": ..., "objectives": [...], ...}`` or ``{"Analytic": "Branin"}``)
    or the path of a RON file (an evaluator configuration, a campaign, or a blade file scored on
    the four cascade figures as ``turbopt evaluate`` scores it).
    """

    def __init__(
        self,
        config: Union[Dict[str, Any], PathLike],
        *,
        case: Optional[Union[str, Sequence[str]]] = None,
        density: Optional[str] = None,
        max_iterations: Optional[int] = None,
        accept_orders: Optional[float] = None,
        backend: Optional[str] = None,
        device: Optional[int] = None,
        devices: Optional[Sequence[int]] = None,
        threads: Optional[int] = None,
    ) -> None: ...
    @property
    def space(self) -> DesignSpace: ...
    @property
    def objective_names(self) -> List[str]: ...
    @property
    def constraint_names(self) -> List[str]: ...
    @property
    def designs_solved(self) -> int: ...
    def __call__(self, x: ArrayLike) -> Evaluation: ...
    def evaluate(self, x: ArrayLike) -> Evaluation: ...
    def evaluate_batch(self, x: ArrayLike) -> List[Evaluation]:
        """A 2-D array, one design per row, evaluated at once on every core or GPU."""
    def evaluate_main_blade(self) -> Evaluation: ...

class SolveResult:
    """The figures, blade-surface Mach number and convergence history of ``turbopt.solve``."""

    @property
    def figures(self) -> Dict[str, float]: ...
    @property
    def entropy_rise(self) -> float: ...
    @property
    def exit_angle_deg(self) -> float: ...
    @property
    def loss_coefficient(self) -> float: ...
    @property
    def mass_flow(self) -> float: ...
    @property
    def exit_isentropic_mach(self) -> float: ...
    @property
    def mis(self) -> Dict[str, npt.NDArray[Any]]:
        """Arrays ``side`` ("ss"/"ps"), ``x``, ``y``, ``x_over_axial_chord``, ``p``, ``mis``,
        ``cf`` (wall shear over P01 - p2, negative where separated), ``mut_over_mu``."""
    @property
    def history(self) -> npt.NDArray[np.float64]:
        """Rows of iteration, wall time and the six RMS residuals (rho gamma's zero unless the model is SA-gamma)."""
    @property
    def residual_drop_orders(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def converged(self) -> bool: ...
    @property
    def stop(self) -> str: ...
    @property
    def attempts(self) -> List[Dict[str, Any]]: ...
    @property
    def coarser(self) -> List[Dict[str, Any]]:
        """The coarser meshes solved first (``sequence``), coarsest first: ``density``, ``cells``,
        ``iterations``, ``wall_s``, ``outcome`` and ``started_next`` (whether the next mesh started
        from its flow)."""
    @property
    def cells(self) -> int: ...
    @property
    def backend(self) -> str: ...
    def write(self, out: PathLike, *, compare: Optional[PathLike] = None) -> Optional[float]:
        """The files of ``turbopt solve`` into ``out``; the RMS against the measured taps of
        ``compare`` when given."""

def solve(
    blade: PathLike,
    *,
    case: Optional[str] = None,
    density: str = "coarse",
    scheme: str = "implicit",
    backend: str = "cpu",
    design: Optional[ArrayLike] = None,
    threads: Optional[int] = None,
    device: Optional[int] = None,
    max_iterations: Optional[int] = None,
    model: Optional[str] = None,
    turbulence_intensity: Optional[float] = None,
    nu_tilde_ratio: Optional[float] = None,
    sequence: str = "auto",
) -> SolveResult: ...

def import_blade(
    coordinates: Union[PathLike, Sequence[PathLike]],
    *,
    pitch: float,
    units: str,
    operating_points: Sequence[Dict[str, Any]],
    name: Optional[str] = None,
    chord: Optional[float] = None,
    out: Optional[PathLike] = None,
    overwrite: bool = False,
    mirror: bool = False,
    rotate: float = 0.0,
    fit_tolerance: Optional[float] = None,
    force: bool = False,
    solve_points: bool = False,
    camber_points: int = 6,
    thickness_points: int = 14,
    description: Optional[str] = None,
) -> Dict[str, Any]:
    """Imports a blade from its coordinates as ``turbopt import`` does: fits the design
    parameterization, writes the blade file (``out``, default ``NAME.ron``), the picture of the fit
    (``.fit.png``) and the report (``.import.json``) and returns the report with the paths written.
    ``units``: ``"m"``, ``"mm"``, ``"in"`` or ``"chord"`` (then ``chord`` is the chord in metres and
    ``pitch`` is pitch over chord); ``operating_points``: dicts with ``name``, ``p01``, ``t01``,
    ``alpha1`` (deg) and ``p2`` or ``m2is``. Points not listed round the profile are put in contour
    order (``report["reordered"]``); the blade file is meshed (coarse) before the import returns,
    its quality in ``report["mesh"]`` and the bounds it misses in ``report["mesh_outside_bounds"]``."""
    ...

def run_campaign(
    path: PathLike,
    *,
    out: Optional[PathLike] = None,
    resume: bool = False,
    backend: Optional[str] = None,
    device: Optional[int] = None,
    devices: Optional[Sequence[int]] = None,
    threads: Optional[int] = None,
    progress: bool = False,
) -> Dict[str, Any]: ...

def minimize_function(
    fun: Any,
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    args: Tuple[Any, ...],
    constraints: Sequence[Any],
    method: str,
    budget: int,
    seed: int,
    target: Optional[float] = None,
    population: Optional[int] = None,
    strategy: Optional[str] = None,
    mutation: Optional[Tuple[float, float]] = None,
    recombination: Optional[float] = None,
    initial: Optional[List[List[float]]] = None,
) -> Dict[str, Any]: ...

def minimize_evaluator(
    evaluator: Evaluator,
    *,
    objective: int,
    constraints: Optional[List[int]],
    method: str,
    budget: int,
    seed: int,
    target: Optional[float] = None,
    population: Optional[int] = None,
    initial: Optional[List[List[float]]] = None,
) -> Dict[str, Any]: ...
