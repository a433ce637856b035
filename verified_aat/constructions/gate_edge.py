"""The gate/edge construction (MATH.md §4.1), average hard attention.

One position per gate and one per edge occurrence (multi-edges kept).  Five
coordinates (the paper uses 7 for Thm 4.5 and 9 for Thm 4.11):

=====  =====================================  ==============================
coord  gate g                                 edge u → v (slot s)
=====  =====================================  ==============================
op     add: fan-in k ≥ 0; mul −1; sign −2;    −4
       input/const −3
a      g (its id)                             u (source id)
b      g (its id)                             v (target id)
val    C_g(x) once settled                    C_u(x) once settled
sq     unused                                 C_u(x)² once settled
=====  =====================================  ==============================

Folding the fan-in into ``op`` saves the ``k`` coordinate; the activation
tells add codes (≥ 0) from the others with one sign gate, sign(2·op + 1).
``gate-edge-dot`` adds ``one`` (= 1), ``fa`` (= a² + [edge]) and ``gb``
(= b² + [gate]) so that both scores become bilinear forms (dimension 8).
"""

from __future__ import annotations

from fractions import Fraction

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from ..transformer.model import (BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer,
                                 activation_input_names, score_input_names)
from .base import Construction, RoleRule, ScoreHint
from .encoding import Encoding, Role
from .gadgets import (differs_indicator, equals_indicator, key_distance_score, operation_selectors,
                      operation_values, select_update, unary_circuit)

MUL, SIGN, KEEP, EDGE = -1, -2, -3, -4
NEGATIVE_CODES = (MUL, SIGN, KEEP, EDGE)


def gate_code(kind: Kind, fan_in: int) -> int:
    """The ``op`` code of a gate: its fan-in for add, a negative code otherwise."""
    if kind is Kind.ADD:
        return fan_in
    return {Kind.MUL: MUL, Kind.SIGN: SIGN, Kind.INPUT: KEEP, Kind.CONST: KEEP}[kind]


