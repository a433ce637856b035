"""Deliberately wrong (and two harmless) variants of the constructions.

Each mutant changes one thing a careless construction might get wrong.  The
soundness tests certify them: every wrong one must be *refuted* with a
replayed counterexample, every harmless one must be *proved*.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.ir import Circuit, Kind
from verified_aat.constructions.encoding import Encoding, Role
from verified_aat.constructions.gadgets import (differs_indicator, equals_indicator, key_distance_score,
                                                lagrange_indicator, operation_selectors, operation_values,
                                                select_update)
from verified_aat.constructions.edge_k import EdgeK
from verified_aat.constructions.gate_edge import EDGE, MUL, NEGATIVE_CODES, SIGN, GateEdge
from verified_aat.constructions.unique_hard import UniqueHard
from verified_aat.transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer, score_input_names)


class _GatherMutant(GateEdge):
    """gate-edge with a changed gather activation; subclasses override ``values``."""

    def values(self, b, op, m1, m2):
        return operation_values(b, op, m1, m2)

    def selectors(self, b, op):
        return operation_selectors(b, op, MUL, SIGN, NEGATIVE_CODES)

    def _gather_activation(self) -> Circuit:
        b, w = self._activation_builder("gather")
        op, m1, m2 = w["x.op"], w["gather.val"], w["gather.sq"]
        values = self.values(b, op, m1, m2)
        val = select_update(b, w["x.val"], list(zip(self.selectors(b, op), values)))
        return self._finish(b, w, {"val": val})


class MissingRescaling(_GatherMutant):
    """add reads the mean of its inputs, not k · mean."""

    def values(self, b, op, m1, m2):
        _, mul_value, sign_value = super().values(b, op, m1, m2)
        return m1, mul_value, sign_value


class SquareOfMean(_GatherMutant):
    """mul as m1² instead of 2·m1² − m2."""

    def values(self, b, op, m1, m2):
        add_value, _, sign_value = super().values(b, op, m1, m2)
        return add_value, b.square(m1), sign_value


class WrongPolarization(_GatherMutant):
    """mul as 2·m1² + m2."""

    def values(self, b, op, m1, m2):
        add_value, _, sign_value = super().values(b, op, m1, m2)
        return add_value, b.add(b.scale(2, b.square(m1)), m2), sign_value


class SignOfZeroIsOne(_GatherMutant):
    """sign(0) = 1: sign(v) + 1 − sign(v)²."""

    def values(self, b, op, m1, m2):
        add_value, mul_value, _ = super().values(b, op, m1, m2)
        s = b.sign(m1)
        return add_value, mul_value, b.add(s, b.const(1), b.neg(b.square(s)))


class SwappedCodes(_GatherMutant):
    """mul and sign selectors swapped."""

    def selectors(self, b, op):
        is_add, is_mul, is_sign = super().selectors(b, op)
        return is_add, is_sign, is_mul


class AddTestOffByOne(_GatherMutant):
    """add recognised by sign(op) instead of sign(2·op + 1): fan-in 0 adds go wrong."""

    def selectors(self, b, op):
        t = b.sign(op)
        is_add = b.scale(Fraction(1, 2), b.add(b.const(1), t))
        not_add = b.scale(Fraction(1, 2), b.add(b.const(1), b.neg(t)))
        return (is_add, b.mul(not_add, lagrange_indicator(b, op, MUL, NEGATIVE_CODES)),
                b.mul(not_add, lagrange_indicator(b, op, SIGN, NEGATIVE_CODES)))


class SignOfDoubleMean(_GatherMutant):
    """Harmless: sign(2·mean) = sign(mean)."""

    def values(self, b, op, m1, m2):
        add_value, mul_value, _ = super().values(b, op, m1, m2)
        return add_value, mul_value, b.sign(b.scale(2, m1))


class SignOfSum(_GatherMutant):
    """Harmless: sign of the sum k·mean (k ≥ 1 for sign gates) instead of sign of the mean."""

    def values(self, b, op, m1, m2):
        add_value, mul_value, _ = super().values(b, op, m1, m2)
        count = b.add(b.scale(-1, op), b.const(-1))  # sign gates have op = −2: count = 1
        return add_value, mul_value, b.sign(b.mul(count, m1))


class NoFetchPenalty(GateEdge):
    """fetch score −(a_i − a_j)²: edges also attend to their sibling edges."""

    def _score(self, key, fetch):
        if not fetch:
            return super()._score(key, fetch)
        b = CircuitBuilder("score")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.a"], w["j.a"], b.const(0)))
        return CircuitScore(b.build())


class NoGatherPenalty(GateEdge):
    """gather score −(b_i − b_j)²: a gate also averages in its own stale value."""

    def _score(self, key, fetch):
        if fetch:
            return super()._score(key, fetch)
        b = CircuitBuilder("score")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.b"], w["j.b"], b.const(0)))
        return CircuitScore(b.build())


class FetchCopiesSq(GateEdge):
    """edges copy the source's sq instead of squaring its value."""

    def _fetch_activation(self) -> Circuit:
        b, w = self._activation_builder("fetch")
        is_edge = equals_indicator(b, w["x.op"], EDGE)
        val = select_update(b, w["x.val"], [(is_edge, w["fetch.val"])])
        sq = select_update(b, w["x.sq"], [(is_edge, w["fetch.sq"])])
        return self._finish(b, w, {"val": val, "sq": sq})


