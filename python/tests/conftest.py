"""The tests run from the repository root, where blades/, optimize/ and data/ are."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def at_repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    return ROOT


def turbopt_binary():
    """The command line built by `cargo build --release` (or `cargo test --release`), if any."""
    exe = ROOT / "target" / "release" / ("turbopt.exe" if os.name == "nt" else "turbopt")
    return exe if exe.exists() else None
