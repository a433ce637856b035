"""``unique-hard``: bounded fan-in (FNC⁰[sign]) with leftmost/rightmost unique
hard attention and no averaging.

Same layout as ``gate-edge`` but four coordinates (op, a, b, val): the fan-in
is at most 2, so it folds into a finite set of codes and the gather layer
reads a gate's first in-edge with a leftmost head and its second with a
rightmost head (both are the single edge when the fan-in is 1).  Products
need no ``sq`` coordinate: the two operands arrive separately.
"""

from __future__ import annotations

from fractions import Fraction

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from ..transformer.model import Head, Layer, Pooling, Transformer
from ..wording import article
from .base import RoleRule
from .gadgets import lagrange_indicator, select_update
from .gate_edge import GateEdge

ADD0, ADD1, ADD2, MUL, SIGN, KEEP, EDGE = range(7)
CODES = (ADD0, ADD1, ADD2, MUL, SIGN, KEEP, EDGE)


class UniqueHard(GateEdge):
    """Fan-in ≤ 2 circuits, leftmost/rightmost hard attention, 2K layers."""

    EDGE_CODE = EDGE
    bounded_fan_in = True
    GATHER_HEADS = ("left", "right")  # the heads whose pooled val is operand 1 and operand 2
    GATE_CODES: tuple[int, ...] = CODES  # every op code that occurs (gates and edges)
    CODES_DOC = (("add of fan-in 0", "0"), ("add of fan-in 1", "1"), ("add of fan-in 2", "2"), ("mul", "3"),
                 ("sign", "4"), ("input, const", "5 (keep)"), ("edge", "6"))
    ARGMAX_DOC = {
        "fetch": "edge u→v: exactly gate u (unique, so leftmost = rightmost = u). gate g: g itself.",
        "left": "gate g of fan-in 1 or 2: its in-edges; leftmost = the edge of its first argument. "
                "fan-in 0: g and stray edges (not read). edges: in-edges of their target (not read).",
        "right": "as `left`; rightmost = the edge of its second argument (the first, when the fan-in is 1).",
    }

    def layout_doc(self) -> dict[str, tuple[str, str]]:
        doc = super().layout_doc()
        doc["op"] = ("operation code (table below)", "6")
        doc.pop("sq")
        return doc

    def __init__(self) -> None:
        super().__init__(dot=False)
        self.name = "unique-hard"
        self.summary = "FNC⁰[sign] in 2K layers with leftmost/rightmost unique hard attention"
        self.paper = "bounded fan-in with leftmost or rightmost unique hard attention"
        self.coordinates = ("op", "a", "b", "val")
        self.structural = ("op", "a", "b")

    def check_class(self, circuit: Circuit) -> None:
        for index, gate in enumerate(circuit.gates):
            if gate.fan_in > 2:
                raise InputError(
                    f"{self.name} needs FNC0[sign] (every fan-in ≤ 2): gate '{circuit.gate_name(index)}' "
                    f"is {article(gate.kind.value)} of fan-in {gate.fan_in} (use --binarize)")

    def gate_code(self, kind: Kind, fan_in: int) -> int:
        if kind is Kind.ADD:
            return (ADD0, ADD1, ADD2)[fan_in]
        return {Kind.MUL: MUL, Kind.SIGN: SIGN, Kind.INPUT: KEEP, Kind.CONST: KEEP}[kind]

    def transformer(self, depth_bound: int) -> Transformer:
        fetch_score = self._score("a", True)
        gather_score = self._score("b", False)
        fetch = Layer((Head("fetch", fetch_score, Pooling.LEFTMOST),), self._fetch_activation(), "fetch")
        gather = Layer((Head("left", gather_score, Pooling.LEFTMOST), Head("right", gather_score, Pooling.RIGHTMOST)),
                       self._gather_activation(), "gather")
        layers = tuple(layer for _ in range(depth_bound) for layer in (fetch, gather))
        return Transformer(self.coordinates, layers, f"{self.name} K={depth_bound}")

    def _fetch_activation(self) -> Circuit:
        b, w = self._activation_builder("fetch")
        is_edge = lagrange_indicator(b, w["x.op"], EDGE, CODES, name="is_edge")
        val = select_update(b, w["x.val"], [(is_edge, w["fetch.val"])], name="new_val")
        return self._finish(b, w, {"val": val})

    def _gather_activation(self) -> Circuit:
        b = CircuitBuilder("activation-gather")
        from ..transformer.model import activation_input_names
        first, second = self.GATHER_HEADS
        w = {n: b.input(n) for n in activation_input_names(self.coordinates, [first, second])}
        op, v1, v2 = w["x.op"], w[f"{first}.val"], w[f"{second}.val"]
        cases = [
            (lagrange_indicator(b, op, ADD0, self.GATE_CODES, name="is_add0"), b.const(0)),
            (lagrange_indicator(b, op, ADD1, self.GATE_CODES, name="is_add1"), v1),
            (lagrange_indicator(b, op, ADD2, self.GATE_CODES, name="is_add2"), b.add(v1, v2, name="sum")),
            (lagrange_indicator(b, op, MUL, self.GATE_CODES, name="is_mul"), b.mul(v1, v2, name="product")),
            (lagrange_indicator(b, op, SIGN, self.GATE_CODES, name="is_sign"), b.sign(v1, name="sign_value")),
        ]
        val = select_update(b, w["x.val"], cases, name="new_val")
        return self._finish(b, w, {"val": val})

    def _row(self, op: int, a: int, b: int, value: Fraction, is_edge: bool) -> tuple[Fraction | int, ...]:
        return (op, a, b, value.numerator if value.denominator == 1 else value)

    def schedule_rules(self) -> dict[str, RoleRule]:
        return {
            "gate": RoleRule(2, 0, "gate", (("val", "gate", 1),)),
            "edge": RoleRule(2, 1, "source", (("val", "source", 1),)),
        }

    def score_hints(self):
        hints = super().score_hints()
        return {"fetch": hints["fetch"], "left": hints["gather"], "right": hints["gather"]}


__all__ = ["UniqueHard"]