class OneLayerShort(GateEdge):
    """T_K with 2K − 1 layers."""

    def transformer(self, depth_bound: int) -> Transformer:
        t = super().transformer(depth_bound)
        return replace(t, layers=t.layers[:-1])


class MergedMultiEdges(GateEdge):
    """one edge per distinct predecessor, fan-in counted without multiplicity."""

    def encode(self, circuit: Circuit) -> Encoding:
        enc = super().encode(circuit)
        rows, roles = list(enc.rows), list(enc.roles)
        keep, seen = [], set()
        for p, role in enumerate(roles):
            if role.kind == "edge":
                if (role.source, role.gate) in seen:
                    continue
                seen.add((role.source, role.gate))
            keep.append(p)
        op = self.coordinates.index("op")
        new_rows = []
        for p in keep:
            row = list(rows[p])
            role = roles[p]
            gate = circuit.gates[role.gate]
            if role.kind == "gate" and gate.kind is Kind.ADD:
                row[op] = Fraction(len(set(gate.args)))
            new_rows.append(tuple(row))
        index = {old: new for new, old in enumerate(keep)}
        return Encoding(enc.construction, enc.coordinates, tuple(new_rows),
                        tuple((index[p], c, i) for p, c, i in enc.input_slots),
                        tuple((index[p], c) for p, c in enc.readout), tuple(roles[p] for p in keep), enc.n_inputs)


class UniqueHardAverageLeft(UniqueHard):
    """unique-hard whose 'left' head averages instead of taking the leftmost edge."""

    def transformer(self, depth_bound: int) -> Transformer:
        t = super().transformer(depth_bound)
        layers = []
        for layer in t.layers:
            heads = tuple(replace(h, pooling=Pooling.AVERAGE) if h.name == "left" else h for h in layer.heads)
            layers.append(replace(layer, heads=heads))
        return replace(t, layers=tuple(layers))


class EdgeKDoubleProduct(EdgeK):
    """edge-k with mul = 2·a·m (the product of the two means, doubled) instead of a·(2m − a)."""

    def values(self, b, code, m, a):
        add_value, _, sign_value = super().values(b, code, m, a)
        return add_value, b.scale(2, b.mul(a, m)), sign_value


class EdgeKSlotIgnored(EdgeK):
    """edge-k whose ``first`` head ignores the slot bit: it averages all in-edges, so a = m."""

    def _score(self, slot_penalty):
        return super()._score(slot_penalty=False)


class EdgeKUnsignedCode(EdgeK):
    """edge-k that reads the code as op − 10, forgetting that the sign of op is the slot bit."""

    def code(self, b, op):
        return b.add(op, b.const(-10))


