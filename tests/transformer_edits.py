"""Edits of a construction's transformer, written as a test (or a user) writes them: on T itself.

Three harmless edits that touch nothing the read-out depends on, and their harmful twins that do:
- ``with_unused_head``: every layer gets a head ``spy`` with a score of its own, which no
  activation reads (its twin ``with_read_head`` adds spy's pooled val to the read-out coordinate);
- ``scribble_last_layer``: the last layer writes junk into every coordinate except the read-out one
  (its twin also into the read-out one);
- ``with_edge_layer``: one more layer that writes junk into val at edge positions only (b − a ≥ 1
  there, 0 at a gate), for the gate/edge constructions (its twin: at gates too).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from verified_aat.circuits.ir import Circuit, Gate, Kind
from verified_aat.transformer.model import CircuitScore, Head, Layer, Pooling, Transformer


def _input(circuit: Circuit, k: int) -> int:
    return circuit.input_gates[k]


class _Extend:
    """Gates appended to a circuit (its gates keep their numbers)."""

    def __init__(self, circuit: Circuit):
        self.circuit = circuit
        self.gates = list(circuit.gates)
        self.n = circuit.n_inputs

    def gate(self, kind: Kind, *args: int, value: Fraction | None = None) -> int:
        self.gates.append(Gate(kind, tuple(args), value=value))
        return len(self.gates) - 1

    def const(self, q: int | Fraction) -> int:
        return self.gate(Kind.CONST, value=Fraction(q))

    def inputs(self, count: int) -> list[int]:
        made = []
        for _ in range(count):
            self.gates.append(Gate(Kind.INPUT, index=self.n))
            self.n += 1
            made.append(len(self.gates) - 1)
        return made

    def junk(self, x: int) -> int:
        """x² + 5: never 0."""
        return self.gate(Kind.ADD, self.gate(Kind.MUL, x, x), self.const(5))

    def build(self, outputs: list[int]) -> Circuit:
        return Circuit(tuple(self.gates), tuple(outputs), name=self.circuit.name + "-edited")


def _spy_score(d: int, val: int) -> CircuitScore:
    """s(i, j) = i.val · j.val: an argmax set that depends on the values."""
    gates = [Gate(Kind.INPUT, index=k) for k in range(2 * d)]
    gates.append(Gate(Kind.MUL, (val, d + val)))
    return CircuitScore(Circuit(tuple(gates), (len(gates) - 1,), name="spy-score"))


def _with_spy(T: Transformer, read: bool) -> Transformer:
    d, val = T.dimension, T.coordinate("val")
    layers = []
    for layer in T.layers:
        act = _Extend(layer.activation)
        spy = act.inputs(d)
        outputs = list(layer.activation.outputs)
        if read:
            outputs[val] = act.gate(Kind.ADD, outputs[val], spy[val])
        layers.append(Layer(layer.heads + (Head("spy", _spy_score(d, val), Pooling.AVERAGE),), act.build(outputs),
                            layer.name))
    return replace(T, layers=tuple(layers))


def with_unused_head(T: Transformer) -> Transformer:
    return _with_spy(T, read=False)


def with_read_head(T: Transformer) -> Transformer:
    return _with_spy(T, read=True)


def scribble_last_layer(T: Transformer, readout: str = "val", also_readout: bool = False) -> Transformer:
    last = T.layers[-1]
    act = _Extend(last.activation)
    x_val = _input(last.activation, T.coordinate("val"))
    outputs = list(last.activation.outputs)
    for c, name in enumerate(T.coordinates):
        if name != readout or also_readout:
            outputs[c] = act.gate(Kind.ADD, outputs[c], act.junk(x_val))
    return replace(T, layers=T.layers[:-1] + (Layer(last.heads, act.build(outputs), last.name),))


def with_edge_layer(T: Transformer, also_gates: bool = False) -> Transformer:
    """One more layer (the last layer's heads, unread): val += (b − a [+ 1]) · junk."""
    last = T.layers[-1]
    d = T.dimension
    gates = [Gate(Kind.INPUT, index=k) for k in range(d * (1 + len(last.heads)))]
    act = _Extend(Circuit(tuple(gates), (), name="edge-layer"))
    a, b, v = (act.gates.index(Gate(Kind.INPUT, index=T.coordinate(c))) for c in ("a", "b", "val"))
    gap = act.gate(Kind.ADD, b, act.gate(Kind.MUL, act.const(-1), a))
    if also_gates:
        gap = act.gate(Kind.ADD, gap, act.const(1))
    outputs = list(range(d))
    outputs[T.coordinate("val")] = act.gate(Kind.ADD, v, act.gate(Kind.MUL, gap, act.junk(v)))
    return replace(T, layers=T.layers + (Layer(last.heads, act.build(outputs), "edge-junk"),))


def _insert_before(circuit: Circuit, at: int, build) -> Circuit:  # type: ignore[no-untyped-def]
    """The circuit with gates inserted just before gate ``at``: ``build(append)`` appends them (``append(gate)``
    returns the new gate's number) and returns the new first argument of gate ``at``."""
    gates = list(circuit.gates[:at])

    def append(gate: Gate) -> int:
        gates.append(gate)
        return len(gates) - 1

    first = build(append)
    shift = len(gates) - at
    renumber = {g: g if g < at else g + shift for g in range(len(circuit.gates))}
    for g in range(at, len(circuit.gates)):
        gate = circuit.gates[g]
        args = tuple(renumber[a] for a in gate.args)
        if g == at:
            args = (first, *args[1:])
        gates.append(replace(gate, args=args))
    return Circuit(tuple(gates), tuple(renumber[o] for o in circuit.outputs), name=circuit.name + "-edited")


def cap_add_fan_in(T: Transformer, cap: int = 64) -> Transformer:
    """The add's value reads min(code, cap) instead of its fan-in code (``add_value = code · mean``): wrong only
    for an add of fan-in > cap.  min(a, c) = a − (a − c)·(1 + sign(a − c))/2, exact for every a."""
    layers = []
    for layer in T.layers:
        act = layer.activation
        at = next((g for g, gate in enumerate(act.gates) if gate.name == "add_value"), None)
        if at is None:
            layers.append(layer)
            continue

        def clipped(append, a=act.gates[at].args[0]):  # type: ignore[no-untyped-def]
            minus_c = append(Gate(Kind.CONST, value=Fraction(-cap)))
            over = append(Gate(Kind.ADD, (a, minus_c)))
            s = append(Gate(Kind.SIGN, (over,)))
            one = append(Gate(Kind.CONST, value=Fraction(1)))
            half = append(Gate(Kind.CONST, value=Fraction(-1, 2)))
            cut = append(Gate(Kind.MUL, (half, over, append(Gate(Kind.ADD, (one, s))))))
            return append(Gate(Kind.ADD, (a, cut)))
        layers.append(Layer(layer.heads, _insert_before(act, at, clipped), layer.name))
    return replace(T, layers=tuple(layers))
