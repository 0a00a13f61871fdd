"""The example scripts run as they are (in their quick form)."""

import subprocess
import sys

import pytest

from conftest import ROOT


def test_the_blade_optimization_example_runs(tmp_path):
    out = subprocess.run([sys.executable, "python/examples/optimize_blade.py", "--quick", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "after 4 designs" in out.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not installed: no pictures to check")
    assert (tmp_path / "mis.png").exists() and (tmp_path / "evaluations.png").exists()
