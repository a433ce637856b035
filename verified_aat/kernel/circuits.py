"""Exact arithmetic on the kernel's circuits (ints while integral, else Fractions; sign(0) = 0): gate operations,
constant folding, partial evaluation, and :func:`compiled`'s straight-line Python (only ``+``, ``*`` and comparisons:
exact on ints and Fractions)."""

from __future__ import annotations

from fractions import Fraction
from functools import reduce
from operator import add, itemgetter, mul
from typing import Any, Callable, Mapping, Sequence

from .data import MAX_BITS, Circuit, Number, bits, exact
from .structure import cone, depths, reads, score_reads  # noqa: F401 - re-exported

NARY = {"_reduce": reduce, "_ops": {"+": add, "*": mul}}  # the names infix uses (red team, round 11)


def too_big(value: Number) -> bool:
    """Whether an exact number is beyond what the kernel computes with (:data:`~.data.MAX_BITS`)."""
    return bits(value) > MAX_BITS


def sign(v: Number) -> int:
    return (v > 0) - (v < 0)


def apply(op: str, values: Sequence[Number]) -> Number | None:
    """One gate's operation on exact values (add of nothing is 0); None once a running sum or product is past
    MAX_BITS (checked at every step: the sum of 1,500 fractions of 2,000 digits took minutes before the test)."""
    if op == "sign":
        return sign(values[0])
    total: Number = 0 if op == "add" else 1
    for v in values:
        total = total + v if op == "add" else total * v
        if too_big(total):
            return None
    return exact(total)


def constant_values(circuit: Circuit) -> list[Number | None]:
    """Each gate's value when it does not depend on any input, else None."""
    values: list[Number | None] = []
    for gate in circuit.gates:
        if gate.op == "input":
            values.append(None)
        elif gate.op == "const":
            values.append(gate.value)
        else:
            args = list(map(values.__getitem__, gate.args))  # apply: None past MAX_BITS (then not used as known)
            values.append(None if None in args else apply(gate.op, args))  # type: ignore[arg-type]
    return values


def partial(circuit: Circuit, outputs: Sequence[int], known: Mapping[int, Number]
            ) -> tuple[list[Number | None], set[int]]:
    """Outputs' values where concrete (else None) and the unknown inputs the rest still reads.

    A gate is concrete when all its arguments are, or when it is a product
    with a concrete 0 argument.  (Which inputs count as read never affects
    soundness: an unread input becomes a universally quantified variable.)
    """
    roots = [circuit.outputs[o] for o in outputs]
    value: dict[int, Number | None] = {}
    for g in cone(circuit, roots):
        gate = circuit.gates[g]
        if gate.op == "input":
            value[g] = known.get(gate.index)  # type: ignore[arg-type]
        elif gate.op == "const":
            value[g] = gate.value
        else:
            args = [value[a] for a in gate.args]
            if all(v is not None for v in args):
                value[g] = apply(gate.op, args)  # type: ignore[arg-type]
            else:
                value[g] = 0 if gate.op == "mul" and any(v is not None and v == 0 for v in args) else None
    read: set[int] = set()
    seen, stack = set(), [r for r in roots if value[r] is None]  # one walk through the non-concrete gates (a union of
    while stack:  # read sets per gate took 20 s on 10^4 gates over 16,640 inputs: red team, round 9)
        g = stack.pop()
        if g not in seen:
            seen.add(g)
            read.update([circuit.gates[g].index] if circuit.gates[g].op == "input" else ())  # type: ignore[list-item]
            stack.extend(a for a in circuit.gates[g].args if value[a] is None)
    return [value[r] for r in roots], read


def infix(op: str, names: Sequence[str]) -> str:  # past 64 operands a left fold (NARY): 3,000 "+" overflow compile()
    return f" {op} ".join(names) if len(names) <= 64 else f"_reduce(_ops[{op!r}], ({', '.join(names)},))"


def compiled(circuit: Circuit, on_row: bool = False) -> Callable[..., Any]:
    """``f(x0, …, x_{n−1}) -> outputs`` (``on_row``: ``f(row) -> its one output``, from its cone alone; an input
    read as ``itemgetter``) as straight-line exact Python."""
    consts: dict[str, Any] = {"_sign": sign, **NARY}
    if on_row and circuit.gates[circuit.outputs[0]].op == "input":
        return itemgetter(circuit.gates[circuit.outputs[0]].index)  # type: ignore[arg-type]
    lines = [f"def _f({'row' if on_row else ', '.join(f'x{i}' for i in range(circuit.n_inputs))}):"]
    for g in cone(circuit, [circuit.outputs[0]]) if on_row else range(len(circuit.gates)):
        gate = circuit.gates[g]
        if gate.op == "input":
            expr = f"row[{gate.index}]" if on_row else f"x{gate.index}"
        elif gate.op == "const":
            consts[f"_c{g}"] = gate.value
            expr = f"_c{g}"
        elif gate.op != "sign":
            expr = infix("+" if gate.op == "add" else "*", [f"v{a}" for a in gate.args]) or "0"
        else:
            expr = f"_sign(v{gate.args[0]})"
        lines.append(f"    v{g} = {expr}")
    lines.append(f"    return v{circuit.outputs[0]}" if on_row else f"    return ({''.join(f'v{o}, ' for o in circuit.outputs)})")
    namespace: dict[str, Any] = dict(consts)
    exec(compile("\n".join(lines), "<kernel circuit>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace["_f"]


def mean(values: Sequence[Number]) -> Number:
    return exact(Fraction(sum(values), len(values)))
