"""Input sequences as JSON (``verified-aat/sequence``, version 1).

``{"format": "verified-aat/sequence", "version": 1, "coordinates": [...],
"vectors": [["1", "-3/4", ...], ...]}``: one vector per position, one exact
rational per coordinate, written as a string (``"-3/4"``) or an integer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from ..errors import InputError
from .jsonfile import Locator, format_rational, parse_rational, read_json_file, write_text_atomic
from ..wording import plural

FORMAT = "verified-aat/sequence"
VERSION = 1

Number = int | Fraction


@dataclass(frozen=True)
class InputSequence:
    coordinates: tuple[str, ...]
    vectors: tuple[tuple[Number, ...], ...]

    def __len__(self) -> int:
        return len(self.vectors)


def sequence_to_json(coordinates: Sequence[str], vectors: Sequence[Sequence[Number]]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "coordinates": list(coordinates),
            "vectors": [[format_rational(v) for v in row] for row in vectors]}


def dumps_sequence(coordinates: Sequence[str], vectors: Sequence[Sequence[Number]]) -> str:
    """One vector per line, so that error line numbers name the position."""
    doc = sequence_to_json(coordinates, vectors)
    head = (f'{{"format": {json.dumps(FORMAT)}, "version": {VERSION},\n'
            f' "coordinates": {json.dumps(doc["coordinates"])},\n "vectors": [')
    body = ",".join(f"\n  {json.dumps(row)}" for row in doc["vectors"])
    return head + body + ("\n ]}\n" if body else "]}\n")


def save_sequence(path: str | os.PathLike[str], coordinates: Sequence[str],
                  vectors: Sequence[Sequence[Number]]) -> None:
    write_text_atomic(path, dumps_sequence(coordinates, vectors))


def sequence_from_json(data: Any, file: str | None = None, *, locator: Locator | None = None,
                       coordinates: Sequence[str] | None = None) -> InputSequence:
    """Validate a sequence document; ``coordinates``, if given, must match it exactly."""
    loc = locator or Locator(None)

    def error(message: str, *path: str | int) -> InputError:
        return InputError(message, file, loc.line(path))

    if not isinstance(data, dict):
        raise error("a sequence file must be a JSON object")
    if data.get("format") != FORMAT:
        raise error(f"not a sequence file (\"format\" should be {FORMAT!r})", "format")
    version = data.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise error(f"unsupported sequence version {version!r} (this tool reads version {VERSION})", "version")
    unknown = sorted(set(data) - {"format", "version", "coordinates", "vectors", "notes"})
    if unknown:
        raise error(f"unknown key {unknown[0]!r}", unknown[0])
    coords = data.get("coordinates")
    if not isinstance(coords, list) or not all(isinstance(c, str) for c in coords) or len(set(coords)) != len(coords):
        raise error("\"coordinates\" must be a list of distinct names", "coordinates")
    if coordinates is not None and tuple(coords) != tuple(coordinates):
        raise error(f"the sequence's coordinates [{', '.join(coords)}] differ from the model's "
                    f"[{', '.join(coordinates)}]", "coordinates")
    vectors = data.get("vectors")
    if not isinstance(vectors, list):
        raise error("\"vectors\" must be a list of vectors", "vectors")
    rows = []
    for position, vector in enumerate(vectors):
        if not isinstance(vector, list) or len(vector) != len(coords):
            size = len(vector) if isinstance(vector, list) else type(vector).__name__
            raise error(f"position {position}: expected a list of {plural(len(coords), 'value')}, got {size}",
                        "vectors", position)
        rows.append(tuple(parse_rational(v, f"position {position}, coordinate {coords[k]}", file,
                                         loc.line(("vectors", position, k)))
                          for k, v in enumerate(vector)))
    return InputSequence(tuple(coords), tuple(rows))


def load_sequence(path: str | os.PathLike[str], coordinates: Sequence[str] | None = None) -> InputSequence:
    """Read a sequence file (``-``: standard input); every problem is an :class:`InputError` at ``file:line``."""
    from ..files import shown
    data, locator = read_json_file(path, "sequence")
    return sequence_from_json(data, shown(os.fspath(path)), locator=locator, coordinates=coordinates)
