"""The kernel's own decision of an identity lemma, with no solver (docs/soundness.md S12a): every goal a = b of the
last assertion ``(not (= a b))`` or ``(not (and (= a b) …))`` has a − b ≡ 0 (``sparse_poly.py``); anything else is
*not decided* (``None``), never *false*: the solvers then decide, and the verdict says so.
"""

from __future__ import annotations

from fractions import Fraction
from functools import reduce
from typing import Any

from .data import read_numeral
from .smt import SGN
from .sparse_poly import MAX_PRODUCT_WORK, SIGN_ATOM, Poly, TooLarge, add, multiply

Sexp = Any  # a str atom or a list of Sexp
COMPARE = {">": lambda s: s > 0, ">=": lambda s: s >= 0, "<": lambda s: s < 0, "<=": lambda s: s <= 0,
           "=": lambda s: s == 0}  # a comparison a ∘ b from the sign s of a − b


class Undecided(Exception):
    """Outside what the normal form decides."""


def parse(text: str) -> list[Sexp]:
    """Every top-level s-expression (comments dropped), without recursion."""
    stack: list[list[Sexp]] = [[]]
    for line in text.splitlines():
        line = line.split(";", 1)[0]
        for token in line.replace("(", " ( ").replace(")", " ) ").split():
            if token == "(":
                stack.append([])
            elif token == ")":
                if len(stack) == 1:
                    raise Undecided("unbalanced")
                stack[-2].append(stack.pop())  # the parent is read before the pop
            else:
                stack[-1].append(token)
    if len(stack) != 1:
        raise Undecided("unbalanced")
    return stack[0]


_SGN = parse(SGN)[0]  # the kernel's sign, the one a lemma may define

_NUMERALS: dict[str, int | Fraction] = {}  # numeral text → its exact value


class _Normaliser:
    def __init__(self, limit: int | None = None) -> None:
        self.limit = 2 * MAX_PRODUCT_WORK if limit is None else limit  # or what the certificate has left
        self.variables: dict[str, int] = {}
        self.functions: dict[str, tuple[list[str], Sexp]] = {}
        self.atoms: dict[tuple, int] = {}
        self.known: dict[tuple, int] = {}  # sign (or bound ±2: ≥ 0 / ≤ 0) of a normal form proved in this case
        self.pending: list[Poly] = []      # condition differences of unknown sign met (read by the prover only)
        self.work = 0                      # term pairs multiplied × degree, each node's terms (one budget a lemma)

    def multiply(self, p: Poly, q: Poly) -> Poly:
        """p·q on the lemma's budget (a proof object's long product must not cost minutes); a refusal costs none."""
        cost = len(p) * len(q) * (1 + max(map(len, p), default=0) + max(map(len, q), default=0))
        if self.work + cost > self.limit:
            raise TooLarge(f"more than {self.limit} units of product work in one lemma")
        self.work += cost
        return multiply(p, q)

    def term(self, t: Sexp, env: dict[str, Poly]) -> Poly:
        """t's normal form, charged by its size: a sign sorts its argument (130 sgn of a 37,820-term value: red team 7)."""
        out = self._term(t, env)
        self.work += len(out) + 1
        if self.work > self.limit:
            raise TooLarge(f"more than {self.limit} units of work in one lemma")
        return out

    def _term(self, t: Sexp, env: dict[str, Poly]) -> Poly:
        if isinstance(t, list) and t and t[0] == "let":
            env = dict(env)  # one copy per chain, then extended in place: a copy per let made a chain quadratic
        while isinstance(t, list) and t and t[0] == "let":  # a let chain: a loop, not a recursion
            if len(t) != 3 or not isinstance(t[1], list):
                raise Undecided("let")
            bound = {}
            for binding in t[1]:  # SMT-LIB's let is parallel: every binding reads the outer scope
                if not (isinstance(binding, list) and len(binding) == 2 and isinstance(binding[0], str)):
                    raise Undecided("let binding")
                try:
                    bound[binding[0]] = self.term(binding[1], env)
                except TooLarge as exc:  # too large *if used*: a product with a zero factor never uses it
                    bound[binding[0]] = exc  # type: ignore[assignment]
            env.update(bound)
            t = t[2]
        if isinstance(t, str):
            return self.symbol(t, env)
        if not t or not isinstance(t[0], str):
            raise Undecided("application")
        if t[0] == "ite" and len(t) == 4:  # decided only where the condition's truth is known
            return self.term(t[2] if self.truth(t[1], env) else t[3], env)
        if t[0] == "*":  # 0·p = 0 for every p: a zero factor spares the work of the others (and their size)
            return self.product(t[1:], env)
        head, args = t[0], [self.term(a, env) for a in t[1:]]
        if head == "+":
            out: Poly = {}
            for a in args:
                add(out, a)
            return out
        if head == "-" and args:  # a negation, or the first argument less the others
            out = {} if len(args) == 1 else dict(args[0])
            for a in args[len(args) > 1:]:
                add(out, a, -1)
            return out
        if head == "/" and len(args) == 2:
            if set(args[1]) - {()} or not args[1]:
                raise Undecided("division by a non-constant")
            return add({}, args[0], 1 / Fraction(args[1][()]))
        if head == "sgn" and len(args) == 1:
            return self.sign(args[0])
        if head in self.functions:
            params, body = self.functions[head]
            if len(params) != len(args):
                raise Undecided("arity")
            return self.term(body, dict(zip(params, args)))
        raise Undecided(f"operator {head}")

    def symbol(self, t: str, env: dict[str, Poly]) -> Poly:
        """A bound name, a declared constant or a numeral."""
        if t in env:
            if isinstance(env[t], TooLarge):
                raise env[t]  # type: ignore[misc]
            return env[t]
        if t in self.variables:
            return {(self.variables[t],): 1}
        q = _NUMERALS.get(t)
        if q is None:
            q = read_numeral(t)  # ints for integers: faster, equally exact
            if q is None:
                raise Undecided("an unknown symbol")
            if len(_NUMERALS) < 100_000:  # a bounded memo of numerals (immutable values)
                _NUMERALS[t] = q
        return {(): q} if q else {}

    def product(self, factors: list[Sexp], env: dict[str, Poly]) -> Poly:
        """Π factors; a factor whose normal form is 0 makes the product 0, even if another is too large."""
        values: list[Any] = []
        for f in factors:
            try:
                values.append(self.term(f, env))
            except TooLarge as exc:
                values.append(exc)  # an exception is truthy: only a zero normal form ends the loop
            if not values[-1]:
                return {}
        if not values or any(isinstance(v, TooLarge) for v in values):
            raise next((v for v in values if isinstance(v, TooLarge)), Undecided("an empty product"))
        return reduce(self.multiply, values)

    def truth(self, c: Sexp, env: dict[str, Poly]) -> bool:
        """A condition's truth where every comparison's difference has a constant or proved sign."""
        if c in ("true", "false"):
            return c == "true"
        if isinstance(c, list) and c and c[0] in ("and", "or") and len(c) >= 2:
            values = [self.truth(x, env) for x in c[1:]]
            return all(values) if c[0] == "and" else any(values)
        if isinstance(c, list) and len(c) == 2 and c[0] == "not":
            return not self.truth(c[1], env)
        if not (isinstance(c, list) and len(c) == 3 and c[0] in COMPARE):
            raise Undecided("a condition")
        difference = add(dict(self.term(c[1], env)), self.term(c[2], env), -1)
        sign = self.sign(difference)
        if set(sign) - {()}:
            bound = self.known.get(poly_key(difference))  # ±2: proved ≥ 0 / ≤ 0 (a proof's at-most case)
            if bound == 2 and c[0] in ("<", ">=") or bound == -2 and c[0] in (">", "<="):
                return c[0] in (">=", "<=")
            self.pending.append(difference)  # for a prover: a sign worth splitting on
            raise Undecided("a condition whose sign is not known")
        return COMPARE[c[0]](sign.get((), 0))

    def sign(self, p: Poly) -> Poly:
        if not p:
            return {}
        if set(p) == {()}:
            return {(): 1 if p[()] > 0 else -1}
        value = self.known.get(key := poly_key(p))
        if value in (-1, 0, 1):  # a bound ±2 leaves the sign an atom
            return {(): value} if value else {}
        atom = self.atoms.setdefault(key, SIGN_ATOM + len(self.atoms))
        return {(atom,): 1}


