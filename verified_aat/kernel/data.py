"""The kernel's own data: a minimal circuit IR, transformers, and strict loaders (docs/soundness.md S1).

The formats are docs/certificates.md's (``circuit``, ``transformer``). Every size limit is enforced *before* the
work it bounds (docs/soundness.md, "Limits"); a problem is a :class:`Malformed` naming a JSON path and what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from .problems import render

Number = int | Fraction

OPS = ("input", "const", "add", "mul", "sign")
POOLINGS = ("average", "leftmost", "rightmost")  # softmax is named so it can be refused clearly

# Everything a hostile file can make large is bounded here (docs/soundness.md, "Limits").
MAX_DIGITS = 2_000          # digits in one rational
MAX_GATES = 20_000_000      # gates of the certified circuit
MAX_FUNCTION_GATES = 100_000
MAX_COORDINATES = 256
MAX_LAYERS = 100_000
MAX_HEADS = 64
MAX_FUNCTIONS = 10_000
MAX_SCHEDULE_INT = 1_000_000  # |scale|, |offset|, |delta| of schedule rules
MAX_DEGREE = 64             # of a transformer's circuits (sign counts 0): keeps exact numbers small
MAX_BITS = 200_000          # of a number the kernel computes with concrete values
MAX_K = 10_000              # info.depth_bound of a per-circuit certificate (limits.MAX_K)

_NUMERAL = re.compile(r"(-?[0-9]+)(?:\.([0-9]+))?(?:/([0-9]+))?\Z", re.ASCII)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z", re.ASCII)


class NotChecked(Exception):
    """A check that cannot be made: the certificate is *not checked* (exit 3), never accepted or rejected."""


class Malformed(Exception):
    """A certificate field that is not what the format says, at a JSON path."""

    def __init__(self, path: str, message: str, data: dict[str, object] | None = None):
        self.path, self.message, self.data = path, message, data or {}
        super().__init__(f"{path}: {render(message, self.data)}")


class Gate(NamedTuple):  # a named tuple: 0.45 µs to build, a frozen dataclass 1.2 µs (10^6 gates a check)
    op: str
    args: tuple[int, ...] = ()
    value: Number | None = None   # const gates
    index: int | None = None      # input gates


@dataclass(frozen=True)
class Circuit:
    gates: tuple[Gate, ...]
    outputs: tuple[int, ...]
    n_inputs: int
    input_gates: tuple[int, ...]  # gate of input i, for i = 0..n−1


@dataclass(frozen=True)
class Bilinear:
    """s(x_i, x_j) = Σ q·x_i[r]·x_j[c] over the non-zero entries (r, c, q)."""

    entries: tuple[tuple[int, int, Number], ...]


@dataclass(frozen=True)
class Head:
    name: str
    pooling: str
    score: Circuit | Bilinear
    score_key: Any  # function index or the bilinear entries: what makes two heads equal


@dataclass(frozen=True)
class Layer:
    heads: tuple[Head, ...]
    activation: Circuit
    key: Any  # equal keys ⇔ equal layer functions


@dataclass(frozen=True)
class Transformer:
    coordinates: tuple[str, ...]
    layers: tuple[Layer, ...]

    @property
    def dimension(self) -> int:
        return len(self.coordinates)


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"  # '1 output', '2 outputs': the theorems' and messages' counts


# -- primitive readers ---------------------------------------------------------

def need(ok: bool, path: str, message: str, **data: object) -> None:
    if not ok:
        raise Malformed(path, message, data)


def as_int(value: Any, path: str, low: int | None = None, high: int | None = None) -> int:
    need(type(value) is int, path, "expected an integer, got {kind}", kind=type(value).__name__)
    need(low is None or value >= low, path, "must be >= {low}, got {value}", low=low, value=value)
    need(high is None or value <= high, path, "must be <= {high}, got {value}", high=high, value=value)
    return value


def within(ok: bool, path: str, message: str) -> None:
    """A size limit (docs/soundness.md, "Limits"): past it the certificate is *not checked*, never rejected."""
    if not ok:
        raise NotChecked(f"{path}: {message}, past the kernel's limit")


def as_list(value: Any, path: str, limit: int, size: bool = True) -> list[Any]:
    """At most ``limit`` entries: a size limit (*not checked*), or with ``size=False`` a format rule (rejected)."""
    need(type(value) is list, path, f"expected a list, got {type(value).__name__}")
    (within if size else need)(len(value) <= limit, path, f"too long ({len(value)} entries; the limit is {limit})")
    return value


def as_dict(value: Any, path: str, keys: set[str], optional: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    need(type(value) is dict, path, f"expected an object, got {type(value).__name__}")
    missing = sorted(keys - set(value))
    need(not missing, path, "missing key {key!r}", key=missing and missing[0])
    extra = sorted(set(value) - keys - set(optional))
    need(not extra, path, "unknown key {key!r}", key=extra and extra[0])
    return value


def as_name(value: Any, path: str) -> str:
    need(type(value) is str and _NAME.match(value) is not None, path,
         "expected a name (a letter, then letters, digits or _), got {value!r}", value=value)
    return value


def as_rational(value: Any, path: str) -> Number:
    """An exact rational written ``p`` or ``p/q`` (canonical: lowest terms, q > 1, as ``str`` writes it)."""
    within(type(value) is not str or len(value) <= MAX_DIGITS, path, f"a number of more than {MAX_DIGITS} characters")
    q = read_numeral(value) if type(value) is str else None
    need(q is not None and str(q) == value, path, "not a rational 'p' or 'p/q' in lowest terms: {value!r}", value=value)
    return q  # type: ignore[return-value]


def read_numeral(text: str) -> Number | None:
    """The value of ``p``, ``p.d``, ``p/q`` or ``p.d/q`` (ASCII digits, at most :data:`MAX_DIGITS`), else None.
    Every numeral a certificate writes goes through here: ``Fraction("1e99999999")`` would compute 10^(10^8)."""
    m = _NUMERAL.match(text) if len(text) <= MAX_DIGITS else None
    if m is None or m.group(3) is not None and not int(m.group(3)):
        return None
    frac = m.group(2) or ""
    return exact(Fraction(int(m.group(1) + frac), 10 ** len(frac) * int(m.group(3) or 1)))


def exact(value: Number) -> Number:
    """Integral Fractions become ints (so equal numbers compare and hash alike fast)."""
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def bits(value: Number) -> int:
    """The bits of an exact number's numerator and denominator (what MAX_BITS bounds)."""
    return value.bit_length() if type(value) is int else value.numerator.bit_length() + value.denominator.bit_length()


