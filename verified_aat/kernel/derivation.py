"""The lemmas a checker derives (identical texts are one lemma, keyed by their sha256) and the distinct layer
functions it derives them for: shared by the per-circuit (``obligations.py``) and schematic derivations."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .agreement import charge  # the room of lemma text (S11), reject-only
from .data import Layer, Transformer


@dataclass
class Lemma:
    kind: str
    text: str
    uses: int = 0
    where: str = ""  # its first use, for messages


@dataclass
class Derivation:
    lemmas: dict[str, Lemma] = field(default_factory=dict)  # sha256 of the text → lemma
    counts: Counter = field(default_factory=Counter)        # obligation kind → number of uses
    room: int | None = None  # characters of lemma text left (``lemma_room``); None: no bound (the engine's own use)

    def use(self, text: str, kind: str, count: bool = True, where: str = "") -> str:
        digest = hashlib.sha256(text.encode()).hexdigest()
        lemma = self.lemmas.get(digest)
        if lemma is None:
            self.room = charge(self.room, len(text))
            lemma = self.lemmas[digest] = Lemma(kind, text, where=where)
        lemma.uses += 1
        if count:
            self.counts[kind] += 1
        return digest


@dataclass(frozen=True)
class Function:
    """A distinct layer and the (1-based) layers that use it."""

    number: int
    layer: Layer
    layers: tuple[int, ...]


def layer_functions(transformer: Transformer) -> list[Function]:
    found: dict[Any, tuple[Layer, list[int]]] = {}
    for number, layer in enumerate(transformer.layers, start=1):
        found.setdefault(layer.key, (layer, []))[1].append(number)
    return [Function(k, layer, tuple(used)) for k, (layer, used) in enumerate(found.values())]
