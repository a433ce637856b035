"""The human-writable circuit text format (``.circ``).

Line based; ``#`` starts a comment anywhere on a line; blank lines are ignored::

    circuit NAME                      # optional header, at most once
    domain rationals|boolean          # optional, default rationals
    arithmetization exact|threshold   # optional (Provenance.arithmetization)
    provenance KEY VALUE              # optional, one key per line (see below)
    input NAME NAME ...               # inputs in order; may appear several times
    NAME = const Q                    # Q: -3, 7/2, -3/4, 0.25 (exact); no 1e5/nan/inf
    NAME = add ARG ...                # fan-in 0 allowed
    NAME = mul ARG ARG ...            # at least 2 arguments, repeats allowed
    NAME = sign ARG
    output ARG ...                    # ordered, repeats allowed; appends

An ARG is a gate name or an inline rational literal (``mul -1 x``), which
becomes an anonymous const gate, one per value.  An output may carry a label,
``output sum=g7``; by default an output is labelled with what was written.
Names match ``[A-Za-z_][A-Za-z0-9_.\\[\\]\\-]*``, must not read as a number
(``nan``, ``inf``) and are not one of the statement keywords above.  Gates
may be used before they are defined; the order is the stable depth-first one
of :mod:`.assemble`.

``provenance`` keys: ``source_format``, ``source_path`` (rest of the line),
``netlist_gates``, ``netlist_depth``, ``netlist_max_fan_in`` (integers) and
``netlist_gate_types`` (names).  They round-trip the circuit's
:class:`Provenance` (except a path containing ``#``).

``parse_circuit_text(print_circuit(c))`` equals ``c`` up to the names the
printer invents for unnamed gates (``g17``, inputs ``x0``) and for names that
cannot be written (``22`` becomes ``n22``); inputs keep their positions when
their indices increase with their positions (always so for the builder).
"""

from __future__ import annotations

import re

from typing import Sequence

from ..errors import InputError
from .assemble import KEYWORDS, Definition, OutputRef, Ref, assemble, gate_labels, is_valid_name
from .ir import Circuit, Domain, Kind, Provenance
from .netlist_model import check_line_breaks
from .rationals import format_rational, is_rational_literal, looks_numeric, parse_rational
from ..wording import file_stem, unprintable

MAX_FAN_IN = 1_000_000
MAX_LINE_LENGTH = 10_000_000
_PER_LINE = 16  # names per printed input/output line

OPS = {"const": Kind.CONST, "add": Kind.ADD, "mul": Kind.MUL, "sign": Kind.SIGN}
_DEF_RE = re.compile(r"\s*([^\s=]+)\s*=(.*)\Z", re.S)
_INT_KEYS = ("netlist_gates", "netlist_depth", "netlist_max_fan_in")
_PROVENANCE_KEYS = ("source_format", "source_path", *_INT_KEYS, "netlist_gate_types")
_STATEMENTS = "circuit, domain, arithmetization, provenance, input, output or NAME = OP ARGS"


def decode_circuit_bytes(data: bytes, file: str | None = None) -> str:
    """UTF-8 text of a circuit file; NUL bytes and bad UTF-8 are rejected at their line."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start if nul < 0 else min(nul, exc.start)
        what = "a NUL byte" if bad == nul else f"byte 0x{data[bad]:02x}, not UTF-8 text"
        raise InputError(f"binary data: {what} (not a text file?)", file,
                         data.count(b"\n", 0, bad) + 1) from None
    if nul >= 0:
        raise InputError("binary data: a NUL byte (not a text file?)", file,
                         data.count(b"\n", 0, nul) + 1)
    check_line_breaks(text, file)  # circuits and input vector files alike
    return text[1:] if text.startswith("\ufeff") else text


def read_circuit_file(path: str) -> str:
    """Read a text file's bytes and decode them with :func:`decode_circuit_bytes`."""
    from ..files import read_input
    return decode_circuit_bytes(read_input(path, "circuit"), path)


