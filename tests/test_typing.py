"""The public API is typed for its users: every public function of verified_aat/api.py is fully
annotated and passes ``mypy --strict``, and ``mypy --strict`` accepts a user script over the README's
API (examples/typed_api_use.py) run from outside the checkout, so that mypy finds verified_aat only
as installed.  That needs an editable install mypy can follow: pyproject's ``package-dir`` makes
``pip install -e .`` write a path file, not an import hook that mypy cannot see through."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat import api

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "typed_api_use.py"
PUBLIC = [value for name, value in vars(api).items()
          if inspect.isfunction(value) and value.__module__ == api.__name__ and not name.startswith("_")]

needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (it is in the test extra: pip install -e '.[test]')")


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cwd / ".mypy_cache"), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_every_public_function_of_the_api_is_annotated() -> None:
    assert len(PUBLIC) >= 12
    for function in PUBLIC:
        signature = inspect.signature(function)
        assert signature.return_annotation is not inspect.Signature.empty, function.__name__
        for parameter in signature.parameters.values():
            assert parameter.annotation is not inspect.Parameter.empty, (function.__name__, parameter.name)


@needs_mypy
def test_the_api_module_passes_mypy_strict(tmp_path: Path) -> None:
    files = [str(ROOT / "verified_aat" / name) for name in ("api.py", "results.py")]
    proc = _mypy("--follow-imports=silent", *files, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_mypy
def test_mypy_strict_accepts_a_user_script_over_the_readme_api(tmp_path: Path) -> None:
    proc = _mypy(str(SCRIPT), cwd=tmp_path)
    hint = ("" if "import-not-found" not in proc.stdout else
            "\nmypy cannot find verified_aat: an editable install made before pyproject's package-dir uses an "
            "import hook mypy cannot follow; reinstall with pip install -e '.[test]'")
    assert proc.returncode == 0, proc.stdout + proc.stderr + hint
    assert "Success: no issues found in 1 source file" in proc.stdout


def test_the_user_script_runs(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("accepted: for every x") == 2 and "T(enc(C, " in proc.stdout
