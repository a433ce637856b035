"""Benchmark cases measured one per fresh Python process (so peak memory and caches are that case's alone).

A script using this takes ``--one ARG`` (measure one case in this process, print its row as JSON) and
otherwise runs every case through :func:`run_fresh` and prints a table (:func:`bench_main`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


def run_fresh(script: str, arg: str, failed: dict[str, Any]) -> dict[str, Any]:
    """``script --one arg`` in a new interpreter: its last stdout line is the row; a failed run gives ``failed``
    with the last line of its standard error as ``error``."""
    proc = subprocess.run([sys.executable, str(Path(script).resolve()), "--one", arg],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        return {**failed, "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_main(argv: list[str], measure_one: Callable[[str], dict[str, Any]],
               rows: Callable[[bool], list[dict[str, Any]]], keys: list[str]) -> int:
    """``--one ARG``: one row as JSON; else every row (``--quick``: the small ones) as a ``|`` table."""
    if len(argv) == 2 and argv[0] == "--one":
        print(json.dumps(measure_one(argv[1])))
        return 0
    table = rows("--quick" in argv)
    print(" | ".join(keys))
    for row in table:
        print(" | ".join(str(row.get(k)) for k in keys))
    return 0 if all(row["ok"] for row in table) else 1
