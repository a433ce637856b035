"""The checker's own derivation of every obligation (docs/certificates.md).

Written independently of ``verified_aat.symbolic``: it shares only the IR,
the parsers and the SMT-LIB printer, and re-derives from the circuit, the
transformer and the encoding which lemma each position needs.
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from typing import Any, Sequence

from ..circuits.evaluate import compile_circuit
from ..circuits.ir import Circuit, Kind
from ..circuits.smtlib import LOGIC, SGN_DEFINITION, circuit_term, define_fun, numeral, smt_symbol
from ..transformer.model import CircuitScore, Pooling, Transformer, activation_input_names


def depths(circuit: Circuit) -> list[int]:
    out: list[int] = []
    for gate in circuit.gates:
        if gate.kind in (Kind.INPUT, Kind.CONST):
            out.append(0)
        else:
            out.append(1 + max((out[a] for a in gate.args), default=0))
    return out


def cone_inputs(circuit: Circuit, root: int) -> set[int]:
    seen, stack, found = set(), [root], set()
    while stack:
        g = stack.pop()
        if g in seen:
            continue
        seen.add(g)
        gate = circuit.gates[g]
        if gate.kind is Kind.INPUT:
            found.add(gate.index)
        stack.extend(gate.args)
    return found


def residual(circuit: Circuit, roots: Sequence[int], known: dict[int, Fraction]) -> tuple[list[Any], set[int]]:
    """(values or None, read value inputs): concrete when all args are, or a mul with a 0 factor."""
    memo: dict[int, tuple[Any, frozenset[int]]] = {}
    order = sorted({g for r in roots for g in _cone(circuit, r)})
    for g in order:
        gate = circuit.gates[g]
        if gate.kind is Kind.INPUT:
            memo[g] = (known[gate.index], frozenset()) if gate.index in known else (None, frozenset([gate.index]))
        elif gate.kind is Kind.CONST:
            memo[g] = (gate.value, frozenset())
        else:
            vals = [memo[a][0] for a in gate.args]
            if None not in vals:
                if gate.kind is Kind.ADD:
                    v: Any = sum(vals, Fraction(0))
                elif gate.kind is Kind.MUL:
                    v = Fraction(1)
                    for x in vals:
                        v *= x
                else:
                    v = (vals[0] > 0) - (vals[0] < 0)
                memo[g] = (v, frozenset())
            elif gate.kind is Kind.MUL and any(x is not None and x == 0 for x in vals):
                memo[g] = (Fraction(0), frozenset())
            else:
                memo[g] = (None, frozenset().union(*(memo[a][1] for a in gate.args if memo[a][0] is None)))
    reads: set[int] = set()
    for r in roots:
        reads |= memo[r][1]
    return [memo[r][0] for r in roots], reads


def _cone(circuit: Circuit, root: int) -> set[int]:
    seen, stack = set(), [root]
    while stack:
        g = stack.pop()
        if g not in seen:
            seen.add(g)
            stack.extend(circuit.gates[g].args)
    return seen


# -- attention ------------------------------------------------------------------

def hint_lemma_text(score: Any, hint: dict[str, Circuit], facts: dict[str, Fraction], coords: Sequence[str]) -> str:
    vec = {v: [f"{v}_{smt_symbol(c)}" for c in coords] for v in "xyz"}
    out = [LOGIC, SGN_DEFINITION]
    out += [f"(declare-const {p} Real)" for v in "xyz" for p in vec[v]]
    for name, value in facts.items():
        out += [f"(assert (= {vec[v][coords.index(name)]} {numeral(value)}))" for v in "xyz"]

    def score_text(col: str) -> str:
        if isinstance(score, CircuitScore):
            return circuit_term(score.circuit, 0, vec["x"] + vec[col])
        parts = [f"(* {numeral(q)} {vec['x'][r]} {vec[col][c]})" for r, c, q in score.entries()]
        return "0.0" if not parts else parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"

    def side(col: str) -> str:
        diff = f"(- {circuit_term(hint['row_key'], 0, vec['x'])} {circuit_term(hint['col_key'], 0, vec[col])})"
        return f"(+ {score_text(col)} (* {diff} {diff}) {circuit_term(hint['col_penalty'], 0, vec[col])})"

    out.append(f"(assert (not (= {side('y')} {side('z')})))")
    out.append("(check-sat)")
    return "\n".join(out) + "\n"


def argmax_by_keys(rows: Sequence[Sequence[Fraction]], hint: dict[str, Circuit]) -> list[tuple[int, ...]]:
    """argmin_j (rk_i − ck_j)² + pen_j via sorted keys; equal row keys share one result."""
    rk, ck, pen = (compile_circuit(hint[k]) for k in ("row_key", "col_key", "col_penalty"))
    table: dict[Any, dict[Any, list[int]]] = {}
    for j, row in enumerate(rows):
        table.setdefault(ck(*row)[0], {}).setdefault(pen(*row)[0], []).append(j)
    keys = sorted(table)
    low = {k: min(v) for k, v in table.items()}
    floor = min(low.values())
    cache: dict[Any, tuple[int, ...]] = {}
    result = []
    for row in rows:
        a = rk(*row)[0]
        if a not in cache:
            cost = {}
            mid = bisect.bisect_left(keys, a)
            for rng in (range(mid - 1, -1, -1), range(mid, len(keys))):
                for k in rng:
                    dist = (a - keys[k]) ** 2
                    if cost and dist + floor > min(cost.values()):
                        break
                    cost[keys[k]] = dist + low[keys[k]]
            best = min(cost.values())
            cache[a] = tuple(sorted(j for k, c in cost.items() if c == best for j in table[k][low[k]]))
        result.append(cache[a])
    return result


def argmax_brute(rows: Sequence[Sequence[Fraction]], score: Any) -> list[tuple[int, ...]]:
    if isinstance(score, CircuitScore):
        f = compile_circuit(score.circuit)
        value = lambda x, y: f(*x, *y)[0]  # noqa: E731
    else:
        entries = score.entries()
        value = lambda x, y: sum(q * x[r] * y[c] for r, c, q in entries)  # noqa: E731
    out = []
    for x in rows:
        s = [value(x, y) for y in rows]
        m = max(s)
        out.append(tuple(j for j, v in enumerate(s) if v == m))
    return out


# -- obligations ------------------------------------------------------------------

class PositionObligations:
    """Renders the lemma of one position under one layer function."""

    def __init__(self, circuit: Circuit, transformer: Transformer, rows, claims, structural: set[int]):
        self.circuit, self.t, self.rows, self.claims, self.structural = circuit, transformer, rows, claims, structural
        self.d = transformer.dimension
        self.prefixes: dict[Any, str] = {}
        self.reads_cache: dict[Any, set[int]] = {}
        self.wanted_cache: dict[Any, set[int]] = {}

    def text(self, fn_index: int, layer, sets: list[list[tuple[int, ...]]], p: int, at: int) -> str:
        claim = self.claims[p]
        coords = tuple(sorted(c for c, (_, _, s) in claim.items() if s <= at))
        act = layer.activation
        wkey = (fn_index, coords)
        split = self.wanted_cache.get(wkey)
        if split is None:
            wanted = sorted(set().union(*(cone_inputs(act, act.outputs[c]) for c in coords)))
            split = self.wanted_cache[wkey] = [divmod(k, self.d) + (k,) for k in wanted
                                               if k % self.d in self.structural]
        known: dict[int, Any] = {}
        for owner, c, k in split:
            known[k] = self.rows[p][c] if owner == 0 else \
                self._pooled(layer.heads[owner - 1].pooling, sets[owner - 1][p], c)
        rkey = (fn_index, coords, tuple(known.items()))
        template = self.reads_cache.get(rkey)
        if template is None:
            template = self.reads_cache[rkey] = self._template(layer, coords, known)
        ys: dict[int, str] = {}
        hs: dict[tuple[int, int], str] = {}
        gates = self.circuit.gates
        claims = self.claims

        def gate_value(g: int) -> str:
            gate = gates[g]
            if gate.kind is Kind.CONST:
                return numeral(gate.value)
            name = ys.get(g)
            if name is None:
                name = ys[g] = f"y{len(ys)}"
            return name

        def value_at(j: int, c: int) -> str:
            entry = claims[j].get(c)
            if entry is not None and entry[2] < at:
                v = gate_value(entry[0])
                return v if entry[1] == 1 else f"(* {v} {v})"
            name = hs.get((j, c))
            if name is None:
                name = hs[(j, c)] = f"h{len(hs)}"
            return name

        args = []
        for slot in template[0]:
            if slot[0] == "lit":
                args.append(slot[1])
            elif slot[0] == "own":
                args.append(value_at(p, slot[1]))
            else:
                _, head, c, pooling = slot
                members = sets[head][p]
                if pooling is Pooling.LEFTMOST or pooling is Pooling.RIGHTMOST:
                    args.append(value_at(members[0] if pooling is Pooling.LEFTMOST else members[-1], c))
                elif len(members) == 1:
                    args.append(value_at(members[0], c))
                else:
                    args.append(f"(/ (+ {' '.join([value_at(j, c) for j in members])}) {len(members)}.0)")
        joined = " ".join(args)
        equations = []
        for c in coords:
            g, power, _ = claim[c]
            gate = gates[g]
            if gate.kind in (Kind.CONST, Kind.INPUT) or g in ys:
                rhs = gate_value(g)
            else:
                parts = [gate_value(a) for a in gate.args]
                if gate.kind is Kind.SIGN:
                    rhs = f"(sgn {parts[0]})"
                elif len(parts) == 0:
                    rhs = "0.0"
                elif len(parts) == 1:
                    rhs = parts[0]
                else:
                    rhs = f"({'+' if gate.kind is Kind.ADD else '*'} {' '.join(parts)})"
            if power == 2:
                rhs = f"(* {rhs} {rhs})"
            equations.append(f"(= ({template[1][c]} {joined}) {rhs})")
        goal = equations[0] if len(equations) == 1 else f"(and {' '.join(equations)})"
        decls = [*ys.values(), *hs.values(), *(f"f{i}" for i in range(template[2]))]
        return (self._prefix(fn_index, layer, coords) + "".join(f"(declare-const {n} Real)\n" for n in decls)
                + f"(assert (not {goal}))\n(check-sat)\n")

    def _template(self, layer, coords: tuple[int, ...], known: dict[int, Any]) -> tuple:
        """Per activation input: a fixed literal (numeral or free variable), own value, or pooled value."""
        act = layer.activation
        reads = residual(act, [act.outputs[c] for c in coords], known)[1]
        slots: list[tuple] = []
        free = 0
        for k in range(act.n_inputs):
            owner, c = divmod(k, self.d)
            if k in known:
                slots.append(("lit", numeral(known[k])))
            elif k not in reads:
                slots.append(("lit", f"f{free}"))
                free += 1
            elif owner == 0:
                slots.append(("own", c))
            else:
                slots.append(("pool", owner - 1, c, layer.heads[owner - 1].pooling))
        names = {c: f"out_{smt_symbol(self.t.coordinates[c])}" for c in coords}
        return slots, names, free

    def _pooled(self, pooling: Pooling, members: tuple[int, ...], c: int) -> Fraction:
        if pooling is Pooling.LEFTMOST:
            return self.rows[members[0]][c]
        if pooling is Pooling.RIGHTMOST:
            return self.rows[members[-1]][c]
        mean = Fraction(sum(self.rows[j][c] for j in members), len(members))
        return mean.numerator if mean.denominator == 1 else mean

    def _prefix(self, fn_index: int, layer, coords: tuple[int, ...]) -> str:
        key = (fn_index, coords)
        if key not in self.prefixes:
            params = [smt_symbol(n) for n in activation_input_names(self.t.coordinates, [h.name for h in layer.heads])]
            funs = [define_fun(f"out_{smt_symbol(self.t.coordinates[c])}", layer.activation, c, params)
                    for c in coords]
            self.prefixes[key] = "\n".join(["; verified-aat obligation v1", LOGIC, SGN_DEFINITION, *funs]) + "\n"
        return self.prefixes[key]
