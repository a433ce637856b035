"""The defence interpreter's exact pieces (docs/soundness.md, D), shared by the full run (``defence.py``) and the
sampled steps (``defence_sample.py``): its number type, C's gate values on a concrete input, an activation
partially evaluated on its structural inputs, and how a position is named.  Reject-only, as both users.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

from .circuits import NARY, apply, cone, infix, reads, sign, too_big
from .data import Circuit, Number, exact

try:  # GMP rationals: the same exact numbers, an order of magnitude faster than fractions.Fraction
    from gmpy2 import mpq as _mpq
except ImportError:  # pragma: no cover - the interpreter still works, only slower
    _mpq = None


def rational(value: Number) -> Any:
    """An exact number in the interpreter's fastest exact type (ints stay ints)."""
    if type(value) is int or _mpq is None:
        return value
    return _mpq(value.numerator, value.denominator)  # type: ignore[union-attr]


def mean(total: Any, k: int) -> Any:
    """total / k exactly, in the interpreter's number type: an int while it divides, else a rational."""
    if type(total) is int or type(total) is Fraction:
        return total // k if type(total) is int and total % k == 0 else rational(Fraction(total, k))
    return total / k  # a GMP rational over an int: exact


class TooBig(Exception):
    """A concrete value grew beyond :data:`~.data.MAX_BITS`."""


def evaluate(circuit: Circuit, x: Sequence[Any], number: Callable[[Number], Any] = exact) -> list[Any]:
    """The value of every gate on the input vector ``x`` (:class:`TooBig` if a number explodes);
    constants pass through ``number`` (the interpreter's faster exact type)."""
    values: list[Any] = []
    for gate in circuit.gates:
        if gate.op == "input":
            values.append(x[gate.index])  # type: ignore[index]
        elif gate.op == "const":
            values.append(number(gate.value))  # type: ignore[arg-type]
        elif gate.op != "sign" and len(gate.args) == 2:  # apply's steps at once: its operands are within MAX_BITS
            a, b = gate.args
            value = exact(values[a] + values[b] if gate.op == "add" else values[a] * values[b])
            if too_big(value):
                raise TooBig(f"gate {len(values)}")
            values.append(value)
        else:
            value = apply(gate.op, [values[a] for a in gate.args])
            if value is None or gate.op == "mul" and too_big(value):
                raise TooBig(f"gate {len(values)}")
            values.append(value)
    return values


BUILD_COST = 200  # activation evaluations a compiled specialization costs (7.9 ms against 38 µs for 2,035 gates),
FREE_BUILDS = 64  # past the first 64 of an activation (an honest one has a few: one per op code, say)


class Specialized:
    """An activation, partially evaluated on the actual values of its structural inputs.

    For each distinct tuple of values of the structural inputs that its
    computed (non-identity) outputs read, the activation is constant-folded
    and compiled to one straight-line function ``f(own, pool, p)`` that returns
    the new vector of position p.  Folding is exact evaluation (and a product
    with a 0 factor is 0 over any ring); which inputs are folded is only a
    choice of speed.
    """

    def __init__(self, circuit: Circuit, d: int, structural: set[int]):
        self.circuit, self.d = circuit, d
        outputs = circuit.outputs
        self.computed = [o for o, r in enumerate(outputs) if circuit.gates[r].op != "input"]
        read = reads(circuit, [outputs[o] for o in self.computed])
        self.folded = sorted(k for k in read if k % d in structural)
        key_source = f"def _key(own, pool, p):\n    return ({''.join(self._input(k) + ', ' for k in self.folded)})"
        namespace: dict[str, Any] = {}
        exec(compile(key_source, "<kernel key>", "exec"), namespace)  # noqa: S102 - our own text
        self.key = namespace["_key"]
        self.cache: dict[tuple, Any] = {}
        self.builds = 0  # specializations compiled: past FREE_BUILDS each costs BUILD_COST of its users' budgets

    @property
    def cost(self) -> int:
        """The activation evaluations its compilations cost so far."""
        return BUILD_COST * max(0, self.builds - FREE_BUILDS)

    def _input(self, k: int) -> str:
        owner, c = divmod(k, self.d)
        return f"own[{c}]" if owner == 0 else f"pool({owner - 1}, p, {c})"

    def function(self, known: tuple) -> Any:
        found = self.cache.get(known)
        if found is None:
            self.builds += 1
            found = self.cache[known] = self._build(dict(zip(self.folded, known)))
        return found

    def _build(self, known: dict[int, Number]) -> Any:
        gates = self.circuit.gates
        value: dict[int, Any] = {}
        text: dict[int, str] = {}
        lines: list[str] = []
        consts: dict[str, Any] = {"_sign": sign, **NARY}

        def literal(v: Any) -> str:
            name = f"_k{len(consts)}"
            consts[name] = rational(v) if type(v) is Fraction else v
            return name

        for g in cone(self.circuit, list(self.circuit.outputs)):
            gate = gates[g]
            if gate.op == "input":
                if gate.index in known:
                    value[g] = known[gate.index]
                else:
                    text[g] = f"a{g}"
                    lines.append(f"    a{g} = {self._input(gate.index)}")  # type: ignore[arg-type]
                continue
            if gate.op == "const":
                value[g] = gate.value
                continue
            args = gate.args
            if all(a in value for a in args):
                value[g] = apply(gate.op, [value[a] for a in args])
                if value[g] is None:
                    raise TooBig(f"gate {g} folded past the bound")
                continue
            if gate.op == "mul" and any(a in value and value[a] == 0 for a in args):
                value[g] = 0
                continue
            unit = 1 if gate.op == "mul" else 0
            parts = [text[a] if a in text else literal(value[a]) for a in args
                     if a in text or value[a] != unit or gate.op == "sign"]
            if gate.op == "sign":
                expr = f"_sign({parts[0]})"
            elif len(parts) == 1:
                text[g] = parts[0]
                continue
            else:
                expr = infix("+" if gate.op == "add" else "*", parts)
            lines.append(f"    v{g} = {expr}")
            text[g] = f"v{g}"
        outs = [text[r] if r in text else literal(value[r]) for r in self.circuit.outputs]
        source = "\n".join(["def _f(own, pool, p):", *lines, f"    return ({''.join(o + ', ' for o in outs)})"])
        exec(compile(source, "<kernel residual>", "exec"), consts)  # noqa: S102 - our own text
        return consts["_f"]


def role(E, p: int) -> str:  # type: ignore[no-untyped-def]
    """Position p of the encoding E in words: its gate, or its edge."""
    r = E.roles[p]
    return f"gate {r.gate}" if r.kind == "gate" else f"{r.kind} {r.source} -> {r.gate}"
