"""Line numbers of the values in a JSON text, for error messages at ``file:line``: :class:`Locator` maps a path in
the decoded document (keys and list indices, e.g. ``("layers", 0, "heads")``) to the line of the raw text where that
value starts.  A shared leaf: the circuit, transformer and construction readers all point at lines with it."""

from __future__ import annotations

import bisect
import json
import re
from typing import Iterable

JsonPath = tuple[str | int, ...]


class Locator:
    """Line numbers of the values in a JSON text, computed lazily on first use."""

    def __init__(self, text: str | None):
        self._text = text
        self._lines: dict[JsonPath, int] | None = None

    def line(self, path: Iterable[str | int]) -> int | None:
        """The line where the value at ``path`` starts (or of its longest known prefix)."""
        if self._text is None:
            return None
        if self._lines is None:
            self._lines = {}
            try:
                newlines = [m.start() for m in re.finditer("\n", self._text)]
                _walk(self._text, _skip(self._text, 0), (), self._lines, newlines)
            except (ValueError, IndexError):  # pragma: no cover - text was already decoded once
                pass
        key = tuple(path)
        while key:
            if key in self._lines:
                return self._lines[key]
            key = key[:-1]
        return self._lines.get((), None)


_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _walk(text: str, pos: int, path: JsonPath, out: dict[JsonPath, int], newlines: list[int]) -> int:
    """Record the line of the value starting at ``pos`` and its children; return its end.  A line is found by
    bisecting the offsets of the text's newlines (counting them from the start for every value was quadratic:
    8 s for a one-line 30,000-gate transformer file)."""
    out[path] = bisect.bisect_left(newlines, pos) + 1
    char = text[pos]
    if char == "{":
        pos = _skip(text, pos + 1)
        if text[pos] == "}":
            return pos + 1
        while True:
            key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            key_line = bisect.bisect_left(newlines, pos) + 1
            pos = _skip(text, _skip(text, pos) + 1)  # past ':'
            pos = _walk(text, pos, path + (key,), out, newlines)
            out[path + (key,)] = min(out[path + (key,)], key_line)
            pos = _skip(text, pos)
            if text[pos] == "}":
                return pos + 1
            pos = _skip(text, pos + 1)  # past ','
    if char == "[":
        pos = _skip(text, pos + 1)
        if text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            pos = _walk(text, pos, path + (index,), out, newlines)
            index += 1
            pos = _skip(text, pos)
            if text[pos] == "]":
                return pos + 1
            pos = _skip(text, pos + 1)
    _, end = _DECODER.raw_decode(text, pos)
    return end
