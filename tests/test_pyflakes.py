"""Ruff's pyflakes rules (``--select F``) find nothing in the package, the tests, the benchmarks and the examples.

They catch code that runs but is not the code one reads: a function defined twice in a module (the second silently
replaces the first: ``cli/round_trip_cmd.py`` had two ``family_option``), a name used but never imported (a string
annotation naming ``subprocess`` imported only inside the function), an unused import, an f-string with nothing to
format.  Ruff comes with the ``[test]`` extra (through ``[docs]``); without it the test is skipped and says why.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREES = ["verified_aat", "tests", "benchmarks", "examples"]


def _ruff() -> list[str]:
    beside = Path(sys.executable).with_name("ruff")  # the venv's own, when the venv is not on PATH
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    return [found]


def test_no_pyflakes_findings() -> None:
    run = subprocess.run([*_ruff(), "check", "--select", "F", "--no-cache", "--output-format", "concise", *TREES],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
