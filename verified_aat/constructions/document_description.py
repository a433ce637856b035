"""The optional ``"description"`` of a construction document: the prose of its specification.

Read by ``describe.py`` (specs/constructions/NAME.md) and the report's layout table; never by the
engine or the kernel (nothing here is trusted).  See docs/construction-format.md.
"""

from __future__ import annotations

from typing import Any

from .base import Description

_KEYS = {"layout", "positions", "codes", "argmax", "readout"}
MAX_TEXT = 2000


def description(r: Any, coordinates: tuple[str, ...], heads: set[str]) -> Description:
    """The validated description (every part optional; an absent one is the empty :class:`Description`)."""
    path: tuple[str | int, ...] = ("description",)
    data = r.obj(r.data.get("description", {}), path, _KEYS, "\"description\"", _KEYS)
    layout = []
    items = r.obj(data.get("layout", {}), path + ("layout",), set(coordinates), "\"description.layout\"",
                  set(coordinates))
    for coord, pair in items.items():
        where = path + ("layout", coord)
        if not isinstance(pair, list) or len(pair) != 2:
            raise r.error(f"\"description.layout.{coord}\": a pair [at a gate, at an edge] of texts", where)
        layout.append((coord, _text(r, pair[0], where + (0,)), _text(r, pair[1], where + (1,))))
    codes = []
    for n, pair in enumerate(r.lst(data.get("codes", []), path + ("codes",), "\"description.codes\"")):
        where = path + ("codes", n)
        if not isinstance(pair, list) or len(pair) != 2:
            raise r.error("\"description.codes\": each entry is a pair [what, its code] of texts", where)
        codes.append((_text(r, pair[0], where + (0,)), _text(r, pair[1], where + (1,))))
    argmax = r.obj(data.get("argmax", {}), path + ("argmax",), heads, "\"description.argmax\"", heads)
    sets = tuple((head, _text(r, text, path + ("argmax", head))) for head, text in argmax.items())
    positions, readout = (None if key not in data else _text(r, data[key], path + (key,))
                          for key in ("positions", "readout"))
    return Description(tuple(layout), positions, tuple(codes), sets, readout)


def _text(r: Any, value: Any, path: tuple[str | int, ...]) -> str:
    where = ".".join(str(p) for p in path)
    if not isinstance(value, str) or "\n" in value or len(value) > MAX_TEXT:
        raise r.error(f"\"{where}\" must be one line of text (at most {MAX_TEXT} characters)", path)
    return value
