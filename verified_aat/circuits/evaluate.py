"""Exact evaluation of circuits over Q.

Values are Python ``int`` while they are integers and ``Fraction`` otherwise;
both are exact rationals, and the integer fast path keeps large netlists
well under a millisecond per thousand gates.  :func:`compile_circuit` turns a
circuit into straight-line Python for engines that call it very often; it
uses only ``+``, ``*`` and a comparison-based sign, so it is exact on ints and
Fractions and also runs on floats for the floating-point engine.
"""

from __future__ import annotations

import operator
from fractions import Fraction
from functools import reduce
from typing import Any, Callable, Sequence

from ..errors import LimitReached
from .ir import Circuit, Kind, sign
from ..wording import plural

Number = int | Fraction
_INT = frozenset([int])


def as_exact(value: Number) -> Number:
    """Normalise a rational: integral Fractions become ints."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return value
    raise TypeError(f"not an exact rational: {value!r}")


def value_bits(v: Any) -> int:
    """The bits of an exact number's numerator and denominator (int, Fraction or gmpy2's mpz/mpq)."""
    if type(v) is int:
        return v.bit_length()
    return int(v.numerator.bit_length() + v.denominator.bit_length())


def too_large(circuit: Circuit, gate: int, max_bits: int) -> LimitReached:
    """The limit reached when ``gate`` computes a value past ``max_bits`` bits."""
    return LimitReached(f"gate {circuit.gate_name(gate)!r} of {circuit.name} computes a value of more than "
                        f"{max_bits:,} bits (the bits-per-value limit of exact evaluation)")


def evaluate_gates(circuit: Circuit, inputs: Sequence[Number], max_bits: int | None = None) -> list[Number]:
    """The value of every gate on ``inputs`` (one rational per circuit input); with ``max_bits``, a value past
    that many bits (checked after every addition and multiplication) is :class:`LimitReached`."""
    if len(inputs) != circuit.n_inputs:
        raise ValueError(f"circuit {circuit.name} takes {plural(circuit.n_inputs, 'input')}, got {len(inputs)}")
    xs = list(inputs) if _INT.issuperset(map(type, inputs)) else [as_exact(v) for v in inputs]
    values: list[Number] = []
    append = values.append
    for gate in circuit.gates:
        kind = gate.kind
        if max_bits is not None and (kind is Kind.ADD or kind is Kind.MUL):
            append(_checked(circuit, len(values), values, max_bits))
        elif kind is Kind.ADD:
            total: Number = 0
            for a in gate.args:
                total += values[a]
            append(total)
        elif kind is Kind.MUL:
            args = gate.args
            product = values[args[0]]
            for a in args[1:]:
                product *= values[a]
            append(product)
        elif kind is Kind.SIGN:
            append(sign(values[gate.args[0]]))
        elif kind is Kind.INPUT:
            append(xs[gate.index])  # type: ignore[index]
        else:
            append(as_exact(gate.value))  # type: ignore[arg-type]
    if _INT.issuperset(map(type, values)):  # ints throughout (e.g. a witness of 10⁶ integer inputs)
        return values
    return [as_exact(v) if isinstance(v, Fraction) else v for v in values]


def _checked(circuit: Circuit, index: int, values: list[Number], max_bits: int) -> Number:
    """The value of add or mul gate ``index``, each partial sum or product checked against ``max_bits``."""
    gate = circuit.gates[index]
    add = gate.kind is Kind.ADD
    result: Number = 0 if add else values[gate.args[0]]
    for a in (gate.args if add else gate.args[1:]):
        result = result + values[a] if add else result * values[a]
        if value_bits(result) > max_bits:
            raise too_large(circuit, index, max_bits)
    return result


def evaluate(circuit: Circuit, inputs: Sequence[Number], max_bits: int | None = None) -> tuple[Number, ...]:
    """C(x): the outputs of ``circuit`` on ``inputs``, in output order (``max_bits``: :func:`evaluate_gates`)."""
    values = evaluate_gates(circuit, inputs, max_bits)
    return tuple(values[o] for o in circuit.outputs)


def fold_circuit(circuit: Circuit, inputs: Sequence[Any], const: Callable[[Fraction], Any],
                 add: Callable[[list[Any]], Any], mul: Callable[[list[Any]], Any],
                 sign: Callable[[Any], Any]) -> list[Any]:
    """Interpret ``circuit`` in another algebra (symbolic terms, builder wires, …): its outputs."""
    values: list[Any] = []
    for gate in circuit.gates:
        kind = gate.kind
        if kind is Kind.INPUT:
            values.append(inputs[gate.index])  # type: ignore[index]
        elif kind is Kind.CONST:
            values.append(const(gate.value))  # type: ignore[arg-type]
        elif kind is Kind.ADD:
            values.append(add([values[a] for a in gate.args]))
        elif kind is Kind.MUL:
            values.append(mul([values[a] for a in gate.args]))
        else:
            values.append(sign(values[gate.args[0]]))
    return [values[o] for o in circuit.outputs]


def _generic_sign(v: Any) -> Any:
    return (v > 0) - (v < 0)


def straight_line(circuit: Circuit, params: dict[int, str], live: Sequence[bool] | None = None,
                  consts: dict[str, Any] | None = None) -> list[str]:
    """Python statements ``gN = ...`` for the (live) gates, input k read from ``params[k]``.

    Non-integral and long (past Python's int/str digit limit) constants are bound in
    ``consts`` as ``_cN``; sign is ``_sign``.
    """
    lines = []
    for index, gate in enumerate(circuit.gates):
        if live is not None and not live[index]:
            continue
        kind = gate.kind
        if kind is Kind.INPUT:
            expr = params[gate.index]  # type: ignore[index]
        elif kind is Kind.CONST:
            value = as_exact(gate.value)  # type: ignore[arg-type]
            if isinstance(value, int) and value.bit_length() < 4000:  # repr: < 4300 digits
                expr = repr(value)
            else:
                assert consts is not None
                consts[f"_c{index}"] = value
                expr = f"_c{index}"
        elif kind is Kind.ADD or kind is Kind.MUL:
            names = [f"g{a}" for a in gate.args]
            if len(names) <= 64:
                expr = (" + " if kind is Kind.ADD else " * ").join(names) or "0"
            else:  # a chain of ~3,000 infix operators is past the compiler's stack (RecursionError, red team round 11):
                assert consts is not None  # one left fold over a tuple, the same order of operations
                consts.update(_reduce=reduce, _add=operator.add, _mul=operator.mul)
                expr = f"_reduce({'_add' if kind is Kind.ADD else '_mul'}, ({', '.join(names)},))"
        else:
            expr = f"_sign(g{gate.args[0]})"
        lines.append(f"    g{index} = {expr}")
    return lines


def compile_circuit(circuit: Circuit) -> Callable[..., tuple[Any, ...]]:
    """Straight-line Python for ``circuit``: ``f(x0, ..., x_{n-1}) -> outputs``.

    The result is exact on ints/Fractions.  It evaluates every gate, so it is
    meant for small circuits called many times (scores and activations).
    """
    lines = [f"def _compiled({', '.join(f'x{i}' for i in range(circuit.n_inputs))}):"]
    consts: dict[str, Any] = {"_sign": _generic_sign}
    lines += straight_line(circuit, {i: f"x{i}" for i in range(circuit.n_inputs)}, None, consts)
    outs = ", ".join(f"g{o}" for o in circuit.outputs)
    lines.append(f"    return ({outs}{',' if len(circuit.outputs) == 1 else ''})")
    namespace: dict[str, Any] = dict(consts)
    exec(compile("\n".join(lines), f"<circuit {circuit.name}>", "exec"), namespace)  # noqa: S102
    return namespace["_compiled"]