class EdgeKMissingRescaling(EdgeK):
    """edge-k with add = mean instead of k·mean."""

    def values(self, b, code, m, a):
        _, mul_value, sign_value = super().values(b, code, m, a)
        return m, mul_value, sign_value


class EdgeKOneLayerShort(EdgeK):
    """edge-k with K − 1 layers: the deepest gates are never computed."""

    def transformer(self, depth_bound: int) -> Transformer:
        t = super().transformer(depth_bound)
        return replace(t, layers=t.layers[:-1])


class EdgeKSecondSlot(EdgeK):
    """Harmless: ``first`` reads the slot-1 in-edge b instead (penalty 1 − sign(op)); b·(2m − b) = a·b too."""

    def _score(self, slot_penalty):
        if not slot_penalty:
            return super()._score(slot_penalty)
        b = CircuitBuilder("score-second")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        b.output(key_distance_score(b, w["i.src"], w["j.tgt"], b.sub(b.const(1), b.sign(w["j.op"]))))
        return CircuitScore(b.build())


# EdgeKOneLayerShort is not listed: its K − 1 layers are exactly T_{K−1}, right for every circuit of depth
# ≤ K − 1, so only certify with a depth-K circuit refutes it (tests/test_edge_k.py), not refute's search.
EDGE_K_WRONG = [EdgeKDoubleProduct, EdgeKSlotIgnored, EdgeKUnsignedCode, EdgeKMissingRescaling]
WRONG = [MissingRescaling, SquareOfMean, WrongPolarization, SignOfZeroIsOne, SwappedCodes, AddTestOffByOne,
         NoFetchPenalty, NoGatherPenalty, FetchCopiesSq, OneLayerShort, MergedMultiEdges, UniqueHardAverageLeft,
         *EDGE_K_WRONG]
HARMLESS = [SignOfDoubleMean, SignOfSum, EdgeKSecondSlot]


def probe_circuit() -> Circuit:
    """A small circuit that exercises every gate kind and edge case."""
    b = CircuitBuilder("probe")
    x, y, z = b.input("x"), b.input("y"), b.input("z")
    xy = b.mul(x, y, name="xy")
    xx = b.mul(x, x, name="xx")
    s = b.add(xy, xx, z, z, name="s")
    empty = b.add(name="empty")
    zero = b.add(x, b.neg(x), name="zero")
    sg0 = b.sign(zero, name="sign0")
    sgs = b.sign(s, name="signs")
    third = b.mul(sgs, b.const(Fraction(-3, 4)), name="third")
    top = b.add(third, empty, sg0, name="top")
    for out in (s, empty, sg0, top, x, s):
        b.output(out)
    return b.build()


def probe_fnc_circuit() -> Circuit:
    """A fan-in ≤ 2 circuit for unique-hard mutants."""
    b = CircuitBuilder("probe-fnc")
    x, y = b.input("x"), b.input("y")
    s = b.add(x, y, name="s")
    p = b.mul(s, y, name="p")
    q = b.add(p, x, name="q")
    b.output(q)
    b.output(b.sign(q))
    return b.build()


__all__ = ["WRONG", "HARMLESS", "probe_circuit", "probe_fnc_circuit", "Role", "differs_indicator", "Head", "Layer"]


class WrongOnlyAtRootTwo(_GatherMutant):
    """sign(v) + [v² = 2]: right on every rational, wrong at v = ±√2 (MATH.md §1)."""

    def values(self, b, op, m1, m2):
        add_value, mul_value, _ = super().values(b, op, m1, m2)
        off = b.add(b.square(m1), b.const(-2))
        at_root = b.add(b.const(1), b.neg(b.sign(b.square(off))))
        return add_value, mul_value, b.add(b.sign(m1), at_root)


def sign_circuit() -> Circuit:
    b = CircuitBuilder("sign-only")
    b.output(b.sign(b.input("x")))
    return b.build()