def decide(text: str, tally: list[int] | None = None, left: int | None = None) -> bool | None:
    """True: every goal of the lemma is an identity (the lemma is valid); None: not decided here. ``tally[0]``: the
    work of the certificate's lemmas so far, to which this one's is added (decided or not), ``left`` what it has left."""
    n = _Normaliser(None if left is None else min(left, 2 * MAX_PRODUCT_WORK))
    try:
        n, asserted = read_lemma(text, n)
        bound: dict[str, Poly] = {}
        if not asserted:
            return None
        *hypotheses, goal = asserted
        for h in hypotheses:  # a hypothesis v = constant is used as the substitution of v; others are not used
            if isinstance(h, list) and len(h) == 3 and h[0] == "=" and isinstance(h[1], str) and h[1] in n.variables \
                    and h[1] not in bound:
                value = n.term(h[2], {})
                if not set(value) - {()}:
                    bound[h[1]] = value
        if not (isinstance(goal, list) and len(goal) == 2 and goal[0] == "not"):
            return None
        body = goal[1]
        equations = body[1:] if isinstance(body, list) and body and body[0] == "and" else [body]
        for eq in equations:
            if not (isinstance(eq, list) and len(eq) == 3 and eq[0] == "="):
                return None
            difference = add(dict(n.term(eq[1], bound)), n.term(eq[2], bound), -1)
            if difference:
                return None
        return True
    except (Undecided, TooLarge, RecursionError, ZeroDivisionError, ValueError):
        return None
    finally:
        if tally is not None:
            tally[0] += n.work


def poly_key(p: Poly) -> tuple:
    """A hashable name of a normal form (sign atoms and proved signs are keyed by it)."""
    return tuple(sorted(p.items()))


def read_lemma(text: str, n: _Normaliser | None = None) -> tuple[_Normaliser, list[Sexp]]:
    """The kernel printer's lemma text: its constants and functions in a normaliser (``n``, or a new one), and its
    assertions in order (the last is the negated goal, earlier ones hypotheses); ``Undecided`` on anything else."""
    n = n or _Normaliser()
    asserted: list[Sexp] = []
    for form in parse(text):
        if not isinstance(form, list) or not form:
            raise Undecided("form")
        if form[0] == "declare-const" and len(form) == 3 and form[2] == "Real":
            n.variables.setdefault(form[1], len(n.variables))
        elif form[0] == "define-fun" and form[1] == "sgn":
            if form != _SGN:
                raise Undecided("a sign that is not the kernel's")
        elif form[0] == "define-fun" and len(form) == 5 and form[3] == "Real":
            n.functions[form[1]] = ([p[0] for p in form[2]], form[4])
        elif form[0] == "assert" and len(form) == 2:
            asserted.append(form[1])
        elif form[0] not in ("set-logic", "check-sat"):
            raise Undecided(f"command {form[0]}")
    return n, asserted
