"""The canonical digest of all argmax sets of one head (docs/certificates.md).

Listing: one line ``p:s`` per position p with the number s of its set (sets
numbered by first appearance), then one line ``#s:j1 j2 ...`` per distinct
set with its sorted members.  The digest is the sha256 of that text.  It is
a format definition, shared by the engine and the checker like a printer.
"""

from __future__ import annotations

import hashlib
from typing import Sequence


def sets_digest(set_ids: Sequence[int], distinct: Sequence[Sequence[int]]) -> str:
    h = hashlib.sha256()
    for start in range(0, len(set_ids), CHUNK):  # in chunks: no text of millions of lines at once
        part = set_ids[start:start + CHUNK]  # "p:s" lines, one format string per chunk (as the kernel's summary)
        part = part.tolist() if hasattr(part, "tolist") else part  # numbers from an int64 array print as ints
        pairs: list[int] = [0] * (2 * len(part))
        pairs[0::2], pairs[1::2] = range(start, start + len(part)), part
        h.update((("%d:%d\n" * len(part)) % tuple(pairs)).encode())
    for start in range(0, len(distinct), CHUNK):  # "#s:members" lines, one format string per chunk
        h.update(_set_lines(start, distinct[start:start + CHUNK]).encode())
    return h.hexdigest()


def _set_lines(start: int, chunk: Sequence[Sequence[int]]) -> str:
    """The lines ``#s:j1 j2 …`` of sets start, start + 1, …: one ``%`` over one format string (a format per set
    size), not one string per set."""
    flat: list[int] = []
    for s, members in enumerate(chunk, start):
        flat.append(s)
        flat.extend(members)
    formats = {n: "#%d:" + " ".join(["%d"] * n) + "\n" for n in set(map(len, chunk))}
    return "".join(map(formats.__getitem__, map(len, chunk))) % tuple(flat)


CHUNK = 65536
