"""Constructions by their stable names."""

from __future__ import annotations

from ..errors import InputError
from .base import Construction
from .gate_edge import GateEdge
from .unique_hard import UniqueHard
from .unique_hard_rule import UniqueHardOneRule
from ..transformer.model import Pooling


def _all() -> dict[str, Construction]:
    items: list[Construction] = [GateEdge(), GateEdge(dot=True), UniqueHard(),
                                 UniqueHardOneRule(Pooling.LEFTMOST), UniqueHardOneRule(Pooling.RIGHTMOST)]
    try:
        from .edge_only import EdgeOnly
        from .edge_k import EdgeK
        items += [EdgeOnly(), EdgeK()]
    except ImportError:  # pragma: no cover - optional stage
        pass
    return {c.name: c for c in items}


CONSTRUCTIONS: dict[str, Construction] = _all()


def get_construction(name: str) -> Construction:
    try:
        return CONSTRUCTIONS[name]
    except KeyError:
        raise InputError(f"unknown construction {name!r}; known: {', '.join(sorted(CONSTRUCTIONS))}") from None


def construction_choice(value: str) -> str:
    """The ``-c`` option's type: a built-in name or a construction document ``FILE.json``
    (validated later by :func:`resolve_construction`, so that its errors name file:line)."""
    import argparse

    if value in CONSTRUCTIONS or value.endswith(".json"):
        return value
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(sorted(CONSTRUCTIONS))}, "
                                     "or a construction document FILE.json)")


def resolve_construction(name_or_path: str) -> Construction:
    """A built-in by NAME, or the construction a document FILE.json states (validated)."""
    if name_or_path.endswith(".json") and name_or_path not in CONSTRUCTIONS:
        from .interpreted import DocumentConstruction
        return DocumentConstruction.load(name_or_path)
    return get_construction(name_or_path)
