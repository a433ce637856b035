"""Values the exact engine has chosen not to compute: the settled run (exact_engine's docstring).

A settled run replaces each coordinate that the schedule says is not settled yet by an *atom*, a
symbol standing for that (position, coordinate)'s actual value at that layer.  Arithmetic then runs
on affine forms ``c + Σ qᵢ·atomᵢ`` over Q: sums and rational multiples stay exact forms, so an
update such as ``val + flag·(new − val)`` gives exactly ``new`` when ``flag = 1`` and ``val``
when ``flag = 0``, whatever ``val`` holds.  What a form cannot express becomes ⊥ (``UNKNOWN``,
"some rational"): a product of two non-constant forms, the sign of one, anything with ⊥ except
``0 · ⊥ = 0``.  So every *number* a settled run computes is the number the full run computes,
whatever the forgotten coordinates held: forgetting can turn values into forms or ⊥, never into
other numbers.

Atoms are named by (position, coordinate) and are reused from layer to layer, which is sound
because at each layer boundary only a forgotten coordinate holds an atom — its own — and every
other form is collapsed to ⊥ (:func:`collapse`): all inputs of one layer are then symbols of that
layer's values.  Nothing compares forms by order; equality is structural (the engine's "did this
row change?" tests).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


class _Symbolic:
    """A value the settled run did not compute (a form or ⊥)."""

    __slots__ = ()


class _Unknown(_Symbolic):
    """The one ⊥ value (``UNKNOWN``)."""

    __slots__ = ()

    def __add__(self, other: Any) -> "_Unknown":
        return self

    __radd__ = __sub__ = __rsub__ = __truediv__ = __rtruediv__ = __add__

    def __neg__(self) -> "_Unknown":
        return self

    def __mul__(self, other: Any) -> Any:
        return 0 if not isinstance(other, _Symbolic) and other == 0 else self

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return "⊥"

    def __reduce__(self) -> str:
        return "UNKNOWN"  # one ⊥ per process, also after pickling


UNKNOWN = _Unknown()


def _number(v: Any) -> Any:
    return v if type(v) is int or v.denominator != 1 else int(v.numerator)


class Form(_Symbolic):
    """``const + Σ terms[atom]·atom`` with at least one non-zero term (else it is a number)."""

    __slots__ = ("const", "terms", "_hash")

    def __init__(self, const: Any, terms: dict[int, Any]):
        self.const, self.terms, self._hash = const, terms, None

    @staticmethod
    def atom(name: int) -> "Form":
        return Form(0, {name: 1})

    def _new(self, const: Any, terms: dict[int, Any]) -> Any:
        return Form(const, terms) if terms else _number(const)

    def __add__(self, other: Any) -> Any:
        if type(other) is Form:
            terms = dict(self.terms)
            for k, q in other.terms.items():
                s = terms.get(k, 0) + q
                if s:
                    terms[k] = s
                else:
                    del terms[k]
            return self._new(self.const + other.const, terms)
        if other is UNKNOWN:
            return UNKNOWN
        return Form(self.const + other, self.terms)

    __radd__ = __add__

    def __neg__(self) -> "Form":
        return Form(-self.const, {k: -q for k, q in self.terms.items()})

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def __rsub__(self, other: Any) -> Any:
        return (-self) + other

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, _Symbolic):
            return UNKNOWN
        if other == 0:
            return 0
        return Form(self.const * other, {k: q * other for k, q in self.terms.items()})

    __rmul__ = __mul__

    def scaled(self, r: Any) -> "Form":
        """``self · r`` for a number ``r ≠ 0`` (as ``*``, without its checks)."""
        return Form(self.const * r, {k: q * r for k, q in self.terms.items()})

    def __truediv__(self, other: Any) -> Any:
        if isinstance(other, _Symbolic):
            return UNKNOWN
        return self * (_reciprocal(other) if type(other) is int else 1 / other)

    def renamed(self, names: dict[int, int]) -> "Form":
        """The same form over renamed atoms (``names`` maps every atom it holds)."""
        return Form(self.const, {names[k]: q for k, q in self.terms.items()})

    def __eq__(self, other: object) -> bool:
        return type(other) is Form and self.const == other.const and self.terms == other.terms

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.const, frozenset(self.terms.items())))
        return self._hash

    def __repr__(self) -> str:
        return f"Form({self.const} + {self.terms})"


try:  # the engine's rationals (exact_kernels): GMP where available
    from gmpy2 import mpq as _mpq

    def _reciprocal(n: int) -> Any:
        return _mpq(1, n)
except ImportError:  # pragma: no cover
    def _reciprocal(n: int) -> Any:
        return Fraction(1, n)


def shift(total: Any, old: Any, new: Any) -> Any:
    """``total + (new − old)``, the same value with one new form at most (an average's running sum); ``old`` and
    ``new`` are not ⊥. A ⊥ total stays ⊥: another member's ⊥ is still in the sum."""
    if total is UNKNOWN or type(total) is not Form and type(old) is not Form and type(new) is not Form:
        return total + (new - old)
    terms = dict(total.terms) if type(total) is Form else {}
    const = total.const if type(total) is Form else total
    for v, sign in ((new, 1), (old, -1)):
        if type(v) is Form:
            const = const + sign * v.const
            for k, q in v.terms.items():
                r = terms.get(k, 0) + sign * q
                if r:
                    terms[k] = r
                else:
                    del terms[k]
        else:
            const = const + sign * v
    return Form(const, terms) if terms else _number(const)


def is_symbolic(v: Any) -> bool:
    """Whether ``v`` is a form or ⊥ rather than a number."""
    return isinstance(v, _Symbolic)


def collapse(v: Any) -> Any:
    """A layer boundary's value: a number stays, any form becomes ⊥."""
    return UNKNOWN if isinstance(v, _Symbolic) else v


__all__ = ["Form", "UNKNOWN", "collapse", "is_symbolic", "shift"]
