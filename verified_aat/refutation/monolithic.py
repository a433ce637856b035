"""Whole-transformer symbolic execution on Z3 terms, and Z3-found witnesses.

The transformer runs layer by layer with the input values as Z3 ``Real``
variables and the structure concrete; circuits are evaluated with constant
folding only (concrete ⊕ concrete exactly, ``0·t = 0``, ``1·t = t``); sign of
a term is a nested ``If``; a score must simplify to a numeral (so argmax is
exact), otherwise the transformer is :class:`Unsupported`.  This is the
monolithic baseline of the benchmarks, and the refutation search's last
resort on small circuits: a model of ``Not(readout == C(x))`` is a witness,
rational (replayed exactly, refutes every ring Q ⊆ R ⊆ ℝ) or irrational
(refutes ℝ only; said so, never reported as a counterexample over Q).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from ..circuits.evaluate import compile_circuit, fold_circuit
from ..circuits.ir import Circuit
from ..transformer.exact_engine import read_inputs
from ..transformer.model import CircuitScore, Pooling, Transformer

Number = int | Fraction


class Unsupported(Exception):
    """The baseline cannot express this transformer as one query."""


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, Fraction))


def _norm(v: Number) -> Number:
    return v.numerator if isinstance(v, Fraction) and v.denominator == 1 else v


def to_z3(v: Any) -> z3.ArithRef:
    if _is_num(v):
        v = Fraction(v)
        return z3.RealVal(f"{v.numerator}/{v.denominator}") if v.denominator != 1 else z3.RealVal(v.numerator)
    return v


def _add(values: list[Any]) -> Any:
    const: Number = 0
    terms = []
    for v in values:
        if _is_num(v):
            const += v
        else:
            terms.append(v)
    if not terms:
        return _norm(const)
    if const != 0:
        terms.append(to_z3(const))
    return terms[0] if len(terms) == 1 else z3.Sum(*terms)


def _mul(values: list[Any]) -> Any:
    const: Number = 1
    terms = []
    for v in values:
        if _is_num(v):
            const *= v
        else:
            terms.append(v)
    if const == 0 or not terms:
        return _norm(const)
    if const != 1:
        terms.insert(0, to_z3(const))
    return terms[0] if len(terms) == 1 else z3.Product(*terms)


def _sign(v: Any) -> Any:
    if _is_num(v):
        return (v > 0) - (v < 0)
    return z3.If(v > 0, z3.RealVal(1), z3.If(v < 0, z3.RealVal(-1), z3.RealVal(0)))


def eval_circuit(circuit: Circuit, inputs: list[Any]) -> list[Any]:
    """The outputs of ``circuit`` on a mix of rationals and Z3 terms."""
    return fold_circuit(circuit, inputs, _norm, _add, _mul, _sign)


def _as_rational(v: Any) -> Number:
    if _is_num(v):
        return v
    s = z3.simplify(v)
    if z3.is_rational_value(s):
        return _norm(Fraction(s.numerator_as_long(), s.denominator_as_long()))
    raise Unsupported("a score depends on the symbolic input values (does not simplify to a numeral)")


class _Scorer:
    """One score function: the columns it reads, a fast exact path and a symbolic one.

    Argmax sets are computed once per group of positions with equal read
    columns, and reused in a later layer when every read column is still the
    same concrete value at every position (as the exact engine does).
    """

    def __init__(self, score: Any, d: int):
        self.score = score
        self.d = d
        if isinstance(score, CircuitScore):
            used = read_inputs(score.circuit)
            self.i_cols = [c for c in range(d) if c in used]
            self.j_cols = [c for c in range(d) if c + d in used]
            self.fast = compile_circuit(score.circuit)
        else:
            entries = score.entries()
            self.i_cols = sorted({r for r, _, _ in entries})
            self.j_cols = sorted({c for _, c, _ in entries})
            self.fast = None
        self.last: tuple[Any, list[tuple[int, ...]]] | None = None

    def value(self, xi: list[Any], xj: list[Any]) -> Number:
        concrete = all(_is_num(xi[c]) for c in self.i_cols) and all(_is_num(xj[c]) for c in self.j_cols)
        if isinstance(self.score, CircuitScore):
            if concrete:
                return _norm(self.fast(*xi, *xj)[0])
            value = eval_circuit(self.score.circuit, list(xi) + list(xj))[0]
        else:
            value = _add([_mul([q, xi[r], xj[c]]) for r, c, q in self.score.entries()])
        return _as_rational(value)

    def argmax(self, rows: list[list[Any]]) -> list[tuple[int, ...]]:
        cols = sorted(set(self.i_cols) | set(self.j_cols))
        snapshot = tuple(tuple(r[c] for c in cols) for r in rows)
        concrete = all(_is_num(v) for key in snapshot for v in key)
        if concrete and self.last is not None and self.last[0] == snapshot:
            return self.last[1]
        if concrete:
            i_of, i_groups = _group(rows, self.i_cols)
            _, j_groups = _group(rows, self.j_cols)
        else:  # symbolic read columns: no grouping, every pair
            i_of, i_groups = list(range(len(rows))), [[i] for i in range(len(rows))]
            j_groups = [[j] for j in range(len(rows))]
        best = []
        for members in i_groups:
            xi = rows[members[0]]
            scores = [self.value(xi, rows[g[0]]) for g in j_groups]
            top = max(scores)
            best.append(tuple(sorted(p for g, s in zip(j_groups, scores) if s == top for p in g)))
        sets = [best[i_of[i]] for i in range(len(rows))]
        if concrete:
            self.last = (snapshot, sets)
        return sets


def _group(rows: list[list[Any]], cols: list[int]) -> tuple[list[int], list[list[int]]]:
    index: dict[tuple, int] = {}
    group_of: list[int] = []
    groups: list[list[int]] = []
    for p, row in enumerate(rows):
        key = tuple(row[c] for c in cols)
        g = index.setdefault(key, len(groups))
        if g == len(groups):
            groups.append([])
        groups[g].append(p)
        group_of.append(g)
    return group_of, groups


def run_symbolic(transformer: Transformer, sequence: list[list[Any]]) -> list[list[Any]]:
    """T on a sequence of rationals and Z3 terms; raises :class:`Unsupported`."""
    d = transformer.dimension
    rows = [list(r) for r in sequence]
    n = len(rows)
    scorers: list[_Scorer] = []
    for layer in transformer.layers:
        pooled_all: list[list[list[Any]]] = []
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise Unsupported("softmax pooling")
            scorer = next((s for s in scorers if s.score is head.score), None) or \
                next((s for s in scorers if s.score == head.score), None)
            if scorer is None:
                scorer = _Scorer(head.score, d)
                scorers.append(scorer)
            sets = scorer.argmax(rows)
            pooled: list[list[Any]] = []
            cache: dict[tuple[int, ...], list[Any]] = {}
            for i in range(n):
                chosen = sets[i]
                if chosen not in cache:
                    if head.pooling is Pooling.LEFTMOST:
                        cache[chosen] = rows[chosen[0]]
                    elif head.pooling is Pooling.RIGHTMOST:
                        cache[chosen] = rows[chosen[-1]]
                    else:
                        k = Fraction(1, len(chosen))
                        cache[chosen] = [_mul([k, _add([rows[j][c] for j in chosen])]) for c in range(d)]
                pooled.append(cache[chosen])
            pooled_all.append(pooled)
        rows = [eval_circuit(layer.activation, rows[i] + [v for p in pooled_all for v in p[i]])
                for i in range(n)]
    return rows


def build_query(circuit: Circuit, transformer: Transformer, encoding: Any) -> z3.BoolRef:
    """Not(And(readout_k == C_k(x))) over fresh Real variables x; raises :class:`Unsupported`."""
    xs = [z3.Real(f"x{i}") for i in range(circuit.n_inputs)]
    got = encoding.read(run_symbolic(transformer, encoding.instantiate(xs)))
    want = eval_circuit(circuit, list(xs))
    return z3.Not(z3.And(*[to_z3(a) == to_z3(b) for a, b in zip(got, want)]))


@dataclass(frozen=True)
class Z3Witness:
    """A model of the query: rational input values, or a description of irrational ones."""

    rational: tuple[Fraction, ...] | None
    irrational: str | None


def z3_witness(circuit: Circuit, transformer: Transformer, encoding: Any, timeout_ms: int) -> Z3Witness | None:
    """A Z3 model of T(enc(C, x)) ≠ C(x), or None (unsat, unknown, timeout, unsupported)."""
    try:
        query = build_query(circuit, transformer, encoding)
    except (Unsupported, RecursionError):
        return None
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(query)
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    values: list[Fraction] = []
    irrational: list[str] = []
    for i in range(circuit.n_inputs):
        v = model.eval(z3.Real(f"x{i}"), model_completion=True)
        if z3.is_rational_value(v):
            values.append(Fraction(v.numerator_as_long(), v.denominator_as_long()))
        else:
            irrational.append(f"x{i} = {v.sexpr()} ≈ {v.as_decimal(12)}")  # type: ignore[attr-defined]
            values.append(Fraction(0))
    if irrational:
        return Z3Witness(None, "; ".join(irrational))
    return Z3Witness(tuple(values), None)
