"""Parameterised circuit families: one circuit per size parameter ``n``.

``FAMILIES`` maps the command line's family names (``--family NAME --n N``)
to :class:`Family` records; :func:`build_family` builds one member.  Every
member is written in the strict basis through
:class:`~verified_aat.circuits.builder.CircuitBuilder`.  Each family also
carries an independent pure-Python ``reference`` function (no circuit
involved) so tests can compare ``evaluate(build_family(name, n), xs)`` with
it on random inputs.

Multiplications have fan-in exactly 2 (FSAC⁰[sign], or FNC⁰[sign] when every
addition is binary too) except in ``unbounded-product``, which is a FAC⁰
family on purpose: constructions must refuse it (MATH.md §4, degree bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from ...errors import InputError
from ..ir import Circuit, Domain
from ..measures import CircuitClass

MAX_N = 10**6
"""No family accepts a larger ``n`` (quadratic families accept less)."""

Reference = Callable[[list[Fraction]], list[Fraction]]


@dataclass(frozen=True)
class Family:
    """A circuit family and what is known about it without building it.

    ``circuit_class``/``has_sign`` describe large members (small members may
    fall into a smaller class, e.g. an add of fan-in 2 is FNC⁰);
    ``constant_depth`` says whether depth is independent of ``n``.
    """

    name: str
    description: str
    min_n: int
    builder: Callable[[int], Circuit]
    reference: Reference
    domain: Domain
    n_inputs: Callable[[int], int]
    circuit_class: CircuitClass
    has_sign: bool
    constant_depth: bool
    max_n: int = MAX_N

    @property
    def class_name(self) -> str:
        return f"{self.circuit_class.value}[sign]" if self.has_sign else self.circuit_class.value

    def build(self, n: int) -> Circuit:
        """The member for ``n`` (checked: ``min_n <= n <= max_n``)."""
        return build_family(self.name, n)


def _registry() -> dict[str, Family]:
    from . import arithmetic, boolean, random_fsac, signs

    families: dict[str, Family] = {}
    for module in (arithmetic, signs, boolean, random_fsac):
        for family in module.families():
            assert family.name not in families, family.name
            families[family.name] = family
    return families


FAMILIES: dict[str, Family] = _registry()


def family_names() -> list[str]:
    """Known family names, sorted."""
    return sorted(FAMILIES)


def build_family(name: str, n: int) -> Circuit:
    """Build member ``n`` of family ``name``; bad names or sizes raise InputError."""
    family = FAMILIES.get(name)
    if family is None:
        raise InputError(f"unknown circuit family {name!r}; known families: {', '.join(family_names())}")
    if isinstance(n, bool) or not isinstance(n, int):
        raise InputError(f"family {name}: n must be an integer, got {n!r}")
    if n < family.min_n:
        raise InputError(f"family {name}: n must be at least {family.min_n}, got {n}")
    if n > family.max_n:
        raise InputError(f"family {name}: n must be at most {family.max_n}, got {n}")
    circuit = family.builder(n)
    assert circuit.n_inputs == family.n_inputs(n), (name, n)
    assert circuit.domain is family.domain, (name, n)
    return circuit


__all__ = ["FAMILIES", "Family", "MAX_N", "build_family", "family_names"]
