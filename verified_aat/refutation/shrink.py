"""Shrink a refuting circuit: fewer outputs, gates, operands and inputs while the transformer still goes wrong on it.

Greedy, as C-Reduce and Hypothesis shrink: each move makes the circuit strictly smaller (gates, then operands, then
outputs), and a move is kept only when the exact engine replays a counterexample on the smaller circuit (``fails``:
the caller's search, which starts from the old input restricted to the inputs left). So the witness a refutation
reports is one the engine replayed, never one inferred, and the search ends (every kept move shrinks the measure).
"""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from typing import Callable, Iterator, Sequence, TypeVar

from ..circuits.ir import Circuit, Kind

Found = TypeVar("Found")


def shrink(circuit: Circuit, xs: Sequence[Fraction], found: Found,
           fails: Callable[[Circuit, list[Fraction]], tuple[list[Fraction], Found] | None],
           deadline: float) -> tuple[Circuit, Found]:
    """The smallest circuit greedy moves reach from ``circuit`` before ``deadline`` (``time.perf_counter``) on which
    ``fails`` (a circuit and an input to try first) still finds a replayed counterexample: (its input, the
    counterexample); with it the last counterexample found.  ``found``: the counterexample of ``circuit`` at ``xs``.
    A circuit shrunk is named ``<name>-shrunk``: its gates are no longer the shape its name says."""
    current, inputs = circuit, list(xs)
    shrunk = True
    while shrunk and time.perf_counter() < deadline:
        shrunk = False
        for smaller, kept in _moves(current):
            if time.perf_counter() >= deadline:
                break
            result = fails(smaller, [inputs[i] for i in kept])
            if result is not None:
                (inputs, found), current, shrunk = result, smaller, True
                break
    if current is not circuit:  # no longer the candidate named: "add-of-two" was reported as `input x0 / output x0`
        current = replace(current, name=f"{circuit.name}-shrunk")
    return current, found


def _measure(circuit: Circuit) -> tuple[int, int, int]:
    return circuit.size, circuit.n_edges, len(circuit.outputs)


def _moves(circuit: Circuit) -> Iterator[tuple[Circuit, list[int]]]:
    """Smaller circuits, most shrinking first, each built only when asked for (a stacked witness at a large K has
    thousands of gates): the outputs' cone alone, one output alone, a gate bypassed by one of its operands (latest
    gate first: a stacked witness's copies hang off its end), an operand dropped; with, for each, the inputs it keeps
    (indices into ``circuit``'s, in order)."""
    whole = _measure(circuit)
    outputs = [circuit.outputs] + ([(o,) for o in dict.fromkeys(circuit.outputs)] if len(circuit.outputs) > 1 else [])
    edits = [(circuit.outputs, {g: a}, None) for g in range(circuit.size - 1, -1, -1)
             for a in dict.fromkeys(circuit.gates[g].args)]
    edits += [(circuit.outputs, {}, (g, k)) for g in range(circuit.size - 1, -1, -1)
              if (gate := circuit.gates[g]).fan_in >= (1 if gate.kind is Kind.ADD else 3 if gate.kind is Kind.MUL
                                                       else gate.fan_in + 1) for k in range(gate.fan_in)]
    for ends, bypass, dropped in [(ends, {}, None) for ends in outputs] + edits:
        smaller = _rebuild(circuit, ends, bypass, dropped)
        if _measure(smaller[0]) < whole:
            yield smaller


def _rebuild(circuit: Circuit, outputs: Sequence[int], bypass: dict[int, int],
             dropped: tuple[int, int] | None = None) -> tuple[Circuit, list[int]]:
    """The gates ``outputs`` read, gate ``g`` of ``bypass`` read as its operand ``bypass[g]``, operand ``dropped[1]``
    of gate ``dropped[0]`` left out; renumbered in order, the inputs kept in their order: (circuit, kept inputs)."""
    def resolve(a: int) -> int:
        while a in bypass:
            a = bypass[a]
        return a

    def operands(g: int) -> tuple[int, ...]:
        args = circuit.gates[g].args
        if dropped is not None and dropped[0] == g:
            args = args[:dropped[1]] + args[dropped[1] + 1:]
        return tuple(map(resolve, args))

    ends = [resolve(o) for o in outputs]
    needed: set[int] = set()
    stack = list(ends)
    while stack:
        g = stack.pop()
        if g not in needed:
            needed.add(g)
            stack.extend(operands(g))
    kept = sorted(circuit.gates[g].index for g in needed if circuit.gates[g].kind is Kind.INPUT)  # type: ignore[type-var]
    index = {old: new for new, old in enumerate(kept)}
    number: dict[int, int] = {}
    gates = []
    for g in sorted(needed):
        gate = circuit.gates[g]
        gates.append(replace(gate, index=index[gate.index], name=gate.name or f"x{gate.index}") if gate.kind is Kind.INPUT
                     else replace(gate, args=tuple(number[a] for a in operands(g))))
        number[g] = len(gates) - 1
    given = circuit.output_names or ()  # a name that is only its gate's (g<id>) names the new gate, else it is kept
    at: dict[int, list[int]] = {}  # an output gate's positions: a repeated output keeps each of its names, in order
    for position, o in reversed(list(enumerate(circuit.outputs))):
        at.setdefault(o, []).append(position)
    names = [given[at[o].pop()] for o in outputs] if given else []
    custom = any(n != circuit.gate_name(o) for n, o in zip(names, outputs))
    smaller = Circuit(tuple(gates), tuple(number[e] for e in ends), circuit.name, circuit.domain, tuple(
        n if n != circuit.gate_name(o) else gates[number[e]].name or f"g{number[e]}"
        for n, o, e in zip(names, outputs, ends)) if custom else None)
    return smaller, kept
