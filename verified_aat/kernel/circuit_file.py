"""S1's own reader of a circuit file given with ``check --circuit``: the text (``.circ``) and JSON formats.

Each file is reduced to the canonical structure that a certificate's ``circuit`` section holds (ops,
argument indices, constants, input indices, outputs, domain) and hashed the same way, so the link
"this certificate is about the circuit in FILE" rests on the kernel's reading of FILE, not the engine's.
Names, the circuit's name, output labels, arithmetization and provenance do not enter the structure.
The gate order is the formats' stable depth-first one (docs/circuit-format.md): definitions keep their
file order, a gate used before its definition moves up just before its first user, and an inline
rational literal is one constant gate per value, placed just before its first use.
A file this reader cannot read is *not checked* (the command reports bad input before it gets here).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Union

from .data import MAX_DIGITS, MAX_GATES, STRUCTURE, Circuit, Malformed, NotChecked, load_structure
from .problems import Problem, no_link
from .rules import sha256_json

if TYPE_CHECKING:
    from .context import Context

_DEFINITION = re.compile(r"\s*([^\s=]+)\s*=(.*)\Z", re.S)
_LITERAL = re.compile(r"[+-]?(?:(\d+)(?:/(\d+))?|(\d+\.\d*|\.\d+))\Z", re.ASCII)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]\-]*\Z", re.ASCII)
_KEYWORDS = ("circuit", "domain", "arithmetization", "provenance", "input", "output")
_OPS = ("const", "add", "mul", "sign")
Ref = Union[str, Fraction]


class Unreadable(Exception):
    """The kernel's reader does not read the file (at a line of a text file, 0 for JSON)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line, self.message = line, message


def literal(token: str) -> Fraction | None:
    """The exact rational a token writes (``-3``, ``7/2``, ``0.25``), None if it is no literal."""
    match = _LITERAL.match(token)
    if match is None:
        return None
    if sum(c.isdigit() for c in token) > MAX_DIGITS:
        raise Unreadable(0, f"a number of more than {MAX_DIGITS} digits")
    numer, denom, decimal = match.groups()
    if decimal is not None:
        whole, _, frac = decimal.partition(".")
        value = Fraction(int((whole or "0") + frac), 10 ** len(frac))
    else:
        if denom is not None and int(denom) == 0:
            raise Unreadable(0, "a division by zero")
        value = Fraction(int(numer), int(denom or 1))
    return -value if token.startswith("-") else value


def _ref(token: str) -> Ref:
    """An argument: an inline rational literal, else a gate's name."""
    value = literal(token)
    return token if value is None else value


class _Definitions:
    """Named gates in file order: name → (op, refs, constant value, input index)."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.gates: dict[str, tuple[str, list[Ref], Fraction | None, int | None]] = {}
        self.inputs = 0

    def define(self, name: str, op: str, refs: list[Ref], value: Fraction | None, line: int,
               index: int | None = None, any_name: bool = False) -> None:
        """``any_name``: JSON names are any non-empty strings; ``index``: a JSON input's listed index."""
        if not any_name and (not _NAME.match(name) or name in _KEYWORDS or name.lower() in ("nan", "inf", "infinity")):
            raise Unreadable(line, "a gate name the format does not allow")
        if name in self.gates:
            raise Unreadable(line, "a name defined twice")
        if op in ("mul", "sign") and (len(refs) < 2 if op == "mul" else len(refs) != 1):
            raise Unreadable(line, f"a {op} gate of fan-in {len(refs)}")
        if op == "input" and index is None:
            index, self.inputs = self.inputs, self.inputs + 1
        self.order.append(name)
        self.gates[name] = (op, refs, value, index)


def _text(data: bytes) -> tuple[_Definitions, list[Ref], str]:
    text = data.decode("utf-8")  # UnicodeDecodeError: not checked (the caller)
    defs, outputs, domain = _Definitions(), [], "rationals"
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = raw.removesuffix("\r").split("#", 1)[0]
        if not line.strip():
            continue
        match = _DEFINITION.match(line)
        if match:
            name, (op, *args) = match.group(1), match.group(2).split() or ["?"]
            if op not in _OPS or (op == "const" and (len(args) != 1 or literal(args[0]) is None)):
                raise Unreadable(number, "a gate whose operation the kernel does not read")
            refs = [] if op == "const" else [_ref(a) for a in args]
            defs.define(name, op, refs, literal(args[0]) if op == "const" else None, number)
            continue
        keyword, *rest = line.split()
        if keyword == "input":
            for name in rest:
                defs.define(name, "input", [], None, number)
        elif keyword == "output":
            for token in rest:
                outputs.append(_ref(token.partition("=")[2] or token))
        elif keyword == "domain" and rest in (["rationals"], ["boolean"]):
            domain = rest[0]
        elif keyword not in ("circuit", "arithmetization", "provenance"):  # the structure does not read those
            raise Unreadable(number, "a statement the kernel does not read")
    return defs, outputs, domain


