"""turbopt.run_campaign, and Ctrl-C: a KeyboardInterrupt stops long work, keeps what finished,
and a resumed campaign ends as an uninterrupted one does."""

import os
import shutil
import signal
import threading

import pytest

import turbopt

LONG = """(
    name: "long-rosenbrock",
    evaluator: Analytic(Rosenbrock(dim: 10)),
    optimizer: DifferentialEvolution(population: Some(40)),
    budget: 40001,
    seed: 3,
)"""


def interrupt_after(seconds):
    """Sends this process SIGINT (Ctrl-C) after `seconds`, from another thread. Python's own
    handler is put back first: a process started in the background by a shell without job
    control (some CI runners) inherits SIGINT ignored, and then Ctrl-C would never arrive."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_an_analytic_campaign_runs_and_returns_its_summary(tmp_path):
    s = turbopt.run_campaign("optimize/analytic_branin_ego.ron", out=tmp_path / "branin")
    assert s["evaluations"] > 1 and s["best_feasible"] and s["best_objective"] < 0.45
    assert (tmp_path / "branin" / "evaluations.jsonl").exists()
    with pytest.raises(ValueError, match="analytic"):
        turbopt.run_campaign("optimize/analytic_branin_ego.ron", out=tmp_path / "x", backend="gpu")
    with pytest.raises(FileNotFoundError):
        turbopt.run_campaign("optimize/missing.ron")


def test_ctrl_c_stops_a_campaign_which_resumes_to_the_uninterrupted_result(tmp_path):
    path = tmp_path / "long.ron"
    path.write_text(LONG)
    reference = turbopt.run_campaign(path, out=tmp_path / "reference")
    timer = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        turbopt.run_campaign(path, out=tmp_path / "stopped")
    timer.join()
    logged = sum(1 for _ in open(tmp_path / "stopped" / "evaluations.jsonl"))
    assert 0 < logged < reference["evaluations"], f"stopped mid-run: {logged} of {reference['evaluations']}"
    assert not (tmp_path / "stopped" / "summary.json").exists()
    resumed = turbopt.run_campaign(path, out=tmp_path / "stopped", resume=True)
    assert resumed["replayed"] == logged
    assert resumed["best_design"] == reference["best_design"] and resumed["best_objective"] == reference["best_objective"]
    shutil.rmtree(tmp_path)


def test_ctrl_c_stops_a_minimization_of_a_python_function():
    def slow_sphere(x):
        return float((x ** 2).sum())

    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        turbopt.minimize(slow_sphere, [(-1, 1)] * 5, budget=10_000_000, seed=1)
    timer.join()


def test_a_front_campaign_returns_its_front(tmp_path):
    s = turbopt.run_campaign("optimize/analytic_zdt1_gde3.ron", out=tmp_path / "zdt1")
    front = s["front"]
    assert front["objectives"] == ["f1", "f2"] and front["reference_point"] == [1.1, 1.1]
    # ZDT1's exact front has a hypervolume of 1.21 - 1/3 against (1.1, 1.1).
    assert 0.8 < front["hypervolume"] <= 1.21 - 1 / 3
    assert all(len(m["design"]) == 30 and len(m["objectives"]) == 2 for m in front["members"])
    for f in ["front.csv", "front.png", "hypervolume.png"]:
        assert (tmp_path / "zdt1" / f).exists()