class GateEdge(Construction):
    """``gate-edge`` (general scores) and ``gate-edge-dot`` (bilinear scores)."""

    EDGE_CODE = EDGE
    CODES_DOC = (("add of fan-in k", "k (0, 1, 2, ...)"), ("mul", "-1"), ("sign", "-2"),
                 ("input, const", "-3 (keep)"), ("edge", "-4"))
    ARGMAX_DOC = {
        "fetch": "edge u→v: exactly the position of gate u (score 0; every other position scores ≤ −1). "
                 "gate g: g itself (score 0). Unique, so averaging is copying.",
        "gather": "gate g of fan-in k ≥ 1: exactly its k in-edge positions, multi-edges counted (score 0; g itself "
                  "scores −1). gate of fan-in 0: g itself plus any edge into gate g ± 1 (score −1); its value does "
                  "not depend on the pooled vector. edge u→v: all in-edges of v (ignored: edges keep).",
    }

    def layout_doc(self) -> dict[str, tuple[str, str]]:
        doc = {
            "op": ("operation code (table below); fan-in for add", "-4"),
            "a": ("its id (gate index)", "source id u"),
            "b": ("its id (gate index)", "target id v"),
            "val": ("C_g(x) from layer 2·depth(g) on; x_i / c initially for inputs / consts; 0 otherwise",
                    "C_u(x) from layer 2·depth(u)+1 on; 0 initially"),
            "sq": ("unused (0)", "C_u(x)² from layer 2·depth(u)+1 on; 0 initially"),
        }
        if self.dot:
            doc.update({"one": ("1", "1"), "fa": ("a² (= a² + [edge])", "a² + 1"),
                        "gb": ("b² + 1 (= b² + [gate])", "b²")})
        return doc

    def gate_code(self, kind: Kind, fan_in: int) -> int:
        return gate_code(kind, fan_in)

    def __init__(self, dot: bool = False):
        self.dot = dot
        self.name = "gate-edge-dot" if dot else "gate-edge"
        self.summary = ("FSAC⁰[sign] in 2K layers with dot-product attention scores" if dot
                        else "FSAC⁰[sign] in 2K layers with average hard attention")
        self.paper = ("semi-unbounded fan-in with standard dot-product attention (Thm 4.11 variant)" if dot
                      else "Thm 4.5 / 4.11: dimension 7 / 9, 2K layers")
        self.coordinates = ("op", "a", "b", "val", "sq") + (("one", "fa", "gb") if dot else ())
        self.structural = ("op", "a", "b") + (("one", "fa", "gb") if dot else ())

    # -- class -----------------------------------------------------------
    def check_class(self, circuit: Circuit) -> None:
        for index, gate in enumerate(circuit.gates):
            if gate.kind is Kind.MUL and gate.fan_in != 2:
                raise InputError(
                    f"{self.name} needs FSAC0[sign] (mul fan-in 2): gate '{circuit.gate_name(index)}' "
                    f"is a mul of fan-in {gate.fan_in} (use --binarize)")

    def layers(self, depth_bound: int) -> int:
        return 2 * depth_bound

    # -- transformer -----------------------------------------------------
    def transformer(self, depth_bound: int) -> Transformer:
        fetch = Layer((Head("fetch", self._score("a", True), Pooling.AVERAGE),), self._fetch_activation(), "fetch")
        gather = Layer((Head("gather", self._score("b", False), Pooling.AVERAGE),), self._gather_activation(),
                       "gather")
        layers = tuple(layer for _ in range(depth_bound) for layer in (fetch, gather))
        return Transformer(self.coordinates, layers, f"{self.name} K={depth_bound}")

    def _score(self, key: str, fetch: bool):
        """fetch: −(a_i − a_j)² − [j edge]; gather: −(b_i − b_j)² − [j gate]."""
        if self.dot:
            d = self.coordinates
            matrix = [[Fraction(0)] * len(d) for _ in d]
            matrix[d.index(key)][d.index(key)] = Fraction(2)
            matrix[d.index("one")][d.index("fa" if key == "a" else "gb")] = Fraction(-1)
            return BilinearScore(tuple(tuple(row) for row in matrix))
        b = CircuitBuilder(f"score-{key}")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        op_j = w["j.op"]
        penalty = (equals_indicator(b, op_j, self.EDGE_CODE, name="j_is_edge") if fetch
                   else differs_indicator(b, op_j, self.EDGE_CODE, name="j_is_gate"))
        b.output(key_distance_score(b, w[f"i.{key}"], w[f"j.{key}"], penalty), "score")
        return CircuitScore(b.build())

    def _activation_builder(self, head: str) -> tuple[CircuitBuilder, dict[str, int]]:
        b = CircuitBuilder(f"activation-{head}")
        wires = {n: b.input(n) for n in activation_input_names(self.coordinates, [head])}
        return b, wires

    def _finish(self, b: CircuitBuilder, wires: dict[str, int], new: dict[str, int]) -> Circuit:
        for coord in self.coordinates:
            b.output(new.get(coord, wires[f"x.{coord}"]), coord)
        return b.build()

    def _fetch_activation(self) -> Circuit:
        """Edges take the pooled (source) value and its square; gates keep."""
        b, w = self._activation_builder("fetch")
        is_edge = equals_indicator(b, w["x.op"], EDGE, name="is_edge")
        fetched = w["fetch.val"]
        val = select_update(b, w["x.val"], [(is_edge, fetched)], name="new_val")
        sq = select_update(b, w["x.sq"], [(is_edge, b.square(fetched, name="fetched_sq"))], name="new_sq")
        return self._finish(b, w, {"val": val, "sq": sq})

    def _gather_activation(self) -> Circuit:
        """Gates apply their operation to the pooled in-edge values."""
        b, w = self._activation_builder("gather")
        op, m1, m2 = w["x.op"], w["gather.val"], w["gather.sq"]
        selectors = operation_selectors(b, op, MUL, SIGN, NEGATIVE_CODES)
        values = operation_values(b, op, m1, m2)
        val = select_update(b, w["x.val"], list(zip(selectors, values)), name="new_val")
        return self._finish(b, w, {"val": val})

    # -- encoding ----------------------------------------------------------
    def encode(self, circuit: Circuit) -> Encoding:
        self.check_class(circuit)
        rows: list[tuple[Fraction, ...]] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []
        val = self.coordinates.index("val")
        for g, gate in enumerate(circuit.gates):
            value = gate.value if gate.kind is Kind.CONST else Fraction(0)
            rows.append(self._row(self.gate_code(gate.kind, gate.fan_in), g, g, value, is_edge=False))
            roles.append(Role("gate", g))
            if gate.kind is Kind.INPUT:
                slots.append((g, val, gate.index))  # type: ignore[arg-type]
        for v, gate in enumerate(circuit.gates):
            for s, u in enumerate(gate.args):
                rows.append(self._row(self.edge_code(s), u, v, Fraction(0), is_edge=True))
                roles.append(Role("edge", v, u, s))
        readout = tuple((o, val) for o in circuit.outputs)
        return Encoding(self.name, self.coordinates, tuple(rows), tuple(slots), readout, tuple(roles),
                        circuit.n_inputs)

    def edge_code(self, slot: int) -> int:
        """The ``op`` code of an edge in argument slot ``slot`` (one code for every slot here)."""
        return self.EDGE_CODE

    def _row(self, op: int, a: int, b: int, value: Fraction, is_edge: bool) -> tuple[Fraction | int, ...]:
        exact = value.numerator if value.denominator == 1 else value
        if self.dot:
            return (op, a, b, exact, 0, 1, a * a + int(is_edge), b * b + int(not is_edge))
        return (op, a, b, exact, 0)

    # -- intentions ----------------------------------------------------------
    def schedule_rules(self) -> dict[str, RoleRule]:
        """Gate g is right after layer 2·depth(g); edge u → v after 2·depth(u) + 1."""
        return {
            "gate": RoleRule(2, 0, "gate", (("val", "gate", 1),)),
            "edge": RoleRule(2, 1, "source", (("val", "source", 1), ("sq", "source", 2))),
        }

    def score_hints(self) -> dict[str, ScoreHint]:
        return {"fetch": self._hint("a", True), "gather": self._hint("b", False)}

    def _hint(self, key: str, fetch: bool) -> ScoreHint:
        names = [f"v.{c}" for c in self.coordinates]

        def unary(build) -> Circuit:  # type: ignore[no-untyped-def]
            return unary_circuit(names, build)

        key_circuit = unary(lambda b, w: w[f"v.{key}"])
        if self.dot:
            square_name = "fa" if key == "a" else "gb"
            penalty = unary(lambda b, w: b.sub(w[f"v.{square_name}"], b.square(w[f"v.{key}"])))
            return ScoreHint(key_circuit, key_circuit, penalty, (("one", Fraction(1)),))
        if fetch:
            penalty = unary(lambda b, w: equals_indicator(b, w["v.op"], self.EDGE_CODE, name="is_edge"))
        else:
            penalty = unary(lambda b, w: differs_indicator(b, w["v.op"], self.EDGE_CODE, name="is_gate"))
        return ScoreHint(key_circuit, key_circuit, penalty)
