"""turbopt.Evaluator and turbopt.solve on the LS89 vane: the figures of the Rust pipeline, numpy
in and out, the files of `turbopt solve`, and bad input."""

import json
import subprocess

import numpy as np
import pytest

import turbopt
from conftest import turbopt_binary


def test_an_analytic_evaluator_scores_designs_and_batches():
    ev = turbopt.Evaluator({"Analytic": "G06"})
    assert len(ev.space) == 2 and ev.space.names == ["x1", "x2"]
    assert ev.space.bounds == [(13.0, 100.0), (0.0, 100.0)]
    e = ev(ev.space.baseline)
    assert e.status == "ok" and e.reason is None and e.feasible
    assert e.objectives.dtype == np.float64 and e.constraints.shape == (2,)
    batch = ev.evaluate_batch(np.vstack([ev.space.baseline, ev.space.lower]))
    assert [b.objectives[0] for b in batch][0] == e.objectives[0]
    assert e.to_dict()["status"] == {"kind": "ok"}


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda ev: ev([1.0]), ValueError, "1 values, the design space 2"),
        (lambda ev: ev([np.nan, 1.0]), ValueError, "finite"),
        (lambda ev: ev([[1.0, 2.0]]), ValueError, "one-dimensional"),
        (lambda ev: ev(["a", "b"]), TypeError, "numbers"),
        (lambda ev: ev.evaluate_batch([1.0, 2.0]), ValueError, "two-dimensional"),
        (lambda ev: ev.evaluate_main_blade(), ValueError, "no blade"),
    ],
)
def test_bad_designs_raise_naming_the_problem(call, error, words):
    with pytest.raises(error, match=words):
        call(turbopt.Evaluator({"Analytic": "G06"}))


@pytest.mark.parametrize(
    "config, error, words",
    [
        ("blades/missing.ron", FileNotFoundError, "missing.ron"),
        ("README.md", ValueError, "neither an evaluator configuration"),
        ({"blade": "blades/ls89.ron", "objectives": ["EntropyRise"], "operating_points": ["NOPE"]}, ValueError, "NOPE.*MUR47"),
        ({"blade": "blades/ls89.ron", "objectives": ["EntropyRise"], "density": "huge"}, ValueError, "huge"),
        ({"blade": "blades/ls89.ron"}, ValueError, "missing field `objectives`"),
        ({"Analytic": "Nope"}, ValueError, "Nope"),
        (3, TypeError, "dict or the path"),
    ],
)
def test_bad_configurations_raise_naming_the_problem(config, error, words):
    with pytest.raises(error, match=words):
        turbopt.Evaluator(config)


def test_a_gpu_request_without_the_gpu_backend_is_a_gpu_error():
    if turbopt.CUDA:
        pytest.skip("this build has the GPU backend")
    ev = turbopt.Evaluator("blades/ls89.ron", backend="gpu")
    e = ev(ev.space.baseline)
    assert e.status == "failed" and "cuda" in e.reason
    with pytest.raises(turbopt.GpuError, match="cuda"):
        turbopt.solve("blades/ls89.ron", backend="gpu")


def test_a_blade_file_is_scored_as_turbopt_evaluate_scores_it():
    ev = turbopt.Evaluator("blades/ls89.ron", max_iterations=30)
    assert ev.objective_names == ["entropy_rise", "loss_coefficient", "exit_angle_deg", "mass_flow"]
    e = ev(ev.space.baseline)
    assert e.status == "not_converged" and "30 iterations" in e.reason
    assert np.all(np.isfinite(e.objectives)) and e.diagnostics["iterations"] == 30
    exe = turbopt_binary()
    if exe is None:
        pytest.skip("no target/release/turbopt to compare with (cargo build --release)")
    design = ",".join(repr(float(v)) for v in ev.space.baseline)
    out = subprocess.run([str(exe), "evaluate", "blades/ls89.ron", "--max-iterations", "30", "--design", design, "--json"], capture_output=True, text=True)
    cli = json.loads(out.stdout.strip().splitlines()[-1])
    assert cli["objectives"] == e.objectives.tolist(), "the same figures to the last bit"
    assert cli["diagnostics"]["iterations"] == e.diagnostics["iterations"]


