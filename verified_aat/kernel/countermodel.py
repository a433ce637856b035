"""A countermodel of a lemma, found by exact evaluation at seeded rational points (docs/soundness.md S12d).

Reject-only (as ``defence.py``): it runs on a lemma that the normal form (S12a) and its proof object (S12c) leave
open, before any solver is asked (in the netlist link, ``netlist_smt.py``: as a solver that can only say sat), and it
can only reject. A point at which every assertion of the lemma evaluates
to true, computed exactly over Q with the kernel's own reading of the text (``identity.read_lemma``), is a real
model: the obligation it negates is false. Where no seeded point is one, seeded walks repair the assertions one by one
(``_Walker``), and what they reach is evaluated the same way. A point that decides nothing (a division by 0, a value past
``MAX_BITS``) is skipped, so a bug here can lose a rejection but never make a certificate accepted.
"""

from __future__ import annotations

import hashlib
import random
import re
from fractions import Fraction
from typing import Any

from .data import read_numeral
from .identity import COMPARE, Sexp, Undecided, read_lemma

POINTS = 224          # seeded points per lemma
FIRST = 32            # of which every open lemma gets these before any gets the rest
BOOLEAN = 48          # of which points 3 to 50 are one value among 0s (1, -1, 2), or one 0 among 1s, 12 each
RANDOM_BOOLEAN = 64   # and the next ones random: 0/1 of five densities, or sparse small integers
ALL_OF = 7            # past POINTS, a lemma of at most 7 free constants is tried at every point of {0, 1, -1}^n
WALKS = 24            # then seeded walks per lemma: small integers, each false assertion repaired in turn
WALK_WORK = 2_000_000  # terms the walks evaluate on all lemmas of a certificate, after every lemma's seeded points
PASSES = 6            # rounds of repairs in a walk
MAX_BITS = 4_096      # a value past this many bits ends its point (doubly exponential growth under squaring)
WORK = 500_000        # terms evaluated on all lemmas of a certificate (at most about 2 s)
SMALL = (0, 1, -1, 2, -2, 3, -3, Fraction(1, 2), Fraction(-1, 2), Fraction(1, 3))
SPARSE = (0, 0, 0, 0, 0, 1, -1, 2, -2)
SMALL_INTEGERS = (0, 1, -1, 2, -2, 3, -3)  # a walk's last tries for a constant


_DECLARE_FUN = re.compile(r"\(declare-fun (\S+) \(\) Real\)")


class _Skip(Exception):
    """This point decides nothing."""


def find_countermodel(text: str, left: list[int], walk_left: list[int] | None = None) -> dict[str, Fraction] | None:
    """A point (declared constant → value) where every assertion of ``text`` holds, or None; ``left[0]``: the
    evaluation work the certificate has left for the seeded points, spent here; ``walk_left``: the same for the walks
    (None: ``left``)."""
    search = _Search(text)
    point = search.run(range(POINTS + 3 ** ALL_OF), left)
    walker, walk_left = search.walker(), left if walk_left is None else walk_left
    for _ in range(WALKS if point is None and walker is not None else 0):
        if walk_left[0] <= 0 or walker.dead or (point := walker.walk(walk_left)) is not None:  # type: ignore[union-attr]
            break
    return point