def _json(data: bytes) -> tuple[_Definitions, list[Ref], str]:
    doc = json.loads(data)
    if not isinstance(doc, dict) or doc.get("format") != "verified-aat/circuit" or doc.get("version") != 1:
        raise Unreadable(0, "not a circuit document of format 'verified-aat/circuit', version 1")
    inputs = doc.get("inputs")
    if not isinstance(inputs, list) or not all(isinstance(n, str) for n in inputs) or len(set(inputs)) < len(inputs):
        raise Unreadable(0, "'inputs' is not a list of distinct names")
    gates, outputs = doc.get("gates"), doc.get("outputs")
    if not isinstance(gates, list) or not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise Unreadable(0, "'gates' or 'outputs' is not a list of the format's entries")
    defs, by_input = _Definitions(), {name: i for i, name in enumerate(inputs)}
    for gate in gates:
        name, op, args = gate.get("name"), gate.get("op"), gate.get("args", [])
        if not (isinstance(name, str) and name and op in ("input", *_OPS) and isinstance(args, list)
                and all(isinstance(a, str) for a in args)) or (op in ("input", "const") and args):
            raise Unreadable(0, "a gate the kernel does not read")
        if op == "input" and name not in by_input:
            raise Unreadable(0, "an input gate not listed in 'inputs'")
        raw = gate.get("value")
        value = literal(str(raw)) if op == "const" and type(raw) in (str, int) else None
        if op == "const" and value is None:
            raise Unreadable(0, "a constant that is not a rational")
        defs.define(name, op, list(args), value, 0, by_input.get(name) if op == "input" else None, any_name=True)
    if sorted(v[3] for v in defs.gates.values() if v[0] == "input") != list(range(len(inputs))):
        raise Unreadable(0, "'inputs' and the input gates differ")
    domain = doc.get("domain") or "rationals"
    if domain not in ("rationals", "boolean"):
        raise Unreadable(0, "a domain the kernel does not read")
    return defs, list(outputs), domain


def _ordered(defs: _Definitions, outputs: list[Ref], domain: str) -> dict[str, Any]:
    """The canonical structure, gates in the formats' stable depth-first order (no recursion)."""
    gates: list[list[Any]] = []
    at: dict[Ref, int] = {}  # a name, or a literal's value (its one constant gate)

    def constant(value: Fraction) -> int:
        if value not in at:
            at[value] = len(gates)
            gates.append(["const", str(value)])
        return at[value]

    known = defs.gates
    if any(type(ref) is str and ref not in known for ref in [*(r for n in defs.order for r in known[n][1]), *outputs]):
        raise Unreadable(0, "a reference to an undefined name")
    on_stack: set[str] = set()
    for root in defs.order:
        if root in at:
            continue
        stack = [(root, 0)]
        on_stack.add(root)
        while stack:
            name, i = stack[-1]
            op, refs, value, index = defs.gates[name]
            if i == len(refs):
                stack.pop()
                on_stack.discard(name)
                at[name] = len(gates)
                gates.append(["input", index] if op == "input" else ["const", str(value)] if op == "const"
                             else [op, [at[r] if type(r) is str else constant(r) for r in refs]])
                continue
            stack[-1] = (name, i + 1)
            ref = refs[i]
            if type(ref) is not str:
                constant(ref)
            elif ref in at:
                continue
            elif ref in on_stack:
                raise Unreadable(0, "a cycle among gates")
            else:
                on_stack.add(ref)
                stack.append((ref, 0))
        if len(gates) > MAX_GATES:
            raise Unreadable(0, f"more than {MAX_GATES} gates")
    outs = [at[r] if type(r) is str else constant(r) for r in outputs]
    return {"format": STRUCTURE, "version": 1, "domain": domain, "gates": gates, "outputs": outs}


def structure(data: bytes, fmt: str) -> dict[str, Any]:
    """The canonical structure of a circuit file in format ``text``, ``json`` or ``structure`` (the
    canonical form itself, as the API hands an in-memory circuit); :class:`NotChecked` if unreadable."""
    return read_circuit(data, fmt)[0]


def read_circuit(data: bytes, fmt: str) -> tuple[dict[str, Any], Circuit]:
    """The canonical structure of a circuit file and the circuit it loads to (as :func:`structure`)."""
    try:
        if fmt == "structure":
            value = json.loads(data)
        else:
            value = _ordered(*(_text(data) if fmt == "text" else _json(data)))
        return value, load_structure(value, "$circuit-file")
    except (Unreadable, Malformed, ValueError, UnicodeDecodeError, AttributeError, TypeError) as exc:
        raise NotChecked(f"the kernel's own {fmt} reader does not read the given circuit file ({exc})") from None


def given_circuit(ctx: Context) -> list[Problem]:
    """S1: ``--circuit FILE`` is the certified circuit B or the recorded C; a file that merely binarizes to B
    (a hash the command computed) is *not checked*, never accepted; any other file is rejected."""
    wanted = sha256_json(structure(*ctx.options.circuit_file[1:]))
    if wanted in (ctx.hashes["circuit"], ctx.hashes.get("original")):
        return []
    if ctx.hashes["circuit"] in ctx.options.binarized_sha256:
        ctx.unchecked.append(no_link(ctx))
        return []
    return [Problem("the given circuit has structure hash {given:16}, the certified one {circuit:16}"
                    + (" (before binarization {original:16})" if "original" in ctx.hashes else ""),
                    {"given": wanted, **ctx.hashes})]