def test_accept_orders_accepts_a_short_run_that_dropped_them():
    # The same 30 iterations as above: not converged, but past one order of the density residual.
    ev = turbopt.Evaluator("blades/ls89.ron", max_iterations=30, accept_orders=1.0)
    e = ev(ev.space.baseline)
    assert e.status == "ok" and e.reason is None, e.reason
    assert e.diagnostics["iterations"] == 30 and np.all(np.isfinite(e.objectives))
    with pytest.raises(ValueError, match="accept_orders"):
        turbopt.Evaluator("blades/ls89.ron", accept_orders=-1.0)
    with pytest.raises(ValueError, match="accept_orders"):
        turbopt.Evaluator({"Analytic": "G06"}, accept_orders=1.0)


def test_solve_returns_figures_mis_history_and_writes_the_files(tmp_path):
    r = turbopt.solve("blades/ls89.ron", case="MUR47", density="coarse", max_iterations=20)
    assert r.iterations == 20 and not r.converged and r.cells == 13760
    assert set(r.figures) == {"entropy_rise", "exit_angle_deg", "loss_coefficient", "mass_flow", "exit_isentropic_mach"}
    assert r.figures["entropy_rise"] == r.entropy_rise and np.isfinite(r.entropy_rise)
    mis = r.mis
    assert set(np.unique(mis["side"])) == {"ss", "ps"} and mis["mis"].shape == mis["x"].shape
    assert r.history.shape == (20, 8) and np.all(r.history[:, 0] == np.arange(1, 21))
    rms = r.write(tmp_path / "out", compare="data/ls89/mur47_isentropic_mach_experiment.csv")
    assert rms is not None and rms > 0
    for f in ["solution.vtm", "convergence.csv", "convergence.png", "mis.csv", "mis.png", "restart.ron"]:
        assert (tmp_path / "out" / f).exists(), f
    assert r.coarser == []


def test_a_sequenced_solve_reports_its_coarser_mesh():
    # 20 iterations do not converge the coarse mesh, so the medium one starts cold, and says why.
    r = turbopt.solve("blades/ls89.ron", case="MUR47", density="medium", sequence="coarse", max_iterations=20)
    assert r.iterations == 20 and r.cells == 37312
    [coarse] = r.coarser
    assert coarse["density"] == "coarse" and coarse["cells"] == 13760 and coarse["iterations"] == 20
    assert coarse["outcome"].endswith("the next mesh started cold"), coarse["outcome"]
    assert coarse["started_next"] is False


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"case": "NOPE"}, ValueError, 'no operating point "NOPE"'),
        ({"density": "huge"}, ValueError, "density"),
        ({"scheme": "magic"}, ValueError, "scheme"),
        ({"backend": "tpu"}, ValueError, "backend"),
        ({"model": "k-omega"}, ValueError, "model"),
        ({"design": [1.0, 2.0]}, ValueError, "design space"),
        ({"max_iterations": 0}, ValueError, "max_iterations"),
        ({"model": "sa_bcm", "turbulence_intensity": 3.0}, ValueError, "turbulence_intensity"),
        ({"nu_tilde_ratio": -1.0}, ValueError, "nu_tilde_ratio"),
        ({"sequence": "fine"}, ValueError, "sequence"),
        ({"sequence": "medium", "density": "coarse"}, ValueError, "coarser mesh"),
    ],
)
def test_solve_rejects_bad_input_naming_it(kwargs, error, words):
    with pytest.raises(error, match=words):
        turbopt.solve("blades/ls89.ron", **kwargs)
