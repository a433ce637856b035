"""S12c: the kernel checks a lemma's proof object, a case tree whose leaves close their case, exactly and with no
solver (the nodes and their meaning: docs/certificates.md, "How each lemma is decided, and proof objects"; why a
checked object proves its lemma: docs/soundness.md S12c)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .data import read_numeral
from .identity import Sexp, Undecided, parse, poly_key, read_lemma
from .sparse_poly import Poly, TooLarge, add

MAX_NODES = 2_000  # case-tree nodes of one proof object
MAX_TERM = 2_000   # characters of one TERM; facts in one product (the prover's: 36 and 2); the product work is
MAX_FACTORS = 16   # bounded per lemma (identity._Normaliser.multiply), these bound the numbers' digits


class BadProof(Exception):
    """The proof object does not prove the lemma (the certificate is rejected)."""


class Unfinished(Exception):
    """Checking the proof object ran into a size or stack limit: the lemma is *not checked*."""


def check_proof(text: str, proof: Any) -> int:
    """The work spent if ``proof`` proves the lemma ``text``; :class:`BadProof` (why) otherwise."""
    try:
        lemma = _Lemma(text)
        lemma.node(proof, {}, [], [0])
        return lemma.n.work
    except (TooLarge, RecursionError) as exc:  # a resource limit: the lemma is left undecided, not refuted
        raise Unfinished(f"{type(exc).__name__}: {exc}") from None
    except (Undecided, ZeroDivisionError, ValueError, TypeError, KeyError, IndexError) as exc:
        raise BadProof(f"{type(exc).__name__}: {exc}") from None


class _Lemma:
    def __init__(self, text: str):
        self.n, asserted = read_lemma(text)
        if not asserted or not (isinstance(asserted[-1], list) and asserted[-1][0] == "not"):
            raise BadProof("the last assertion is not a negated goal")
        *self.hyps, negated = asserted
        self.goal = negated[1]
        self.ge = [h for h in self.hyps if isinstance(h, list) and h[0] == ">=" and len(h) == 3]

    def node(self, proof: Any, env: dict[str, Poly], chosen: list[Sexp], budget: list[int]) -> None:
        budget[0] += 1
        if budget[0] > MAX_NODES or type(proof) is not dict or len(proof) not in (1, 2):
            raise BadProof("a proof node is an object with one rule (or a split and its cases)")
        if "split" in proof:
            k, cases = proof["split"], proof.get("cases")
            hyp = self.hyps[_index(k, len(self.hyps))]
            if not (isinstance(hyp, list) and hyp[0] == "or") or type(cases) is not list or len(cases) != len(hyp) - 1:
                raise BadProof(f"split {k}: not a disjunction with one case per disjunct")
            for disjunct, case in zip(hyp[1:], cases):
                self.node(case, self._assume(disjunct, env), chosen + [disjunct], budget)
            return
        env = self._equalities(env)
        if "cases-on" in proof or "at-most" in proof:  # t > 0, t = 0, t < 0 (or t > 0, t ≤ 0): every real is in one
            rule = "cases-on" if "cases-on" in proof else "at-most"
            term = _term(proof[rule])
            cases = proof.get("cases")
            if term is None or type(cases) is not list or len(cases) != (3 if rule == "cases-on" else 2):
                raise BadProof(f"{rule} is a TERM with its cases (> 0, = 0, < 0 or > 0, <= 0)")
            saved = dict(self.n.known)
            for (known, facts), case in zip(self.trichotomy(term, env, rule == "at-most"), cases):
                self.n.known = known
                self.node(case, env, chosen + facts, budget)
            self.n.known = saved
            return
        if "signs" in proof:  # sgn(t) = ±1 in this case, each proved by a positive leaf for ±t
            claims, inner = proof["signs"], proof.get("then")
            saved = dict(self.n.known)
            facts = self.facts(chosen, env)
            for t, sign, certificate in _rows(claims, 3):
                term = _term(t)
                if sign not in ("+", "-") or term is None:
                    raise BadProof("a sign claim is [TERM, '+' or '-', certificate]")
                value = self.poly(term, env)
                self._sum_is(add({}, value, 1 if sign == "+" else -1), certificate, env, facts)
                self.n.known[poly_key(value)] = 1 if sign == "+" else -1
            self.node(inner, env, chosen, budget)
            self.n.known = saved
            return
        (rule, arg), = proof.items()
        facts = self.facts(chosen, env)
        if rule == "contradiction":
            if not self.violated(_index(arg, len(self.hyps)), env):
                raise BadProof(f"assertion {arg} does not fail in this case")
        elif rule == "negative":
            if not negative(facts[_index(arg, len(facts))]):
                raise BadProof(f"fact {arg} is not a negative constant in this case")
        elif rule == "identity" and arg is True:
            for eq in self._goals("="):
                if self.poly(["-", eq[1], eq[2]], env):
                    raise BadProof("the goal is not an identity in this case")
        elif rule == "positive":
            (goal,) = self._goals("<")
            self._sum_is(self.poly(["-", goal[2], goal[1]], env), arg, env, facts)
        else:
            raise BadProof(f"unknown rule {rule!r} (an identity leaf is written true)")

    def _sum_is(self, target: Poly, arg: Any, env: dict[str, Poly], facts: list[Poly]) -> None:
        """target = Σ q·Π facts + Σ q·TERM² + constant, q ≥ 0, constant > 0: so target > 0 in this case."""
        if type(arg) is not dict or set(arg) != {"products", "squares", "constant"}:
            raise BadProof("a positive leaf has products, squares and a constant")
        total: Poly = {}
        constant = _rational(arg["constant"])
        if constant <= 0:
            raise BadProof("the constant must be > 0")
        add(total, {(): constant})
        for q, ks in _rows(arg["products"], 2):
            if type(ks) is not list:
                raise BadProof("a product is a list of fact indices")
            if len(ks) > MAX_FACTORS:  # a longer product is beyond the kernel's limits (not checked)
                raise TooLarge(f"a product of more than {MAX_FACTORS} facts")
            term: Poly = {(): 1}
            for k in ks:
                term = self.n.multiply(term, facts[_index(k, len(facts))])
            add(total, term, _nonnegative(q))
        for q, t in _rows(arg["squares"], 2):
            square = _term(t)
            if square is None:
                raise BadProof("a square is an SMT-LIB term")
            s = self.poly(square, env)
            add(total, self.n.multiply(s, s), _nonnegative(q))
        if add(total, target, -1):
            raise BadProof("the positive quantity is not the stated sum")

    def trichotomy(self, term: Sexp, env: dict[str, Poly], at_most: bool = False) -> list[tuple[dict[tuple, int], list[Sexp]]]:
        """The cases t > 0, t = 0, t < 0 of a ``cases-on`` node (t > 0, t ≤ 0: the bound −2 of an ``at-most`` one):
        each case's known signs (of t and −t, on top of those known here) and the facts it adds."""
        t, above, below = self.poly(term, env), [[">=", term, "0.0"]], [[">=", "0.0", term]]
        cases = [(1, above), (-2, below)] if at_most else [(1, above), (0, above + below), (-1, below)]
        return [({**self.n.known, poly_key(t): sign, poly_key(add({}, t, -1)): -sign}, facts) for sign, facts in cases]

    def violated(self, k: int, env: dict[str, Poly]) -> bool:
        """Assertion k is ``(not (= a b))`` and a − b has normal form 0 here."""
        hyp = self.hyps[k]
        return (isinstance(hyp, list) and hyp[0] == "not" and isinstance(hyp[1], list) and hyp[1][0] == "="
                and len(hyp[1]) == 3 and not self.poly(["-", hyp[1][1], hyp[1][2]], env))

    def _equalities(self, env: dict[str, Poly]) -> dict[str, Poly]:
        """Each assertion ``(= v t)``, v a declared constant not yet substituted and t decided here
        (its ``ite`` conditions known), substitutes t for v."""
        for h in self.hyps:
            if isinstance(h, list) and len(h) == 3 and h[0] == "=" and isinstance(h[1], str) and h[1] in self.n.variables and h[1] not in env:
                try:
                    env = {**env, h[1]: self.poly(h[2], env)}
                except Undecided:
                    continue
        return env

    def _goals(self, op: str) -> list[Sexp]:
        goals = self.goal[1:] if self.goal[0] == "and" else [self.goal]
        if not all(isinstance(g, list) and g[0] == op and len(g) == 3 for g in goals):
            raise BadProof(f"the goal is not {op}")
        return goals

    def _assume(self, disjunct: Sexp, env: dict[str, Poly]) -> dict[str, Poly]:
        """A chosen ``(= p q)`` (or a conjunct of a chosen ``and``) with p (or q) an unbound declared
        constant substitutes the other side."""
        for eq in (d for d in _conjuncts(disjunct) if d[0] == "=" and len(d) == 3):
            for p, q in ((eq[1], eq[2]), (eq[2], eq[1])):
                if isinstance(p, str) and p in self.n.variables and p not in env:
                    env = {**env, p: self.poly(q, env)}
                    break
        return env

    def facts(self, chosen: list[Sexp], env: dict[str, Poly]) -> list[Poly]:
        """The case's facts l − r ≥ 0: its ``(>=`` assertions, then the chosen ones (conjuncts too)."""
        chosen_ge = [d for c in chosen for d in _conjuncts(c) if d[0] == ">=" and len(d) == 3]
        return [self.poly(["-", f[1], f[2]], env) for f in self.ge + chosen_ge]

    def poly(self, t: Sexp, env: dict[str, Poly]) -> Poly:
        return self.n.term(t, env)


