"""A netlist file given with ``check --circuit``, read on its own by the kernel's parser (``netlist_parse.py``) so
that the command can tell bad input (exit 2, ``file:line``) from a rejected certificate.  Not on a checker's path:
the netlist check compares the given file's bytes with the certificate's embedded netlist.
"""

from __future__ import annotations

import re

from .data import NotChecked
from .netlist_parse import Netlist, NetlistError, parse
from .problems import render


class MalformedNetlist(ValueError):
    """The netlist *file* given with ``--circuit`` does not parse: bad input, not a verdict on a certificate."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.message, self.line = message, line


_AT_LINE = re.compile(r"(AIGER: )?line (\d+): ")


def read_given(data: bytes, fmt: str, drop_dead: bool = False) -> Netlist:
    """The given netlist file read on its own by :func:`parse`, or :class:`MalformedNetlist` (message, line)."""
    try:
        text = data.decode("latin-1" if fmt == "aiger" else "utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedNetlist("not UTF-8 text", data.count(b"\n", 0, exc.start) + 1) from None
    try:
        return parse(text, fmt, drop_dead and fmt in ("bench", "blif"))
    except (NotChecked, NetlistError) as exc:  # a size limit of the kernel's reader, too: for the command, bad input
        message = render(exc.message, exc.data) if isinstance(exc, NetlistError) else str(exc)  # without a JSON path
        found = _AT_LINE.match(message)
        if found is None:
            raise MalformedNetlist(message, None) from None
        line = int(found.group(2)) or None  # line 0: a gate without a line (an AIGER AND)
        raise MalformedNetlist((found.group(1) or "") + message[found.end():], line) from None