class _Reader:
    """State while reading one file."""

    def __init__(self, file: str | None, implicit: Sequence[str] | None):
        self.file = file
        self.implicit = implicit
        self.defs: list[Definition] = []
        self.lines: dict[str, int | None] = {}
        self.outputs: list[OutputRef] = []
        self.header: dict[str, tuple[str, int]] = {}
        self.provenance: dict[str, tuple[str, int]] = {}
        self.n_inputs = 0
        self.last_line = 0  # the last line with content
        self.refs: dict[str, Ref] = {}  # tokens already read as references
        if implicit is not None:
            for name in implicit:
                if not is_valid_name(name):
                    raise InputError(f"implicit input '{name}' is not a valid name", file)
                if name in self.lines:
                    raise InputError(f"implicit input '{name}' is listed twice", file)
                self.define(Definition(name, Kind.INPUT, input_index=self.n_inputs), "input")
                self.n_inputs += 1

    def error(self, message: str, line: int) -> InputError:
        return InputError(message, self.file, line)

    def define(self, d: Definition, what: str) -> None:
        if d.name in self.lines:
            first = self.lines[d.name]
            where = f"first at line {first}" if first is not None else "it is an implicit input"
            raise self.error(f"{what} '{d.name}' is defined twice ({where})", d.line or 0)
        self.lines[d.name] = d.line
        self.defs.append(d)

    def check_name(self, name: str, line: int) -> str:
        if is_valid_name(name):
            return name
        shown = name if len(name) <= 40 else name[:40] + "..."
        if looks_numeric(name):
            raise self.error(f"'{shown}' cannot be a name: it reads as a number", line)
        if name in KEYWORDS:
            raise self.error(f"'{name}' is a keyword and cannot name a gate", line)
        raise self.error(f"invalid name '{shown}' (names match [A-Za-z_][A-Za-z0-9_.[]-]*)", line)

    def ref(self, token: str, line: int) -> Ref:
        known = self.refs.get(token)
        if known is not None:
            return known
        if is_rational_literal(token) or looks_numeric(token):
            result: Ref = parse_rational(token, self.file, line)
        else:
            result = self.check_name(token, line)
        if len(self.refs) < 100_000:
            self.refs[token] = result
        return result

    def read_line(self, raw: str, line: int) -> None:
        if len(raw) > MAX_LINE_LENGTH:
            raise self.error(f"line is longer than {MAX_LINE_LENGTH} characters", line)
        text = raw.split("#", 1)[0]
        if "\x00" in text:
            raise self.error("binary data: a NUL byte (not a text file?)", line)
        if not text.strip():
            return
        self.last_line = line
        match = _DEF_RE.match(text)
        if match:
            self.definition(match.group(1), match.group(2).split(), line)
            return
        tokens = text.split()
        keyword, rest = tokens[0], tokens[1:]
        if keyword == "circuit":
            self.once("circuit", text.strip()[len("circuit"):].strip(), line, "a name")
        elif keyword in ("domain", "arithmetization"):
            allowed = ("rationals", "boolean") if keyword == "domain" else ("exact", "threshold")
            if len(rest) != 1 or rest[0] not in allowed:
                raise self.error(f"{keyword} must be {' or '.join(allowed)}, got '{' '.join(rest)}'", line)
            self.once(keyword, rest[0], line, "")
        elif keyword == "provenance":
            self.provenance_line(text, rest, line)
        elif keyword == "input":
            self.inputs(rest, line)
        elif keyword == "output":
            self.output(rest, line)
        elif keyword in OPS:
            raise self.error(f"'{keyword}' needs a gate name: write NAME = {keyword} ...", line)
        else:
            shown = keyword if len(keyword) <= 40 else keyword[:40] + "..."
            raise self.error(f"unknown statement '{shown}' (expected {_STATEMENTS})", line)

    def once(self, key: str, value: str, line: int, needs: str) -> None:
        if not value:
            raise self.error(f"{key} needs {needs}", line)
        if problem := unprintable(value):
            raise self.error(f"{key}: {problem}", line)
        if key in self.header:
            raise self.error(f"{key} is given twice (first at line {self.header[key][1]})", line)
        self.header[key] = (value, line)

    def provenance_line(self, text: str, rest: list[str], line: int) -> None:
        if not rest or rest[0] not in _PROVENANCE_KEYS:
            got = rest[0] if rest else ""
            raise self.error(f"unknown provenance key '{got}' (expected {', '.join(_PROVENANCE_KEYS)})", line)
        key = rest[0]
        value = text.strip()[len("provenance"):].strip()[len(key):].strip()
        if key in self.provenance:
            raise self.error(f"provenance {key} is given twice (first at line {self.provenance[key][1]})", line)
        if key in _INT_KEYS and not (len(rest) == 2 and rest[1].isdigit() and rest[1].isascii()
                                     and len(rest[1]) < 20):
            raise self.error(f"provenance {key} needs a non-negative integer", line)
        if problem := unprintable(" ".join(value.split())):
            raise self.error(f"provenance {key}: {problem}", line)
        self.provenance[key] = (value, line)

    def inputs(self, names: list[str], line: int) -> None:
        if self.implicit is not None:
            shown = ", ".join(self.implicit[:4]) + (", ..." if len(self.implicit) > 4 else "")
            raise self.error(f"'input' is not allowed here: the inputs are implicit ({shown})", line)
        if not names:
            raise self.error("input needs at least one name", line)
        for name in names:
            self.define(Definition(self.check_name(name, line), Kind.INPUT,
                                   input_index=self.n_inputs, line=line), "input")
            self.n_inputs += 1

    def output(self, tokens: list[str], line: int) -> None:
        if not tokens:
            raise self.error("output needs at least one gate", line)
        if len(self.outputs) + len(tokens) > MAX_FAN_IN:
            raise self.error(f"more than {MAX_FAN_IN} outputs", line)
        for token in tokens:
            label, eq, target = token.partition("=")
            if not eq:
                label, target = token, token
            if not label or not target:
                raise self.error(f"bad output '{token}' (write NAME or LABEL=NAME)", line)
            self.outputs.append(OutputRef(self.ref(target, line), label, line))

    def definition(self, name: str, tokens: list[str], line: int) -> None:
        self.check_name(name, line)
        if not tokens:
            raise self.error(f"gate '{name}' has no operation (expected const, add, mul or sign)", line)
        op, args = tokens[0], tokens[1:]
        kind = OPS.get(op)
        if kind is None:
            shown = op if len(op) <= 40 else op[:40] + "..."
            raise self.error(f"gate '{name}': unknown operation '{shown}' (expected const, add, mul or sign)", line)
        if len(args) > MAX_FAN_IN:
            raise self.error(f"gate '{name}' has fan-in {len(args)}, more than the maximum {MAX_FAN_IN}", line)
        if kind is Kind.CONST:
            if len(args) != 1:
                raise self.error(f"const '{name}' takes exactly 1 number, got {len(args)} arguments", line)
            value = parse_rational(args[0], self.file, line)
            self.define(Definition(name, kind, value=value, line=line), "gate")
            return
        if kind is Kind.SIGN and len(args) != 1:
            raise self.error(f"sign '{name}' takes exactly 1 argument, got {len(args)}", line)
        if kind is Kind.MUL and len(args) < 2:
            raise self.error(f"mul '{name}' takes at least 2 arguments, got {len(args)} "
                             f"(write 'mul x x' for a square)", line)
        self.define(Definition(name, kind, [self.ref(a, line) for a in args], line=line), "gate")

    def finish(self, fallback_name: str) -> Circuit:
        if not self.outputs:
            raise self.error("no outputs declared (add a line 'output NAME ...')", self.last_line)
        name = self.header.get("circuit", (fallback_name, 0))[0]
        domain = Domain(self.header.get("domain", ("rationals", 0))[0])
        arith = self.header.get("arithmetization", (None, 0))[0]
        provenance = None
        if arith is not None or self.provenance:
            p = {k: v for k, (v, _) in self.provenance.items()}
            provenance = Provenance(
                source_format=p.get("source_format") or None,
                source_path=p.get("source_path") or None,
                arithmetization=arith,
                netlist_gates=int(p["netlist_gates"]) if "netlist_gates" in p else None,
                netlist_depth=int(p["netlist_depth"]) if "netlist_depth" in p else None,
                netlist_max_fan_in=int(p["netlist_max_fan_in"]) if "netlist_max_fan_in" in p else None,
                netlist_gate_types=tuple(p.get("netlist_gate_types", "").split()),
            )
        return assemble(self.defs, self.outputs, name=name, domain=domain,
                        provenance=provenance, file=self.file)


