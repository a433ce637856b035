"""The search for a lemma's proof object (untrusted: the kernel checks it, ``kernel/positivity.py``).

For a lemma the kernel's normal form does not decide — an ordering goal ``(< a b)`` under ordering
hypotheses and integer-gap disjunctions, or an identity that holds only in some cases — find a case
tree whose leaves close: a violated ``≠``, a negative fact, an identity, or b − a written as a
non-negative combination of products of at most two facts and squares of differences of the goal's
constants plus a positive constant.  The combination comes from a linear program (SciPy's HiGHS),
rounded to rationals and kept only if the exact residual is a positive constant.  No object found:
None, and the lemma stays with the solvers.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

from ..kernel.identity import Sexp, Undecided, parse, poly_key
from ..kernel.positivity import BadProof, _Lemma, negative
from ..kernel.smt import numeral
from ..kernel.sparse_poly import SIGN_ATOM, Poly, TooLarge, add, multiply

MAX_DEPTH = 3        # nested splits
MAX_CANDIDATES = 4   # disjunctions tried at a node
MAX_EXHAUSTIVE = 9   # two-valued hypotheses split exhaustively (2^10 - 1 nodes, within the kernel's 2,000)
MAX_GUIDED = 1_500   # nodes visited by the guided search (within the kernel's 2,000)


@lru_cache(maxsize=4096)
def _found(text: str) -> str | None:
    proof = _find(text)
    return None if proof is None else json.dumps(proof)


def _show(t: Sexp) -> str:
    """An s-expression as SMT-LIB text (the inverse of ``identity.parse``)."""
    return t if isinstance(t, str) else "(" + " ".join(_show(x) for x in t) + ")"


def find_proof(text: str) -> dict[str, Any] | None:
    """A proof object for the lemma ``text`` that the kernel accepts, or None (one search per text and process)."""
    found = _found(text)
    return None if found is None else json.loads(found)


def _find(text: str) -> dict[str, Any] | None:
    try:
        lemma = _Lemma(text)
        if not (isinstance(lemma.goal, list) and lemma.goal[0] in ("<", "=", "and")):
            return None
        two_valued = [k for k, h in enumerate(lemma.hyps) if _two_values(h)]
        found = _guided(lemma, {}, [], {k: lemma.hyps[k][1][1] for k in two_valued}, [0])
        if found is None:
            found = _search(lemma, {}, [], frozenset(), 0)
        if found is None and 0 < len(two_valued) <= MAX_EXHAUSTIVE:
            found = _exhaustive(lemma, {}, [], two_valued)
        return found
    except (BadProof, Undecided, TooLarge, RecursionError, ValueError, ZeroDivisionError):
        return None


def _two_values(hyp: Sexp) -> bool:
    """``(or (= v a) (= v b))`` for a constant v: v takes one of two values (a mark in {0, 1})."""
    return (isinstance(hyp, list) and len(hyp) == 3 and hyp[0] == "or"
            and all(isinstance(d, list) and len(d) == 3 and d[0] == "=" and isinstance(d[1], str) for d in hyp[1:]))


def _exhaustive(lemma: _Lemma, env: dict[str, Poly], chosen: list[Sexp], splits: list[int]) -> dict[str, Any] | None:
    """Split on the two-valued hypotheses ``splits`` in order, each case as soon as a leaf closes it (a
    select lemma over N marks: at most 2^N leaves, past the depth the general search goes to)."""
    env = lemma._equalities(env)
    try:
        leaf = _leaf(lemma, env, chosen)
    except Undecided:
        leaf = None
    if leaf is not None or not splits:
        return leaf
    cases = []
    for disjunct in lemma.hyps[splits[0]][1:]:
        case = _exhaustive(lemma, lemma._assume(disjunct, env), chosen + [disjunct], splits[1:])
        if case is None:
            return None
        cases.append(case)
    return {"split": splits[0], "cases": cases}


def _guided(lemma: _Lemma, env: dict[str, Poly], chosen: list[Sexp], marks: dict[int, str], budget: list[int]
            ) -> dict[str, Any] | None:
    """Split where the first undecided condition of the last leaf points, each case as soon as a leaf closes
    it: on a two-valued hypothesis of a constant the condition reads, else into t > 0 and t ≤ 0 for the
    condition's difference t or −t (the orientation whose second case decides it).  An ARGMAX or SELECT lemma
    over N scores or marks takes about 3N nodes, where a split on every sign takes 3^N."""
    budget[0] += 1
    if budget[0] > MAX_GUIDED:
        return None
    env = lemma._equalities(env)
    lemma.n.pending.clear()
    try:
        leaf = _leaf(lemma, env, chosen)
    except Undecided:
        leaf = None
    if leaf is not None or not lemma.n.pending:
        return leaf
    difference = lemma.n.pending[0]
    names = {number: name for name, number in lemma.n.variables.items()}
    if poly_key(difference) in lemma.n.known or any(v not in names for m in difference for v in m):
        return None  # a bound already known leaves it undecided: the wrong orientation (or a sign atom)
    reads = {names[v] for m in difference for v in m}
    for k, v in marks.items():
        if v in reads and v not in env:
            cases = [_guided(lemma, lemma._assume(d, env), chosen + [d], marks, budget) for d in lemma.hyps[k][1:]]
            return None if None in cases else {"split": k, "cases": cases}
    saved = lemma.n.known
    for t in (difference, add({}, difference, -1)):
        term = parse(_term(t, names))[0]
        cases = []
        for known, facts in lemma.trichotomy(term, env, at_most=True)[::-1]:  # t ≤ 0 first: the wrong way round
            lemma.n.known = known                                              # fails there at once
            case = _guided(lemma, env, chosen + facts, marks, budget)
            if case is None:
                break
            cases.append(case)
        lemma.n.known = saved
        if len(cases) == 2:
            return {"at-most": _show(term), "cases": cases[::-1]}
    return None


def _search(lemma: _Lemma, env: dict[str, Poly], chosen: list[Sexp], used: frozenset[int], depth: int
            ) -> dict[str, Any] | None:
    env = lemma._equalities(env)  # as the kernel does at every node
    lemma.n.pending.clear()
    try:
        leaf = _leaf(lemma, env, chosen)
    except Undecided:  # an ite whose condition's sign is not known here
        leaf = None
    if leaf is not None or depth >= MAX_DEPTH:
        return leaf
    for term in _sign_candidates(lemma):
        saved, cases = dict(lemma.n.known), []
        for known, facts in lemma.trichotomy(term, env):  # the kernel's own cases
            lemma.n.known = known
            case = _search(lemma, env, chosen + facts, used, depth + 1)
            if case is None:
                break
            cases.append(case)
        lemma.n.known = saved
        if len(cases) == 3:
            return {"cases-on": _show(term), "cases": cases}
    for k in _candidates(lemma, env, used):
        cases = []
        for disjunct in lemma.hyps[k][1:]:
            case = _search(lemma, lemma._assume(disjunct, env), chosen + [disjunct], used | {k}, depth + 1)
            if case is None:
                break
            cases.append(case)
        else:
            return {"split": k, "cases": cases}
    return None


def _sign_candidates(lemma: _Lemma) -> list[Sexp]:
    """Differences whose unknown sign stopped an ``ite`` at the last leaf, then sign atoms' arguments: a
    trichotomy split makes them known."""
    names = {number: name for name, number in lemma.n.variables.items()}
    found: dict[tuple, Poly] = {}
    for poly in list(lemma.n.pending) + [dict(key) for key in lemma.n.atoms]:
        key = poly_key(poly)
        if key in lemma.n.known or key in found or not poly or any(v not in names for m in poly for v in m):
            continue
        found[key] = poly
    return [parse(_term(poly, names))[0] for poly in list(found.values())[:3]]


def _candidates(lemma: _Lemma, env: dict[str, Poly], used: frozenset[int]) -> list[int]:
    """Disjunctions over the constants the goal (and the ≠ hypotheses) read, most shared first."""
    wanted = set()
    for term in [lemma.goal] + [h[1] for h in lemma.hyps if isinstance(h, list) and h[0] == "not"]:
        wanted |= _names(term)
    scored = []
    for k, hyp in enumerate(lemma.hyps):
        if k in used or not (isinstance(hyp, list) and hyp[0] == "or"):
            continue
        shared = len(_names(hyp) & wanted)
        if shared:
            scored.append((-shared, k))
    return [k for _, k in sorted(scored)[:MAX_CANDIDATES]]


def _names(t: Sexp) -> set[str]:
    return {t} if isinstance(t, str) else set().union(*(_names(x) for x in t)) if t else set()


def _leaf(lemma: _Lemma, env: dict[str, Poly], chosen: list[Sexp]) -> dict[str, Any] | None:
    for k in range(len(lemma.hyps)):
        if lemma.violated(k, env):
            return {"contradiction": k}
    facts = lemma.facts(chosen, env)
    for k, fact in enumerate(facts):
        if negative(fact):
            return {"negative": k}
    return _close(lemma, env, facts, rounds=3)


def _close(lemma: _Lemma, env: dict[str, Poly], facts: list[Poly], rounds: int) -> dict[str, Any] | None:
    """An identity or a positive leaf; where sign atoms stand in the way, first prove their signs."""
    goals = lemma.goal[1:] if lemma.goal[0] == "and" else [lemma.goal]
    if all(g[0] == "=" for g in goals):
        left = [lemma.poly(["-", g[1], g[2]], env) for g in goals]
        if not any(left):
            return {"identity": True}
    elif len(goals) == 1 and goals[0][0] == "<":
        left = [lemma.poly(["-", goals[0][2], goals[0][1]], env)]
        found = _combination(left[0], facts, lemma)
        if found is not None:
            return {"positive": found}
    else:
        return None
    atoms = {v for p in left for mono in p for v in mono if v >= SIGN_ATOM}
    if not atoms or rounds == 0:
        return None
    keys = {number: key for key, number in lemma.n.atoms.items()}
    names = {number: name for name, number in lemma.n.variables.items()}
    claims, saved = [], dict(lemma.n.known)
    for atom in sorted(atoms):  # the signs that can be proved here; the others may cancel once these are fixed
        poly = dict(keys[atom])
        if any(v not in names for mono in poly for v in mono):
            continue
        for sign, value in (("+", 1), ("-", -1)):
            certificate = _combination(add({}, poly, value), facts, lemma)
            if certificate is not None:
                claims.append([_term(poly, names), sign, certificate])
                lemma.n.known[keys[atom]] = value
                break
    inner = _close(lemma, env, facts, rounds - 1) if claims else None
    lemma.n.known = saved
    return None if inner is None else {"signs": claims, "then": inner}


def _term(poly: Poly, names: dict[int, str]) -> str:
    """An SMT-LIB term whose normal form is ``poly``."""
    parts = []
    for mono, c in sorted(poly.items()):
        factors = [numeral(c)] + [names[v] for v in mono]
        parts.append(factors[0] if len(factors) == 1 else f"(* {' '.join(factors)})")
    return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"


_MEMO: dict[tuple, dict[str, Any] | None] = {}


def _combination(target: Poly, facts: list[Poly], lemma: _Lemma) -> dict[str, Any] | None:
    """target = Σ λ·(fact products) + Σ μ·(differences)² + c, λ, μ ≥ 0, c > 0, exactly; or None (memoised:
    sibling cases often ask the same question)."""
    if any(v >= SIGN_ATOM for p in [target, *facts] for mono in p for v in mono):
        return _combination_of(target, facts, lemma)  # sign atoms are numbered per lemma: no sharing
    key = (poly_key(target), tuple(poly_key(f) for f in facts), tuple(sorted(lemma.n.variables.items())))
    if key not in _MEMO:
        if len(_MEMO) > 200_000:
            _MEMO.clear()
        _MEMO[key] = _combination_of(target, facts, lemma)
    found = _MEMO[key]
    return None if found is None else json.loads(json.dumps(found))


def _combination_of(target: Poly, facts: list[Poly], lemma: _Lemma) -> dict[str, Any] | None:
    if not set(target) - {()}:
        return _certificate([], [], target.get((), Fraction(0)))
    variables = {v for mono in target for v in mono}
    names = {number: name for name, number in lemma.n.variables.items()}
    if not variables <= set(names):
        return None  # a sign atom: not a polynomial ordering
    near = [k for k, f in enumerate(facts) if {v for mono in f for v in mono} & variables]
    basis: list[tuple[str, Any, Poly]] = []
    for i, j in [(i, i) for i in near] + list(combinations(near, 2)):
        basis.append(("product", [i, j], multiply(facts[i], facts[j])))
    basis += [("product", [i], facts[i]) for i in near]
    for x, y in combinations(sorted(variables), 2):
        basis.append(("square", f"(- {names[x]} {names[y]})", multiply(*[{(x,): 1, (y,): -1}] * 2)))
    basis += [("square", names[x], {(x, x): 1}) for x in sorted(variables)]
    weights = _solve(target, [b[2] for b in basis])
    if weights is None:
        return None
    residual = dict(target)
    for (kind, what, poly), w in zip(basis, weights):
        if w:
            add(residual, poly, -w)
    if set(residual) - {()} or residual.get((), 0) <= 0:
        return None
    products = [[str(w), what] for (kind, what, _), w in zip(basis, weights) if w and kind == "product"]
    squares = [[str(w), what] for (kind, what, _), w in zip(basis, weights) if w and kind == "square"]
    return _certificate(products, squares, residual[()])


def _certificate(products: list, squares: list, constant: Fraction) -> dict[str, Any] | None:
    if constant <= 0:
        return None
    return {"products": products, "squares": squares, "constant": str(Fraction(constant))}


def _solve(target: Poly, polys: list[Poly]) -> list[Fraction] | None:
    """Non-negative weights w with target − Σ w·poly a positive constant (a linear program, rounded)."""
    from scipy.optimize import linprog

    monomials = sorted({m for p in [target, *polys] for m in p if m != ()})
    if not polys:
        return None
    equality = [[float(p.get(m, 0)) for p in polys] for m in monomials]
    constant = [-float(p.get((), 0)) for p in polys]  # maximise the constant left over: target₀ − Σ w·p₀
    result = linprog(c=[-x for x in constant], A_eq=equality or None,
                     b_eq=[float(target.get(m, 0)) for m in monomials] or None,
                     bounds=[(0, 1_000)] * len(polys), method="highs")
    if result.status != 0:
        return None
    return [Fraction(w).limit_denominator(1_000) if w > 1e-9 else Fraction(0) for w in result.x]


def attach_proof_objects(doc: dict[str, Any], seconds: float | None = None) -> int:
    """Give every lemma of a certificate that the kernel's normal form does not decide a proof object,
    where the search finds one (the kernel checks it, S12c): with all of them, ``check --no-solver-trust``
    accepts the certificate.  ``seconds``: stop searching after this long (None: no limit); the lemmas
    left rest on the solvers, which the verdict names.  Returns how many lemmas still rest on a solver."""
    import time

    from ..kernel.identity import decide

    stop = None if seconds is None else time.perf_counter() + seconds
    left = 0
    for entry in doc["lemmas"]:
        if decide(entry["smt2"]) is True:
            continue
        if stop is not None and time.perf_counter() > stop:
            left += 1
            continue
        proof = find_proof(entry["smt2"])
        if proof is None:
            left += 1
        else:
            entry["proof"] = proof
    return left
