"""The seven built-ins as Python classes: the writers of their shipped documents.

Nothing in the main paths uses these (the registry serves the documents); they stay as the
readable source of the layouts and circuits, and tests/test_construction_documents.py proves that
each class and its document give byte for byte the same transformers, encodings, intentions and
descriptions.
"""

from __future__ import annotations

from typing import Any

from ..transformer.model import Pooling
from .base import Construction


def python_constructions() -> dict[str, Construction]:
    """Name → a fresh instance of each built-in's Python class, in the registry's order."""
    from .edge_k import EdgeK
    from .edge_only import EdgeOnly
    from .gate_edge import GateEdge
    from .unique_hard import UniqueHard
    from .unique_hard_rule import UniqueHardOneRule

    items: list[Construction] = [GateEdge(), GateEdge(dot=True), UniqueHard(), UniqueHardOneRule(Pooling.LEFTMOST),
                                 UniqueHardOneRule(Pooling.RIGHTMOST), EdgeOnly(), EdgeK()]
    return {c.name: c for c in items}


def description_json(construction: Construction) -> dict[str, Any]:
    """The ``"description"`` section of a class's document, written from the class's prose
    (``layout_doc()``, ``POSITIONS_DOC``, ``CODES_DOC``, ``ARGMAX_DOC``, ``READOUT_DOC``)."""
    d = construction.description()
    out: dict[str, Any] = {}
    if d.layout:
        out["layout"] = {coord: [gate, edge] for coord, gate, edge in d.layout}
    if d.positions is not None:
        out["positions"] = d.positions
    if d.codes:
        out["codes"] = [[what, code] for what, code in d.codes]
    if d.argmax:
        out["argmax"] = dict(d.argmax)
    if d.readout is not None:
        out["readout"] = d.readout
    return out
