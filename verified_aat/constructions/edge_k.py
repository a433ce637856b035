"""``edge-k`` (MATH.md §4.2, layout (c), beyond the paper): exactly K layers, dimension 4, two heads.

Positions are the edges only (multi-edges kept), plus one *sink* edge g → ⊥ per distinct
output gate, as in ``edge-only``.  Edge u → v in argument slot s carries u's operation code
with the slot bit t = [s ≥ 1] folded into its sign, op = (2t − 1)·(code(u) + 10) (sinks:
t = 0), the ids u and v, and from layer depth(u) on C_u(x).  Every layer is the same:

- head ``all``: score −(src_i − tgt_j)², so edge e = (u → v) averages the values of u's k
  in-edges: m = mean;
- head ``first``: score −(src_i − tgt_j)² − (1 + sign(op_j)), so e reads the value a of u's
  slot-0 in-edge alone (slot-1 edges pay a penalty of 2);
- activation: add k·m, mul a·(2m − a) (= a·b, since m = (a + b)/2), sign sign(m);
  input and const keep.

Why K and not K + 1 layers (``edge-only``): the product needs no square of an operand, so
the edges out of inputs are right in the encoding itself and a gate of depth d is right
after layer d.  The claims are those of ``edge-only`` without ``sq``; the slot lives in the
structure (the sign of ``op``), so no claim depends on it.
"""

from __future__ import annotations

from fractions import Fraction

from ..circuits.builder import CircuitBuilder, Wire
from ..circuits.ir import Circuit, Gate
from ..transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer, activation_input_names,
                                 score_input_names)
from .base import RoleRule, ScoreHint
from .edge_only import CODES, EdgeOnly
from .gadgets import key_distance_score, operation_selectors, select_update, unary_circuit
from .gate_edge import MUL, SIGN, gate_code

OFFSET = 10  # code(u) + OFFSET > 0 for every code (the smallest is −3), so sign(op) is the slot bit


def slot_code(gate: Gate, slot: int | None) -> int:
    """op = (2t − 1)·(code + 10) with t = [slot ≥ 1]; a sink (slot None) has t = 0."""
    t = 1 if slot is not None and slot >= 1 else 0
    return (2 * t - 1) * (gate_code(gate.kind, gate.fan_in) + OFFSET)


class EdgeK(EdgeOnly):
    """FSAC⁰[sign] circuits of depth ≤ K in exactly K layers, edge positions only."""

    name = "edge-k"
    summary = "FSAC⁰[sign] in exactly K layers with average hard attention, edges only, two heads"
    paper = "not in the paper (MATH.md §4.2 layout (c)); the paper's constructions use 2K layers"
    coordinates = ("op", "src", "tgt", "val")
    structural = ("op", "src", "tgt")
    CODES_DOC = (("source is an add of fan-in k", "±(k + 10)"), ("source is a mul", "±9"),
                 ("source is a sign", "±8"), ("source is an input or const", "±7 (keep)"),
                 ("sign of `op`", "− for argument slot 0 and sink edges, + for slots ≥ 1"))
    ARGMAX_DOC = {
        "all": "edge u→v with u of fan-in k ≥ 1: exactly u's k in-edges, multi-edges counted (score 0). "
               "u of fan-in 0 (input, const, empty add): the edges whose target is nearest to u "
               "(not read: keep, or 0·mean).",
        "first": "edge u→v with u of fan-in k ≥ 1: exactly u's slot-0 in-edge (score 0; slot-1 in-edges score −2). "
                 "u of fan-in 0: not read."}

    def layout_doc(self) -> dict[str, tuple[str, str]]:
        return {"op": ("—", "±(operation code of the source u + 10), sign = slot bit (table below)"),
                "src": ("—", "source id u"), "tgt": ("—", "target id v (sink edges: -1)"),
                "val": ("—", "C_u(x) from layer depth(u) on (inputs and consts: in the encoding)")}

    def layers(self, depth_bound: int) -> int:
        return depth_bound

    def transformer(self, depth_bound: int) -> Transformer:
        heads = (Head("all", self._score(slot_penalty=False), Pooling.AVERAGE),
                 Head("first", self._score(slot_penalty=True), Pooling.AVERAGE))
        layer = Layer(heads, self._activation(), "step")
        return Transformer(self.coordinates, (layer,) * self.layers(depth_bound), f"{self.name} K={depth_bound}")

    def _score(self, slot_penalty: bool) -> CircuitScore:
        """−(src_i − tgt_j)², minus 1 + sign(op_j) (0 on slot 0, 2 on slot 1) for ``first``."""
        b = CircuitBuilder("score-first" if slot_penalty else "score-all")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        penalty = b.add(b.const(1), b.sign(w["j.op"]), name="slot_penalty") if slot_penalty else b.const(0)
        b.output(key_distance_score(b, w["i.src"], w["j.tgt"], penalty), "score")
        return CircuitScore(b.build())

    def _activation(self) -> Circuit:
        """Unfold the code (|op| − 10), then add k·m, mul a·(2m − a), sign sign(m); keep otherwise."""
        b = CircuitBuilder("activation-step")
        w = {n: b.input(n) for n in activation_input_names(self.coordinates, ["all", "first"])}
        code = self.code(b, w["x.op"])
        selectors = operation_selectors(b, code, MUL, SIGN, CODES)
        values = self.values(b, code, w["all.val"], w["first.val"])
        val = select_update(b, w["x.val"], list(zip(selectors, values)), name="new_val")
        for coord in self.coordinates:
            b.output(val if coord == "val" else w[f"x.{coord}"], coord)
        return b.build()

    def code(self, b: CircuitBuilder, op: Wire) -> Wire:
        """The source's code |op| − 10 = sign(op)·op − 10 (the slot bit is the sign of op)."""
        return b.add(b.mul(b.sign(op), op), b.const(-OFFSET), name="code")

    def values(self, b: CircuitBuilder, code: Wire, m: Wire, a: Wire) -> tuple[Wire, Wire, Wire]:
        """(add, mul, sign) from the mean m of all in-edges and the slot-0 value a."""
        return (b.mul(code, m, name="add_value"), b.mul(a, b.sub(b.scale(2, m), a), name="mul_value"),
                b.sign(m, name="sign_value"))

    def row(self, gate: Gate, source: int, target: int, slot: int | None, value: Fraction | int) -> tuple:
        return (slot_code(gate, slot), source, target, value)

    def schedule_rules(self) -> dict[str, RoleRule]:
        claims = (("val", "source", 1),)
        return {"edge": RoleRule(1, 0, "source", claims), "sink": RoleRule(1, 0, "source", claims)}

    def score_hints(self) -> dict[str, ScoreHint]:
        names = [f"v.{c}" for c in self.coordinates]
        src = unary_circuit(names, lambda b, w: w["v.src"])
        tgt = unary_circuit(names, lambda b, w: w["v.tgt"])
        return {"all": ScoreHint(src, tgt, unary_circuit(names, lambda b, w: b.const(0))),
                "first": ScoreHint(src, tgt, unary_circuit(names, lambda b, w: b.add(b.const(1), b.sign(w["v.op"]))))}
