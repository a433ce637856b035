"""``verified-aat compile``, one exact ``run``, ``certify`` and ``check`` at 10⁵ and 10⁶ gates (issue 22),
each in a fresh process, so that certify's CPU is set beside one run's in the same benchmark run.

Usage: ``python benchmarks/compile_scale.py [--quick]`` (``--quick``: 10⁵ only), or ``--one compile@10^6``.
A ``compile`` row times the whole command on the relu family with gate-edge (the circuit is built, compiled
and written as ``transformer.json`` and ``encoding.json``); a ``run`` row first compiles in another process
(not timed), then times ``run MODEL --encoding ENC --input=@FILE`` on the all-ones vector.  A ``certify`` row
times ``certify --family relu --n N --no-kernel -o CERT`` (the engine and the certificate, as issue 22's
"certify"), a ``check`` row ``check CERT`` on a certificate made in another process (not timed).  Columns:
wall and CPU seconds (user + system, with forked helpers) of the command in its own process, its peak RSS,
and the size of ``encoding.json``.  Issue 22's targets at 10⁶: compile, certify and check ≤ 20 CPU s and
≤ 1.5 GB each; certify's CPU ≤ one run's.
"""

from __future__ import annotations

import contextlib
import io
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fresh_process import ROOT, bench_main, run_fresh  # noqa: E402

SIZES = {"10^5": 20_000, "10^6": 200_000}  # relu --n giving that many gates
KEYS = ["command", "gates", "wall s", "CPU s", "peak RSS MB", "encoding MB", "ok"]


def _compile_args(n: int, out: str) -> list[str]:
    return ["compile", "--family", "relu", "--n", str(n), "-c", "gate-edge", "-o", out]


def measure_one(arg: str) -> dict[str, Any]:
    command, size = arg.split("@")
    from verified_aat.cli.main import main
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "compiled")
        args = _compile_args(SIZES[size], out)
        if command in ("certify", "check"):
            args = ["certify", "--family", "relu", "--n", str(SIZES[size]), "-c", "gate-edge", "--no-kernel",
                    "-o", f"{tmp}/cert.json"]
            if command == "check":
                subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *args], check=True, cwd=ROOT,
                               stdout=subprocess.DEVNULL)
                args = ["check", f"{tmp}/cert.json"]
        elif command == "run":
            subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *args], check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL)
            values = Path(tmp) / "x.txt"
            values.write_text(",".join(["1"] * SIZES[size]))
            args = ["run", f"{out}/transformer.json", "--encoding", f"{out}/encoding.json", f"--input=@{values}"]
        before = resource.getrusage(resource.RUSAGE_SELF)
        prior = resource.getrusage(resource.RUSAGE_CHILDREN)
        children_before = prior.ru_utime + prior.ru_stime  # the untimed compile or certify before
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(args)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # forked helpers (check's --jobs 2)
        encoding = Path(out) / "encoding.json"
        return {"command": command, "gates": size, "wall s": round(wall, 2),
                "CPU s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                               + children.ru_utime + children.ru_stime - children_before, 2),
                "peak RSS MB": round(after.ru_maxrss / 1024), "ok": code == 0,
                "encoding MB": round(encoding.stat().st_size / 2**20, 1) if encoding.exists() else None}


def rows(quick: bool) -> list[dict[str, Any]]:
    sizes = ["10^5"] if quick else list(SIZES)
    return [run_fresh(__file__, f"{command}@{size}", {"command": command, "gates": size, "ok": False})
            for size in sizes for command in ("compile", "run", "certify", "check")]


if __name__ == "__main__":
    sys.exit(bench_main(sys.argv[1:], measure_one, rows, KEYS))
