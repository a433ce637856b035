"""A ``--transformer`` file meant for a construction, checked against it before any work.

The engines and provers refuse a transformer with another construction's coordinates or
with softmax heads, but they hold no file name; checking here, where the file and its
line locator are known, makes the one-line error name ``T.json:line`` instead of ``<input>``.
"""

from __future__ import annotations

from ..constructions.base import Construction
from ..errors import InputError
from ..files import shown
from ..transformer.jsonfile import read_json_file
from ..transformer.model import Pooling, Transformer
from ..transformer.spec import transformer_from_json


def load_for_construction(path: str, construction: Construction, exact: bool = True) -> Transformer:
    """The spec at ``path``; an :class:`InputError` at its line if its coordinates are not the
    construction's, or (``exact``) if a head pools by softmax, which no exact proof covers."""
    data, locator = read_json_file(path, "transformer")
    path = shown(path)
    model = transformer_from_json(data, path, locator=locator)
    expected = construction.transformer(1).coordinates
    if tuple(model.coordinates) != tuple(expected):
        raise InputError(f"the transformer's coordinates {tuple(model.coordinates)} are not {construction.name}'s "
                         f"{tuple(expected)} (is it another construction's transformer?)", path,
                         locator.line(("coordinates",)))
    for k, layer in enumerate(model.layers if exact else ()):
        for j, head in enumerate(layer.heads):
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(f"layer {k + 1}, head {head.name}: softmax pooling cannot be proved exactly "
                                 f"over Q (run it with --engine float64 instead)", path,
                                 locator.line(("layers", k, "heads", j, "pooling")))
    return model
