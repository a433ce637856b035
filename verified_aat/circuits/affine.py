"""Depth-aware construction of strict-basis circuits from affine forms.

Netlist arithmetization (``arithmetize.py``) describes every signal by a
:class:`Form` ``c0 + Σ cᵢ·wᵢ`` over wires of a growing gate list, so that
negations and other affine maps cost no gate at all.  A product of two forms
is expanded into binary ``mul`` gates (one level) as long as it has at most
``cap`` terms; larger operands are first *materialized* into one ``add`` gate.

There is no subtraction in the basis, so a term ``c·w`` with ``c`` not a small
positive integer uses a *scaled twin* of ``w``: a wire computing ``c·w`` at the
same depth when the gate structure allows it (``c·const``, ``c·Σ`` = ``Σ c·``,
``c·(a·b)`` = ``(c·a)·b``, ``−sign(v)`` = ``sign(−v)``), and ``mul(const c, w)``
(one level more) otherwise.  Gates are hash-consed; :meth:`Engine.build` keeps
only the gates the outputs need.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from .builder import CircuitBuilder
from .ir import Circuit, Domain, Kind, Provenance

Wire = int
Number = int | Fraction  # exact; integral values are kept as int (fast to hash)
REPEAT = 4  # a term n·w with 1 <= n <= REPEAT is n parallel edges


@dataclass(frozen=True, slots=True)
class Form:
    """The affine form ``const + Σ coef·wire`` (terms sorted by wire, coefficients ≠ 0)."""

    const: Number
    terms: tuple[tuple[Wire, Number], ...] = ()

    @staticmethod
    def of(value: Number) -> "Form":
        return Form(num(value))

    @staticmethod
    def wire(w: Wire) -> "Form":
        return Form(0, ((w, 1),))

    @staticmethod
    def lin(parts: Iterable[tuple[Number, "Form"]], const: Number = 0) -> "Form":
        """``const + Σ k·F`` for the given ``(k, F)`` pairs."""
        acc: dict[Wire, Number] = {}
        total = const
        for k, form in parts:
            total += k * form.const
            for w, c in form.terms:
                acc[w] = acc.get(w, 0) + k * c
        return Form(num(total), tuple(sorted((w, num(c)) for w, c in acc.items() if c)))

    def affine(self, k: Number, const: Number = 0) -> "Form":
        """``const + k·self``."""
        return Form.lin([(k, self)], const)

    @property
    def size(self) -> int:
        """Number of summands (terms plus a nonzero constant)."""
        return len(self.terms) + (self.const != 0)


def num(value: Number) -> Number:
    """``value`` as an int when integral, else as a Fraction."""
    if isinstance(value, int):
        return value
    q = Fraction(value)
    return q.numerator if q.denominator == 1 else q


class Engine:
    """A hash-consed gate list with depths, scaled twins and form products."""

    def __init__(self, cap: int = 16) -> None:
        self.cap = cap
        self.kinds: list[Kind] = []
        self.args: list[tuple[Wire, ...]] = []
        self.values: list[Fraction | None] = []
        self.names: list[str | None] = []
        self.depth: list[int] = []
        self._cons: dict[tuple[object, ...], Wire] = {}
        self._scaled: dict[tuple[Wire, Number], Wire] = {}
        self._ok: dict[tuple[Wire, Number], bool] = {}
        self._mat: dict[Form, Wire] = {}
        self.final: dict[Wire, int] = {}  # after build: engine wire -> gate index in the circuit
        self.edges = 0  # arguments of all gates made so far

    # -- gates ------------------------------------------------------------
    def _new(self, kind: Kind, args: tuple[Wire, ...] = (), value: Fraction | None = None,
             name: str | None = None) -> Wire:
        self.kinds.append(kind)
        self.args.append(args)
        self.values.append(value)
        self.names.append(name)
        self.edges += len(args)
        leaf = 0 if kind in (Kind.INPUT, Kind.CONST) else 1
        self.depth.append(1 + max(self.depth[a] for a in args) if args else leaf)
        return len(self.kinds) - 1

    def input(self, name: str) -> Wire:
        return self._new(Kind.INPUT, name=name)

    def const(self, value: Number) -> Wire:
        key = ("c", Fraction(value))
        if key not in self._cons:
            self._cons[key] = self._new(Kind.CONST, value=Fraction(value))
        return self._cons[key]

    def gate(self, kind: Kind, args: tuple[Wire, ...]) -> Wire:
        """An add/mul/sign gate, shared with an identical earlier one."""
        key = (kind, tuple(sorted(args)))
        if key not in self._cons:
            self._cons[key] = self._new(kind, args)
        return self._cons[key]

    # -- scaled twins -----------------------------------------------------
    def can_scale(self, w: Wire, c: Number) -> bool:
        """Whether ``c·w`` can be computed at ``depth(w)`` (iterative, memoised)."""
        memo = self._ok
        stack = [w]
        while stack:
            g = stack[-1]
            if (g, c) in memo or (g, c) in self._scaled:
                stack.pop()
                continue
            kind, args, d = self.kinds[g], self.args[g], self.depth[g]
            need: list[Wire] = []
            if c == 1 or kind is Kind.CONST:
                result: bool | None = True
            elif kind is Kind.INPUT or (kind is Kind.SIGN and c != -1):
                result = False
            elif kind is Kind.MUL and any(self.depth[a] < d - 1 for a in args):
                result = True
            else:
                need = [a for a in args if self.depth[a] == d - 1] if kind is Kind.ADD else list(args)
                result = None
            pending = [a for a in need if (a, c) not in memo and (a, c) not in self._scaled]
            if pending:
                stack.extend(pending)
                continue
            if result is None:
                oks = [self._scaled_ok(a, c) for a in need]
                result = all(oks) if kind is Kind.ADD else any(oks)
            memo[(g, c)] = result
            stack.pop()
        return self._scaled_ok(w, c)

    def _scaled_ok(self, w: Wire, c: Number) -> bool:
        if (w, c) in self._scaled:
            return self.depth[self._scaled[(w, c)]] <= self.depth[w]
        return self._ok[(w, c)]

    def scaled(self, w: Wire, c: Number) -> Wire:
        """A wire computing ``c·w``: a same-depth twin when possible, else ``mul(const c, w)``."""
        c = num(c)
        if c == 1:
            return w
        self.can_scale(w, c)
        stack = [w]
        while stack:
            g = stack[-1]
            if (g, c) in self._scaled:
                stack.pop()
                continue
            kind, args, d = self.kinds[g], self.args[g], self.depth[g]
            if not self._scaled_ok(g, c):
                self._remember(g, c, self.gate(Kind.MUL, (self.const(c), g)))
            elif kind is Kind.CONST:
                self._remember(g, c, self.const(c * self.values[g]))  # type: ignore[operator]
            else:
                pick = self._pick_factor(g, c) if kind is Kind.MUL else None
                todo = [pick] if pick is not None else list(dict.fromkeys(args))
                critical = [a for a in todo if (a, c) not in self._scaled and self.depth[a] == d - 1
                            and self.kinds[a] is not Kind.CONST]
                if critical:
                    stack.extend(critical)
                    continue
                if pick is not None:
                    i = args.index(pick)
                    new = args[:i] + (self._cheap_scaled(pick, c),) + args[i + 1:]
                else:
                    new = tuple(self._cheap_scaled(a, c) for a in args)
                self._remember(g, c, self.gate(kind, new))
            stack.pop()
        return self._scaled[(w, c)]

    def _cheap_scaled(self, a: Wire, c: Number) -> Wire:
        """``c·a`` for an argument with slack: a known twin, a constant or ``mul(const c, a)``."""
        if (a, c) in self._scaled:
            return self._scaled[(a, c)]
        if self.kinds[a] is Kind.CONST:
            return self.const(c * self.values[a])  # type: ignore[operator]
        return self.gate(Kind.MUL, (self.const(c), a))

    def _pick_factor(self, g: Wire, c: Number) -> Wire:
        """Which factor of mul gate ``g`` carries the scale ``c``."""
        d = self.depth[g]

        def cost(a: Wire) -> tuple[int, int]:
            if (a, c) in self._scaled and self.depth[self._scaled[(a, c)]] < d:
                return (0, 0)
            if self.kinds[a] is Kind.CONST:
                return (0, 1)
            if self.depth[a] < d - 1:
                return (1, 0)
            return (2, 0) if self._ok.get((a, c)) else (9, 0)

        return min(self.args[g], key=cost)

    def _remember(self, w: Wire, c: Number, t: Wire) -> None:
        self._scaled[(w, c)] = t
        inv = num(Fraction(1) / c)
        if (t, inv) not in self._scaled:
            self._scaled[(t, inv)] = w

    # -- forms ------------------------------------------------------------
    def form_depth(self, form: Form) -> int:
        return max((self.depth[w] for w, _ in form.terms), default=0)

    def _term_depth(self, w: Wire, c: Number) -> int:
        if c.denominator == 1 and 1 <= c <= REPEAT:
            return self.depth[w]
        if c.denominator == 1 and -REPEAT <= c < 0 and self.can_scale(w, -1):
            return self.depth[w]
        return self.depth[w] + (0 if self.can_scale(w, c) else 1)

    def sum_depth(self, form: Form) -> int:
        """The depth of ``form``'s terms as arguments of an add gate (0 for a constant)."""
        return max((self._term_depth(w, c) for w, c in form.terms), default=0)

    def materialized_depth(self, form: Form) -> int:
        """The depth :meth:`materialize` would give ``form`` (no gates are made)."""
        if form in self._mat:
            return self.depth[self._mat[form]]
        if not form.terms:
            return 0
        if form.const == 0 and len(form.terms) == 1:
            w, c = form.terms[0]
            return self.depth[w] + (0 if self.can_scale(w, c) else 1)
        return 1 + max(self._term_depth(w, c) for w, c in form.terms)

    def materialize(self, form: Form) -> Wire:
        """One wire computing ``form`` (an add gate unless it is a scaled single wire)."""
        if form in self._mat:
            return self._mat[form]
        if not form.terms:
            wire = self.const(form.const)
        elif form.const == 0 and len(form.terms) == 1:
            wire = self.scaled(*form.terms[0])
        else:
            args: list[Wire] = [self.const(form.const)] if form.const else []
            for w, c in form.terms:
                if c.denominator == 1 and 1 <= c <= REPEAT:
                    args += [w] * int(c)
                elif c.denominator == 1 and -REPEAT <= c < 0 and self.can_scale(w, -1):
                    args += [self.scaled(w, -1)] * int(-c)
                else:
                    args.append(self.scaled(w, c))
            wire = self.gate(Kind.ADD, tuple(args))
        self._mat[form] = wire
        return wire

    def _wire_form_depth(self, form: Form) -> int:
        return min(self.materialized_depth(form), self.materialized_depth(form.affine(-1)))

    def as_wire_form(self, form: Form) -> Form:
        """``form`` as ``±w`` for one materialized wire ``w``, choosing the shallower sign."""
        if self.materialized_depth(form.affine(-1)) < self.materialized_depth(form):
            return Form(0, ((self.materialize(form.affine(-1)), -1),))
        return Form.wire(self.materialize(form))

    def mul(self, f: Form, g: Form) -> Form:
        """The product ``f·g``, expanded; operands over ``cap`` terms are materialized first."""
        if not f.terms or not g.terms:
            return g.affine(f.const) if not f.terms else f.affine(g.const)
        if f.size * g.size > self.cap:  # materialize what keeps the product shallowest
            df, dg = self.form_depth(f), self.form_depth(g)
            mf, mg = self._wire_form_depth(f), self._wire_form_depth(g)
            options = [(max(mf, dg), g.size, True, False), (max(df, mg), f.size, False, True),
                       (max(mf, mg), 1, True, True)]
            _, _, do_f, do_g = min(o for o in options if o[1] <= self.cap or o[2] and o[3])
            f = self.as_wire_form(f) if do_f else f
            g = self.as_wire_form(g) if do_g else g
        parts: list[tuple[Number, Form]] = [(g.const, f.affine(1, -f.const)), (f.const, g.affine(1, -g.const))]
        for u, a in f.terms:
            for v, b in g.terms:
                parts.append((a * b, Form.wire(self.gate(Kind.MUL, (u, v)))))
        return Form.lin(parts, f.const * g.const)

    def product(self, forms: list[Form]) -> Form:
        """Π forms by a depth-balanced tree of :meth:`mul` (shallowest pairs first)."""
        if not forms:
            return Form.of(1)
        heap = [(self.form_depth(f), f.size, i, f) for i, f in enumerate(forms)]
        heapq.heapify(heap)
        count = len(heap)
        while len(heap) > 1:
            a, b = heapq.heappop(heap)[3], heapq.heappop(heap)[3]
            p = self.mul(a, b)
            heapq.heappush(heap, (self.form_depth(p), p.size, count, p))
            count += 1
        return heap[0][3]

    def sign(self, form: Form) -> Form:
        """``sign(form)`` as ``±`` one sign gate, over whichever of ``±form`` is shallower."""
        if not form.terms:
            return Form.of((form.const > 0) - (form.const < 0))
        neg = form.affine(-1)
        if self.materialized_depth(neg) < self.materialized_depth(form):
            return Form(0, ((self.gate(Kind.SIGN, (self.materialize(neg),)), -1),))
        return Form.wire(self.gate(Kind.SIGN, (self.materialize(form),)))

    # -- output -----------------------------------------------------------
    def build(self, name: str, outputs: list[tuple[Wire, str]], domain: Domain,
              provenance: Provenance | None, keep: Iterable[Wire] = ()) -> Circuit:
        """The circuit of all inputs and the gates the outputs (and ``keep``) reach, via :class:`CircuitBuilder`."""
        live = [kind is Kind.INPUT for kind in self.kinds]
        stack = [w for w, _ in outputs] + list(keep)
        while stack:
            w = stack.pop()
            if not live[w]:
                live[w] = True
                stack.extend(self.args[w])
        b = CircuitBuilder(name, domain)
        new: dict[Wire, Wire] = {}
        for w, kind in enumerate(self.kinds):
            if not live[w]:
                continue
            args = tuple(new[a] for a in self.args[w])
            if kind is Kind.INPUT:
                new[w] = b.input(self.names[w])
            elif kind is Kind.CONST:
                new[w] = b.const(self.values[w])  # type: ignore[arg-type]
            elif kind is Kind.ADD:
                new[w] = b.add(*args)
            elif kind is Kind.MUL:
                new[w] = b.mul(*args)
            else:
                new[w] = b.sign(args[0])
        for w, out_name in outputs:
            b.output(new[w], out_name)
        self.final = new
        return b.build(provenance)