# -- circuits --------------------------------------------------------------------

def load_circuit(data: Any, path: str, limit: int = MAX_GATES, extra_keys: set[str] = frozenset(),  # type: ignore[assignment]
                 max_degree: int | None = None) -> Circuit:
    obj = as_dict(data, path, {"gates", "outputs"}, extra_keys)
    gates: list[Gate] = []
    inputs: dict[int, int] = {}
    raw_gates = as_list(obj["gates"], f"{path}.gates", limit)
    for g, entry in enumerate(raw_gates):
        op, arg = entry if type(entry) is list and len(entry) == 2 else ("", None)
        if op in ("add", "mul", "sign") and type(arg) is list and (len(arg) >= 2 if op == "mul" else op == "add" or len(
                arg) == 1) and len(arg) <= limit and all(type(a) is int and 0 <= a < g for a in arg):  # no messages
            gates.append(Gate(op, tuple(arg)))
            continue
        if op == "input" and type(arg) is int and 0 <= arg <= limit and inputs.setdefault(arg, g) == g:
            gates.append(Gate("input", index=arg))
            continue
        where = f"{path}.gates[{g}]"
        need(type(entry) is list and len(entry) == 2 and type(entry[0]) is str, where, "expected [op, argument]")
        op, arg = entry
        need(op in OPS, where, "unknown op {op!r}", op=op)
        if op == "input":  # an index that is not one, or is repeated: the others were read above
            raise Malformed(where, "input {i} appears twice", {"i": as_int(arg, where + "[1]", 0, limit)})
        elif op == "const":
            gates.append(Gate("const", value=as_rational(arg, where + "[1]")))
        else:
            args = as_list(arg, where + "[1]", limit)
            for k, a in enumerate(args):
                need(type(a) is int and 0 <= a < g, f"{where}[1][{k}]", "argument {a!r} is not an earlier gate", a=a)
            need(len(args) == 1 if op == "sign" else op != "mul" or len(args) >= 2, where, f"{op} of fan-in {len(args)}")
            gates.append(Gate(op, tuple(args)))
    need(sorted(inputs) == list(range(len(inputs))), f"{path}.gates", "input indices must be 0..n-1, each once")
    if max_degree is not None:  # and the bits its numbers reach beside the inputs' (numerators, denominators)
        degree: list[int] = []
        top: list[int] = []
        low: list[int] = []
        for gate in gates:
            a = gate.args
            if gate.op in ("input", "const", "sign"):
                q = Fraction(gate.value if gate.op == "const" else 1)
                degree.append(int(gate.op == "input"))
                top.append(q.numerator.bit_length())
                low.append(q.denominator.bit_length() - 1)
            else:  # a sum's denominators multiply; each term's numerator times the other denominators
                low.append(sum(low[x] for x in a))
                add = gate.op == "add"
                degree.append(max((degree[x] for x in a), default=0) if add else sum(degree[x] for x in a))
                top.append(max((top[x] + low[-1] - low[x] for x in a), default=0) + (len(a) - 1).bit_length() if add
                           else sum(top[x] for x in a))
            within(degree[-1] <= max_degree and top[-1] + low[-1] <= MAX_BITS, f"{path}.gates[{len(degree) - 1}]",
                 f"degree above {max_degree} or constants past {MAX_BITS} bits (numbers that grow that fast)")
    outputs = as_list(obj["outputs"], f"{path}.outputs", limit)
    for k, o in enumerate(outputs):
        need(type(o) is int and 0 <= o < len(gates), f"{path}.outputs[{k}]", "{o!r} is not a gate", o=o)
    return Circuit(tuple(gates), tuple(outputs), len(inputs), tuple(inputs[i] for i in range(len(inputs))))


