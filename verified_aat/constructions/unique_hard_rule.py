"""``unique-hard-left`` / ``unique-hard-right``: FNC⁰[sign] with ONE unique-hard rule per transformer.

The paper's bounded fan-in construction uses leftmost **or** rightmost attention, one rule for the
whole transformer; ``unique-hard`` mixes a leftmost and a rightmost head in its gather layer.  Here
both gather heads use the same rule, and the argument slot is folded into the edge code instead
(slot-0 edges 6, slot-1 edges 7), so the dimension stays 4 (op, a, b, val):

* ``first``:  −(b_i − b_j)² − [j gate] − ½·[j is a slot-1 edge]
* ``second``: −(b_i − b_j)² − [j gate] − ½·[j is a slot-0 edge]

For a gate of fan-in 2 each head's maximum (0) is one edge, the operand of its slot; for fan-in 1
the single (slot-0) edge scores 0 or −½ and everything else ≤ −1.  Every argmax set that the
activation reads is a singleton, so leftmost and rightmost agree there and the rule is free.
"""

from __future__ import annotations

from fractions import Fraction

from ..circuits.builder import CircuitBuilder, Wire
from ..circuits.ir import Circuit
from ..transformer.model import CircuitScore, Head, Layer, Pooling, Transformer, score_input_names
from .base import ScoreHint
from .gadgets import equals_indicator, key_distance_score, select_update, unary_circuit
from .unique_hard import ADD0, ADD1, ADD2, EDGE, KEEP, MUL, SIGN, UniqueHard

EDGE0, EDGE1 = EDGE, EDGE + 1
CODES = (ADD0, ADD1, ADD2, MUL, SIGN, KEEP, EDGE0, EDGE1)


def _is_edge(b: CircuitBuilder, op: Wire) -> Wire:
    """[op ≥ 6] for the integer codes 0..7: (1 + sign(2·op − 11)) / 2 (one sign gate)."""
    t = b.sign(b.add(b.scale(2, op), b.const(-(2 * EDGE0 - 1))))
    return b.scale(Fraction(1, 2), b.add(b.const(1), t), name="is_edge")


def _gather_penalty(b: CircuitBuilder, op: Wire, avoid_slot: int) -> Wire:
    """[j gate] + ½·[j is an edge of slot ``avoid_slot``]."""
    is_gate = b.add(b.const(1), b.neg(_is_edge(b, op)), name="is_gate")
    wrong_slot = equals_indicator(b, op, EDGE0 + avoid_slot, name=f"is_slot{avoid_slot}_edge")
    return b.add(is_gate, b.scale(Fraction(1, 2), wrong_slot), name="penalty")


class UniqueHardOneRule(UniqueHard):
    """Fan-in ≤ 2 circuits, 2K layers, every head leftmost (or every head rightmost)."""

    GATHER_HEADS = ("first", "second")
    GATE_CODES = CODES
    CODES_DOC = UniqueHard.CODES_DOC[:-1] + (("edge in argument slot 0", "6"), ("edge in argument slot 1", "7"))

    def __init__(self, pooling: Pooling) -> None:
        super().__init__()
        assert pooling in (Pooling.LEFTMOST, Pooling.RIGHTMOST)
        self.pooling = pooling
        side = "left" if pooling is Pooling.LEFTMOST else "right"
        self.name = f"unique-hard-{side}"
        self.summary = f"FNC⁰[sign] in 2K layers with {pooling.value} unique hard attention only"
        self.paper = f"bounded fan-in with {pooling.value} unique hard attention (one rule per transformer, as in the paper)"
        only = f"unique, so {pooling.value} = that position"
        self.ARGMAX_DOC = {
            "fetch": f"edge u→v: exactly gate u ({only}). gate g: g itself.",
            "first": f"gate g of fan-in 1 or 2: exactly its slot-0 in-edge ({only}). fan-in 0: not read. "
                     "edges: not read.",
            "second": f"gate g of fan-in 2: exactly its slot-1 in-edge; fan-in 1: its single in-edge (score −½, "
                      f"all else ≤ −1; {only}). fan-in 0: not read. edges: not read.",
        }

    def layout_doc(self) -> dict[str, tuple[str, str]]:
        doc = super().layout_doc()
        doc["op"] = ("operation code (table below)", "6 in argument slot 0, 7 in slot 1")
        return doc

    def edge_code(self, slot: int) -> int:
        return EDGE0 + slot

    def transformer(self, depth_bound: int) -> Transformer:
        fetch = Layer((Head("fetch", self._fetch_score(), self.pooling),), self._fetch_activation(), "fetch")
        gather = Layer((Head("first", self._gather_score(1), self.pooling),
                        Head("second", self._gather_score(0), self.pooling)), self._gather_activation(), "gather")
        layers = tuple(layer for _ in range(depth_bound) for layer in (fetch, gather))
        return Transformer(self.coordinates, layers, f"{self.name} K={depth_bound}")

    def _fetch_score(self) -> CircuitScore:
        b = CircuitBuilder("score-a")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.a"], w["j.a"], _is_edge(b, w["j.op"])), "score")
        return CircuitScore(b.build())

    def _gather_score(self, avoid_slot: int) -> CircuitScore:
        b = CircuitBuilder("score-b")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.b"], w["j.b"], _gather_penalty(b, w["j.op"], avoid_slot)), "score")
        return CircuitScore(b.build())

    def _fetch_activation(self) -> Circuit:
        b, w = self._activation_builder("fetch")
        val = select_update(b, w["x.val"], [(_is_edge(b, w["x.op"]), w["fetch.val"])], name="new_val")
        return self._finish(b, w, {"val": val})

    def score_hints(self) -> dict[str, ScoreHint]:
        names = [f"v.{c}" for c in self.coordinates]

        def hint(key: str, penalty) -> ScoreHint:  # type: ignore[no-untyped-def]
            key_circuit = unary_circuit(names, lambda b, w: w[f"v.{key}"])
            return ScoreHint(key_circuit, key_circuit, unary_circuit(names, penalty))

        return {"fetch": hint("a", lambda b, w: _is_edge(b, w["v.op"])),
                "first": hint("b", lambda b, w: _gather_penalty(b, w["v.op"], 1)),
                "second": hint("b", lambda b, w: _gather_penalty(b, w["v.op"], 0))}


__all__ = ["UniqueHardOneRule"]