def parse_circuit_text(text: str, file: str | None = None,
                       implicit_inputs: Sequence[str] | None = None,
                       name: str | None = None) -> Circuit:
    """Parse the text format.  ``implicit_inputs`` fixes the inputs (then ``input`` is an error).

    The circuit's name is the ``circuit`` header, else ``name``, else the
    file's stem, else ``"circuit"``.  Every problem raises :class:`InputError`
    at its line.
    """
    reader = _Reader(file, list(implicit_inputs) if implicit_inputs is not None else None)
    if text.startswith("\ufeff"):
        text = text[1:]
    check_line_breaks(text, file)
    for number, raw in enumerate(text.split("\n"), start=1):
        reader.read_line(raw[:-1] if raw.endswith("\r") else raw, number)
    if reader.last_line == 0:
        raise InputError("empty circuit file (no gates, no outputs)", file, 1)
    fallback = name or (file_stem(file, "circuit") if file else "circuit")
    return reader.finish(fallback)


def _one_line(text: str) -> str:
    """``text`` made safe for the rest of a directive line (no comment, no newline)."""
    text = re.sub(r"[#\x00\r\n]", "_", text).strip()
    return "_" + text if text.startswith("=") else text


def print_circuit(circuit: Circuit, implicit_inputs: bool = False) -> str:
    """The text form of ``circuit`` (without ``input`` lines when ``implicit_inputs``)."""
    if not circuit.outputs:
        raise ValueError(f"circuit {circuit.name!r} has no outputs; the text format needs one")
    labels = gate_labels(circuit)
    out = [f"circuit {_one_line(circuit.name) or 'circuit'}"]
    if circuit.domain is not Domain.RATIONALS:
        out.append(f"domain {circuit.domain.value}")
    out.extend(_provenance_lines(circuit.provenance))
    input_positions = list(circuit.input_gates)
    inputs_in_place = input_positions == sorted(input_positions)
    if not implicit_inputs and not inputs_in_place:
        out.extend(_chunks("input", [labels[g] for g in input_positions]))
    pending: list[str] = []
    for index, gate in enumerate(circuit.gates):
        if gate.kind is Kind.INPUT:
            if not implicit_inputs and inputs_in_place:
                pending.append(labels[index])
            continue
        if pending:
            out.extend(_chunks("input", pending))
            pending = []
        if gate.kind is Kind.CONST:
            rhs = f"const {format_rational(gate.value)}"  # type: ignore[arg-type]
        else:
            rhs = " ".join([gate.kind.value, *(labels[a] for a in gate.args)])
        out.append(f"{labels[index]} = {rhs}")
    out.extend(_chunks("input", pending))
    names = circuit.output_names or (None,) * len(circuit.outputs)
    tokens = []
    for target, label in zip(circuit.outputs, names):
        ok = label is not None and label != labels[target] and re.fullmatch(r"[^\s=#\x00]+", label)
        tokens.append(f"{label}={labels[target]}" if ok else labels[target])
    out.extend(_chunks("output", tokens))
    return "\n".join(out) + "\n"


def _provenance_lines(prov: Provenance | None) -> list[str]:
    """``arithmetization`` and ``provenance`` directives (values that fit on a line)."""
    if prov is None:
        return []
    out = []
    if prov.arithmetization in ("exact", "threshold"):
        out.append(f"arithmetization {prov.arithmetization}")
    for key in _PROVENANCE_KEYS:
        value = getattr(prov, key)
        if key == "netlist_gate_types":
            if not value or any(not t or _one_line(t) != t or len(t.split()) != 1 for t in value):
                continue
            value = " ".join(value)
        if value is None or (isinstance(value, int) and value < 0):
            continue
        if str(value) and _one_line(str(value)) == str(value):
            out.append(f"provenance {key} {value}")
    return out


def _chunks(keyword: str, items: list[str]) -> list[str]:
    return [f"{keyword} {' '.join(items[i:i + _PER_LINE])}" for i in range(0, len(items), _PER_LINE)]