STRUCTURE = "verified-aat/circuit-structure"


def load_structure(value: Any, path: str) -> Circuit:
    """A circuit in the canonical structure that certificates embed and files reduce to (S1, B1, P10)."""
    need(type(value) is dict and value.get("format") == STRUCTURE and type(value.get("version")) is int and
         value["version"] == 1 and value.get("domain") in ("rationals", "boolean"), path,
         f"expected format {STRUCTURE!r} version 1 with domain 'rationals' or 'boolean'")
    return load_circuit(value, path, extra_keys={"format", "version", "domain"})


# -- transformers -----------------------------------------------------------------

def load_transformer(data: Any, path: str = "$.transformer") -> Transformer:
    obj = as_dict(data, path, {"coordinates", "functions", "layers"})
    coordinates = tuple(as_name(c, f"{path}.coordinates[{k}]")
                        for k, c in enumerate(as_list(obj["coordinates"], f"{path}.coordinates", MAX_COORDINATES)))
    need(len(set(coordinates)) == len(coordinates) and coordinates, f"{path}.coordinates",
         "coordinates must be distinct and at least one")
    d = len(coordinates)
    functions = [load_circuit(f, f"{path}.functions[{k}]", MAX_FUNCTION_GATES, max_degree=MAX_DEGREE)
                 for k, f in enumerate(as_list(obj["functions"], f"{path}.functions", MAX_FUNCTIONS))]
    layers: list[Layer] = []
    cache: dict[Any, Layer] = {}
    for number, raw in enumerate(as_list(obj["layers"], f"{path}.layers", MAX_LAYERS)):
        where = f"{path}.layers[{number}]"
        layer_obj = as_dict(raw, where, {"heads", "activation"})
        heads: list[Head] = []
        for h, raw_head in enumerate(as_list(layer_obj["heads"], f"{where}.heads", MAX_HEADS)):
            hw = f"{where}.heads[{h}]"
            head_obj = as_dict(raw_head, hw, {"name", "pooling", "score"})
            name = as_name(head_obj["name"], f"{hw}.name")
            need(name != "x" and name not in (x.name for x in heads), f"{hw}.name",
                 "head names must be distinct and not 'x': {name!r}", name=name)
            pooling = head_obj["pooling"]
            need(pooling in POOLINGS or pooling == "softmax", f"{hw}.pooling", "unknown pooling {pooling!r}",
                 pooling=pooling)
            score, key = _load_score(head_obj["score"], f"{hw}.score", functions, d)
            heads.append(Head(name, pooling, score, key))
        act = as_int(layer_obj["activation"], f"{where}.activation", 0, len(functions) - 1)
        activation = functions[act]
        need(activation.n_inputs == (1 + len(heads)) * d and len(activation.outputs) == d, f"{where}.activation",
             f"an activation must take {counted((1 + len(heads)) * d, 'input')} and give {counted(d, 'output')}")
        key = (tuple((x.name, x.pooling, x.score_key) for x in heads), act)
        layers.append(cache.setdefault(key, Layer(tuple(heads), activation, key)))
    return Transformer(coordinates, tuple(layers))


def _load_score(raw: Any, path: str, functions: list[Circuit], d: int) -> tuple[Circuit | Bilinear, Any]:
    if type(raw) is int:
        f = as_int(raw, path, 0, len(functions) - 1)
        circuit = functions[f]
        need(circuit.n_inputs == 2 * d and len(circuit.outputs) == 1, path,
             f"a score must take {2 * d} inputs and give 1 output")
        return circuit, ("f", f)
    obj = as_dict(raw, path, {"bilinear"})
    entries = []
    seen = set()
    for k, e in enumerate(as_list(obj["bilinear"], f"{path}.bilinear", d * d, size=False)):
        need(type(e) is list and len(e) == 3, f"{path}.bilinear[{k}]", "expected [row, column, q]")
        r, c = as_int(e[0], f"{path}.bilinear[{k}][0]", 0, d - 1), as_int(e[1], f"{path}.bilinear[{k}][1]", 0, d - 1)
        q = as_rational(e[2], f"{path}.bilinear[{k}][2]")
        need((r, c) not in seen and q != 0, f"{path}.bilinear[{k}]", "entries must be distinct and non-zero")
        seen.add((r, c))
        entries.append((r, c, q))
    bilinear = Bilinear(tuple(sorted(entries)))
    return bilinear, ("b", bilinear.entries)