def negative(fact: Poly) -> bool:
    """The fact's normal form is a negative rational (so "fact ≥ 0" fails)."""
    return bool(fact) and not set(fact) - {()} and fact[()] < 0


def _conjuncts(t: Sexp) -> list[list]:
    """The conjuncts of ``(and …)`` (nested), or [t]; atoms are not conditions."""
    if not isinstance(t, list) or not t:
        return []
    return [d for x in t[1:] for d in _conjuncts(x)] if t[0] == "and" else [t]


def _term(text: Any) -> Sexp | None:
    """One SMT-LIB TERM (longer than MAX_TERM characters: beyond the kernel's limits), or None."""
    if type(text) is str and len(text) > MAX_TERM:
        raise TooLarge(f"a term of more than {MAX_TERM} characters")
    terms = parse(text) if type(text) is str else []
    return terms[0] if len(terms) == 1 else None


def _rows(value: Any, width: int) -> list[Any]:
    """A proof object's list of ``width``-entry lists: a string or an object also iterates, and one was read as a list
    ({} or "" as an empty one, "1x" as ["1", "x"]: a malformed proof object checked; red team, round 23)."""
    if type(value) is not list or not all(type(row) is list and len(row) == width for row in value):
        raise BadProof(f"expected a list of {width}-entry lists")
    return value


def _index(k: Any, n: int) -> int:
    if type(k) is not int or not 0 <= k < n:
        raise BadProof(f"index {k!r} is not in 0 … {n - 1}")
    return k


def _rational(q: Any) -> Fraction:
    value = read_numeral(q) if type(q) is str and len(q) <= 200 else None
    if value is None:
        raise BadProof("a rational is a string p/q")
    return Fraction(value)


def _nonnegative(q: Any) -> Fraction:
    value = _rational(q)
    if value < 0:
        raise BadProof("a coefficient must be ≥ 0")
    return value
