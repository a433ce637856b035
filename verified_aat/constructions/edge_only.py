"""``edge-only`` (MATH.md §4.2, beyond the paper): K + 1 layers instead of 2K.

Positions are the edges only (multi-edges kept), plus one *sink* edge g → ⊥
per distinct output gate.  Edge u → v carries u's operation code, its ids
and, once settled, C_u(x) and C_u(x)².  Every layer is the same: edge e
attends to the edges whose target is e's source, averages their values and
squares, and applies u's operation (add: k·mean, mul: 2·m1² − m2, sign:
sign(m1)); edges out of inputs and constants keep their value.  Then
sq ← val².

Why K + 1 and not K: a product needs the mean of its operands' squares,
and the encoding may only *place* x_i, not compute x_i²; so the edges out
of inputs carry their square only after layer 1, and a gate of depth d ≥ 1
is right after layer d + 1.  (Constants' squares are part of the structure.)
"""

from __future__ import annotations

from fractions import Fraction

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Gate, Kind
from ..errors import InputError
from ..transformer.model import CircuitScore, Head, Layer, Pooling, Transformer, score_input_names
from .base import Construction, RoleRule, ScoreHint
from .encoding import Encoding, Role
from .gadgets import key_distance_score, operation_selectors, operation_values, select_update, unary_circuit
from .gate_edge import KEEP, MUL, SIGN, gate_code

SINK = -1  # target id of sink edges: no gate has it
CODES = (MUL, SIGN, KEEP)


class EdgeOnly(Construction):
    name = "edge-only"
    summary = "FSAC⁰[sign] in K + 1 layers with average hard attention, edges only"
    paper = "not in the paper (MATH.md §4.2); the paper's constructions use 2K layers"
    coordinates = ("op", "src", "tgt", "val", "sq")
    structural = ("op", "src", "tgt")
    CODES_DOC = (("source is an add of fan-in k", "k (0, 1, 2, ...)"), ("source is a mul", "-1"),
                 ("source is a sign", "-2"), ("source is an input or const", "-3 (keep)"))
    POSITIONS_DOC = ("Positions: for every gate v and argument slot s the edge (arg_s(v) → v), multi-edges kept; "
                     "then one sink edge (g → ⊥) per distinct output gate g. Gates have no positions.")
    READOUT_DOC = "output gate g is read at its sink edge, coordinate `val`, after the last layer."
    ARGMAX_DOC = {"pred": "edge u→v with u of fan-in k ≥ 1: exactly u's k in-edges, multi-edges counted (score 0). "
                          "u of fan-in 0 (input, const, empty add): the edges whose target is nearest to u "
                          "(not read: keep, or 0·mean)."}

    def layout_doc(self) -> dict[str, tuple[str, str]]:
        return {"op": ("—", "operation code of the source u (table below)"),
                "src": ("—", "source id u"), "tgt": ("—", "target id v (sink edges: -1)"),
                "val": ("—", "C_u(x) from layer depth(u)+1 on (inputs and consts: from the start)"),
                "sq": ("—", "C_u(x)² from layer depth(u)+1 on (consts: from the start; inputs: after layer 1)")}

    def check_class(self, circuit: Circuit) -> None:
        for index, gate in enumerate(circuit.gates):
            if gate.kind is Kind.MUL and gate.fan_in != 2:
                raise InputError(f"{self.name} needs FSAC0[sign] (mul fan-in 2): gate '{circuit.gate_name(index)}' "
                                 f"is a mul of fan-in {gate.fan_in} (use --binarize)")

    def layers(self, depth_bound: int) -> int:
        return depth_bound + 1

    def transformer(self, depth_bound: int) -> Transformer:
        b = CircuitBuilder("score-pred")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.src"], w["j.tgt"], b.const(0)), "score")
        layer = Layer((Head("pred", CircuitScore(b.build()), Pooling.AVERAGE),), self._activation(), "step")
        return Transformer(self.coordinates, (layer,) * self.layers(depth_bound), f"{self.name} K={depth_bound}")

    def _activation(self) -> Circuit:
        from ..transformer.model import activation_input_names

        b = CircuitBuilder("activation-step")
        w = {n: b.input(n) for n in activation_input_names(self.coordinates, ["pred"])}
        op, m1, m2 = w["x.op"], w["pred.val"], w["pred.sq"]
        selectors = operation_selectors(b, op, MUL, SIGN, CODES)
        values = operation_values(b, op, m1, m2)
        val = select_update(b, w["x.val"], list(zip(selectors, values)), name="new_val")
        sq = b.square(val, name="new_sq")
        for coord in self.coordinates:
            b.output({"val": val, "sq": sq}.get(coord, w[f"x.{coord}"]), coord)
        return b.build()

    def encode(self, circuit: Circuit) -> Encoding:
        self.check_class(circuit)
        rows, roles, slots = [], [], []
        val = self.coordinates.index("val")

        def edge(u: int, target: int, role: Role) -> None:
            gate = circuit.gates[u]
            c = gate.value if gate.kind is Kind.CONST else Fraction(0)
            rows.append(self.row(gate, u, target, role.slot, c.numerator if c.denominator == 1 else c))
            if gate.kind is Kind.INPUT:
                slots.append((len(rows) - 1, val, gate.index))
            roles.append(role)

        for v, gate in enumerate(circuit.gates):
            for s, u in enumerate(gate.args):
                edge(u, v, Role("edge", v, u, s))
        sink_of: dict[int, int] = {}
        for g in circuit.outputs:
            if g not in sink_of:
                sink_of[g] = len(rows)
                edge(g, SINK, Role("sink", g, g, None))
        readout = tuple((sink_of[g], val) for g in circuit.outputs)
        return Encoding(self.name, self.coordinates, tuple(rows), tuple(slots), readout, tuple(roles),
                        circuit.n_inputs)

    def row(self, gate: Gate, source: int, target: int, slot: int | None, value: Fraction | int) -> tuple:
        """The encoded row of edge source → target in argument slot ``slot`` (sinks: None)."""
        return (gate_code(gate.kind, gate.fan_in), source, target, value, value * value)

    def schedule_rules(self) -> dict[str, RoleRule]:
        claims = (("val", "source", 1), ("sq", "source", 2))
        early = (("input", "val", -1), ("const", "val", -1), ("const", "sq", -1))
        return {"edge": RoleRule(1, 1, "source", claims, early), "sink": RoleRule(1, 1, "source", claims, early)}

    def score_hints(self) -> dict[str, ScoreHint]:
        names = [f"v.{c}" for c in self.coordinates]
        return {"pred": ScoreHint(unary_circuit(names, lambda b, w: w["v.src"]),
                                  unary_circuit(names, lambda b, w: w["v.tgt"]),
                                  unary_circuit(names, lambda b, w: b.const(0)))}
