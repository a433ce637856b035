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

from ...errors import InputError
from ..ir import Circuit
from .base import MAX_N, Family, Reference  # noqa: F401 - re-exported


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
    return family.build(n)


__all__ = ["FAMILIES", "Family", "MAX_N", "build_family", "family_names"]