class _Search:
    """One lemma's search: its reading (None: a form this evaluator does not read), and its seeded points."""

    def __init__(self, text: str):
        try:  # a netlist-link lemma declares its frontier as 0-ary functions (netlist_smt.smt_text)
            normaliser, self.asserted = read_lemma(_DECLARE_FUN.sub(r"(declare-const \1 Real)", text))
            self.names, self.functions = list(normaliser.variables), normaliser.functions
        except (Undecided, RecursionError, ValueError):
            self.asserted = None
            self.names, self.functions = [], {}
        self.seed, self.special = hashlib.sha256(text.encode()).hexdigest(), _special(text)
        self.settings = [(h[1], h[2]) for h in (self.asserted or [])[:-1]  # a hypothesis v = t sets v at every point
                         if isinstance(h, list) and len(h) == 3 and h[0] == "=" and h[1] in self.names]
        set_by = {v for v, _ in self.settings}
        self.free = [v for v in self.names if v not in set_by]
        self.total = POINTS + (3 ** len(self.free) if len(self.free) <= ALL_OF else 0)

    def _point(self, k: int) -> dict[str, Fraction]:
        """Point k, the same on every run whichever pass asks: one value among 0s or one 0 among 1s; past POINTS
        every point of {0, 1, -1}^n of the free constants; else each constant's value drawn by ``_value``."""
        if 3 <= k < 3 + BOOLEAN and self.names:  # all 0 but one (1, -1 or 2), then all 1 but one (0), by turns
            turn, j = divmod(k - 3, BOOLEAN // 4)  # over the last BOOLEAN // 4 names (a netlist's frontier)
            return dict.fromkeys(self.names, Fraction(turn == 3)) | {self.names[-1 - j % len(self.names)]:
                                                                      Fraction((1, -1, 2, 0)[turn])}
        rng = random.Random(f"{self.seed}:{k}")
        point = {v: Fraction(_value(rng, k, self.special)) for v in self.names}
        if k >= POINTS:  # for a lemma of at most ALL_OF free constants (self.total)
            point.update({v: Fraction((0, 1, -1)[(k - POINTS) // 3 ** i % 3]) for i, v in enumerate(self.free)})
        return point

    def walker(self) -> "_Walker | None":
        """The lemma's walks (None: it is not read), seeded apart from its points."""
        if self.asserted is None:
            return None
        return _Walker((self.asserted, self.names, self.functions, random.Random(f"{self.seed}:walks")))

    def run(self, points: range, left: list[int]) -> dict[str, Fraction] | None:
        for k in points:
            if left[0] <= 0 or self.asserted is None or k >= self.total:
                return None
            point = self._point(k)
            evaluator = _Evaluator(self.functions, point)
            try:
                for v, t in self.settings:  # v set to t's value: equalities independent points miss
                    point[v] = evaluator.value(t, {})
                if all(evaluator.truth(a, {}) for a in self.asserted):
                    return point
            except _Skip:
                pass
            except (Undecided, RecursionError, ValueError, TypeError):
                self.asserted = None  # a form this evaluator does not read: no point will do
            finally:
                left[0] -= evaluator.work
        return None


class _Walker:
    """Where the seeded points miss (a lemma whose hypotheses hold on a thin set: ids apart by at least 1, equal ids,
    an op code among a few), walks from small integers: each false assertion is made true by changing one of its
    constants (``_repair``), round after round. Only a point at which every assertion then holds is returned."""

    def __init__(self, read: tuple[list[Sexp], list[str], Any, random.Random]):
        self.asserted, self.names, self.functions, self.rng = read
        self.variables = [_variables(a, set(self.names)) for a in self.asserted]
        self.dead = False  # a form the evaluator does not read: no walk will do

    def walk(self, left: list[int]) -> dict[str, Fraction] | None:
        point = {v: Fraction(self.rng.choice((0, 1, 2, 3, 1, 2, -1))) for v in self.names}
        evaluator = _Evaluator(self.functions, point)
        try:
            for _ in range(PASSES):
                before, last = dict(point), len(self.asserted) - 1
                held = True  # the hypotheses (all but the last assertion) are repaired first, in order
                for k, a in enumerate(self.asserted[:-1]):
                    if not _holds(evaluator, a):
                        held = False
                        _repair(evaluator, a, self.variables[k], self.rng)
                if held:  # the goal, often the largest, only once every hypothesis holds
                    if _holds(evaluator, self.asserted[-1]):
                        return point
                    _repair(evaluator, self.asserted[-1], self.variables[last], self.rng)
                if point == before:  # no repair took: this walk is stuck
                    break
        except (Undecided, RecursionError, ValueError, TypeError):
            self.dead = True
        finally:
            left[0] -= evaluator.work
        return None


def _holds(evaluator: "_Evaluator", formula: Sexp) -> bool:
    try:
        return evaluator.truth(formula, {})
    except _Skip:
        return False


def _variables(t: Sexp, names: set[str]) -> list[str]:
    """The declared constants ``t`` names, in order of first use."""
    found: dict[str, None] = {}
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in names:
                found[x] = None
        else:
            stack.extend(reversed(x))
    return list(found)


_FLIP = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "=": "distinct", "distinct": "="}


def _repair(evaluator: "_Evaluator", formula: Sexp, variables: list[str], rng: random.Random, want: bool = True) -> None:
    """Change one constant so that ``formula`` has truth ``want``, where a few tries find one (else leave the point):
    a conjunction part by part, a disjunction by one of its parts, a comparison by solving it for a constant it is
    linear in, else by another constant's value or a small number."""
    if not (isinstance(formula, list) and formula and isinstance(formula[0], str)):
        return
    head, args = formula[0], formula[1:]
    if head == "not" and len(args) == 1:
        return _repair(evaluator, args[0], variables, rng, not want)
    if head in ("and", "or") and args:
        if (head == "and") == want:  # every part must have truth ``want``
            for part in args:
                if _holds(evaluator, part) != want:
                    _repair(evaluator, part, variables, rng, want)
        else:
            _repair(evaluator, rng.choice(args), variables, rng, want)
        return
    if head in COMPARE and len(args) == 2:
        _solve(evaluator, formula if want else [_FLIP[head], *args], variables, rng)


def _value(rng: random.Random, k: int, special: list[Fraction]) -> Fraction | int:
    """Point 0 is all zeros, 1 all ones, 2 all minus ones; then 0/1 points (a netlist's: one-hot, one-cold, random);
    then small values and the lemma's own numbers, where a false lemma often differs (an op code, a threshold,
    either side of one); then integers and rationals in [-24, 24]."""
    if k < 3:
        return (0, 1, -1)[k]
    if k < 3 + BOOLEAN:
        return 0  # a lemma without constants (else _Search._point's one-hot or one-cold points)
    if k < 3 + BOOLEAN + RANDOM_BOOLEAN:  # 0/1 of five densities, or mostly 0 and else a small integer (a wire's)
        return int(rng.random() < (0.5, 0.25, 0.75, 0.125, 0.875)[k % 5]) if k % 2 else rng.choice(SPARSE)
    if k < POINTS - 32:
        return rng.choice(special) if special and rng.random() < 0.5 else rng.choice(SMALL)
    return rng.randint(-24, 24) if rng.random() < 0.5 else Fraction(rng.randint(-96, 96), rng.randint(1, 8))


def _special(text: str) -> list[Fraction]:
    """The lemma's numerals and their quotients (c / a: where a·v − c is 0), each negated and one either side."""
    seen: set[Fraction] = set()
    for token in text.replace("(", " ").replace(")", " ").split():
        if token[0].isdigit() and len(token) <= 24 and (q := read_numeral(token)) is not None and len(seen) < 16:
            seen.add(Fraction(q))
    out = {q / r for q in seen for r in seen if r} | seen
    return sorted({s * q + d for q in out for s in (1, -1) for d in (0, 1, -1)})  # at most 1,632 (16 numerals)


class _Evaluator:
    """The exact value of a term, and the truth of a formula, at one point."""

    def __init__(self, functions: dict[str, tuple[list[str], Sexp]], point: dict[str, Fraction]):
        self.functions, self.point, self.work = functions, point, 0
        self.defined: dict[str, Fraction] = {}  # 0-ary functions' values: a netlist lemma's DAG, each node once

    def value(self, t: Sexp, env: dict[str, Any]) -> Fraction:
        self.work += 1
        if isinstance(t, list) and t and t[0] == "let":
            env = dict(env)
            while isinstance(t, list) and t and t[0] == "let":  # a let chain: a loop, not a recursion
                if len(t) != 3 or not isinstance(t[1], list):
                    raise Undecided("let")
                env.update({b[0]: self.value(b[1], env) for b in t[1]})  # parallel: the outer scope is read
                t = t[2]
        if isinstance(t, str):
            return self._symbol(t, env)
        if not t or not isinstance(t[0], str):
            raise Undecided("application")
        head = t[0]
        if head == "ite" and len(t) == 4:
            return self.value(t[2] if self.truth(t[1], env) else t[3], env)
        args = [self.value(a, env) for a in t[1:]]
        if head == "+":
            return sum(args, Fraction(0))
        if head == "-" and args:
            return -args[0] if len(args) == 1 else args[0] - sum(args[1:], Fraction(0))
        if head == "*" and args:
            out = Fraction(1)
            for a in args:
                out = _bounded(out * a)
            return out
        if head == "/" and len(args) == 2:
            if args[1] == 0:
                raise _Skip  # SMT-LIB leaves x / 0 unspecified: a model may choose it, this point cannot tell
            return _bounded(args[0] / args[1])
        if head == "sgn" and len(args) == 1:  # read_lemma admits only the kernel's own sgn
            return Fraction((args[0] > 0) - (args[0] < 0))
        if head in self.functions and len(self.functions[head][0]) == len(args):
            params, body = self.functions[head]
            return self.value(body, dict(zip(params, args)))
        raise Undecided(f"operator {head}")

    def _symbol(self, t: str, env: dict[str, Any]) -> Fraction:
        if t in env:
            return env[t]
        if t in self.point:
            return self.point[t]
        if t in self.functions and not self.functions[t][0]:  # a 0-ary define-fun: a name for its body's value
            if t not in self.defined:
                self.defined[t] = self.value(self.functions[t][1], {})
            return self.defined[t]
        q = read_numeral(t)
        if q is None:
            raise Undecided("an unknown symbol")
        return Fraction(q)

    def truth(self, c: Sexp, env: dict[str, Any]) -> bool:
        self.work += 1
        if c in ("true", "false"):
            return c == "true"
        if not (isinstance(c, list) and c and isinstance(c[0], str)):
            raise Undecided("a condition")
        head, args = c[0], c[1:]
        if head in ("and", "or") and args:
            values = [self.truth(x, env) for x in args]
            return all(values) if head == "and" else any(values)
        if head == "not" and len(args) == 1:
            return not self.truth(args[0], env)
        if head == "=>" and len(args) == 2:
            return not self.truth(args[0], env) or self.truth(args[1], env)
        if head in COMPARE and len(args) == 2:
            return COMPARE[head](self.value(args[0], env) - self.value(args[1], env))
        raise Undecided(f"a condition {head}")


def _solve(evaluator: "_Evaluator", atom: Sexp, variables: list[str], rng: random.Random) -> None:
    """Make the comparison ``atom`` (or a ``distinct`` pair) true by changing one of ``variables`` that it names."""
    op, lhs, rhs = atom
    point = evaluator.point
    test = (lambda: evaluator.value(lhs, {}) != evaluator.value(rhs, {})) if op == "distinct" else \
        (lambda: evaluator.truth(atom, {}))
    mine = _variables(atom, set(variables))
    for v in rng.sample(mine, min(len(mine), 3)):
        old = point[v]
        for candidate in _candidates(evaluator, lhs, rhs, v, op, rng):
            point[v] = candidate
            try:
                if test():
                    return
            except _Skip:
                pass
        point[v] = old


def _candidates(evaluator: "_Evaluator", lhs: Sexp, rhs: Sexp, v: str, op: str, rng: random.Random) -> list[Fraction]:
    """Values of ``v`` to try: where lhs − rhs, if linear in v, is 0 (and one past it, for a strict order), then the
    other constants' values, one either side, and small numbers."""
    point, old = evaluator.point, evaluator.point[v]
    out: list[Fraction] = []
    try:
        f = []
        for x in (0, 1, 2):
            point[v] = Fraction(x)
            f.append(evaluator.value(lhs, {}) - evaluator.value(rhs, {}))
        slope = f[1] - f[0]
        if slope and f[2] - f[1] == slope:
            root = -f[0] / slope
            step = 1 if slope > 0 else -1
            out += [root + step, root - step] if op == "distinct" else \
                [root + step] if op == ">" else [root - step] if op == "<" else [root]
    except _Skip:
        pass
    point[v] = old
    others = [point[w] for w in point if w != v]
    out += [q + d for q in rng.sample(others, min(len(others), 4)) for d in (0, 1, -1)]
    return out + [Fraction(x) for x in SMALL_INTEGERS]


def _bounded(q: Fraction) -> Fraction:
    if q.numerator.bit_length() + q.denominator.bit_length() > MAX_BITS:
        raise _Skip
    return q


def shown(point: dict[str, Fraction]) -> str:
    """The point as the rejection shows it: ``y0 = 1, h0 = -1/2``."""
    return ", ".join(f"{name} = {value}" for name, value in point.items())


def refute(lemmas: list[tuple[str, str]] | Any, open_: list[Any]) -> list[Any]:
    """S12d: the lemmas (``(label, text)``) that ``open_`` marks False (left open by S12a and S12c) and that have a
    countermodel, each a rejection naming the point. One budget of ``WORK`` for all: the first points of every
    lemma, shortest first, before the others (a long true lemma must not use up what a short false one needs); then,
    if none has one, the walks of all of them in rounds, on ``WALK_WORK``."""
    left, found = [WORK], {}
    searches = sorted((len(text), k, label, text) for k, ((label, text), decided) in enumerate(zip(lemmas, open_))
                      if decided is False)
    readers = {k: _Search(text) for _, k, _, text in searches}
    for points in (range(0, FIRST), range(FIRST, POINTS + 3 ** ALL_OF)):
        for _, k, label, _ in searches:
            if k not in found and (point := readers[k].run(points, left)) is not None:
                found[k] = _false(label, point)
    walkers = {} if found else {k: w for k, r in readers.items() if (w := r.walker()) is not None}
    walk_left = [WALK_WORK]
    for _ in range(WALKS):  # in rounds, one walk per open lemma, so a false lemma late in the list gets its walks
        for _, k, label, _ in searches:
            walker = walkers.get(k)
            if not found and walker and not walker.dead and walk_left[0] > 0 and \
                    (point := walker.walk(walk_left)) is not None:
                found[k] = _false(label, point)  # one rejects the certificate: the walks end here
    return [found[k] for k in sorted(found)]


def _false(label: str, point: dict[str, Fraction]) -> Any:
    from .problems import Problem
    return Problem("{lemma:120} is false: every assertion holds at {point:200} (exact evaluation, S12d)",
                   {"lemma": label, "point": shown(point)})
