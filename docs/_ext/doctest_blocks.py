"""A griffe extension for the API reference (mkdocs.yml): a docstring's doctest lines (``>>>`` and
the output below them, up to a blank line) become a fenced ``pycon`` block.

Docstrings in ``verified_aat`` are written for ``help()`` and doctest; rendered as Markdown, a line
that starts with ``>>>`` would be a triple block quote.  Only the rendering changes: the docstrings
in the source stay as they are.  Loaded by mkdocstrings from this file; it is no part of the package
and not copied into the site (``exclude_docs``).
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with every run of doctest lines wrapped in a ```` ```pycon ```` fence."""
    out: list[str] = []
    in_fence = in_example = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_example and not line.strip():
            out.append("```")
            in_example = False
        elif not in_fence and not in_example and line.startswith(">>>"):
            out.append("```pycon")
            in_example = True
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest lines of every docstring griffe loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
