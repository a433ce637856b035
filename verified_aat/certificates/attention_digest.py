"""The canonical digest of all argmax sets of one head (docs/certificates.md).

Listing: one line ``p:s`` per position p with the number s of its set (sets
numbered by first appearance), then one line ``#s:j1 j2 ...`` per distinct
set with its sorted members.  The digest is the sha256 of that text.  It is
a format definition, shared by the engine and the checker like a printer.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np


def sets_digest(set_ids: Sequence[int], distinct: Sequence[Sequence[int]]) -> str:
    h = hashlib.sha256()
    if _arrays(h, set_ids, distinct):  # the key joins' sets: int64 arrays, printed by numpy
        return h.hexdigest()
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


def _arrays(h: Any, set_ids: Any, distinct: Any) -> bool:
    """The same lines for sets held as arrays (set ids; ``distinct.offsets``/``.members``, as the key joins keep
    them), the digits written by numpy; False (nothing hashed) for any other form, an empty or negative set."""
    offsets, members = getattr(distinct, "offsets", None), getattr(distinct, "members", None)
    if not isinstance(set_ids, np.ndarray) or not isinstance(offsets, np.ndarray) or not isinstance(members, np.ndarray):
        return False
    if (set_ids.size and set_ids.min() < 0) or (members.size and members.min() < 0) or (np.diff(offsets) < 1).any():
        return False
    colon, newline, space, hash_ = (ord(c) for c in ":\n #")
    for start in range(0, len(set_ids), CHUNK):  # "p:s" lines
        part = set_ids[start:start + CHUNK]
        numbers = np.empty(2 * len(part), np.int64)
        numbers[0::2], numbers[1::2] = np.arange(start, start + len(part)), part
        h.update(_lines(numbers, np.zeros(len(numbers), np.uint8), np.tile(np.array([colon, newline], np.uint8),
                                                                             len(part))))
    for start in range(0, len(distinct), CHUNK):  # "#s:j1 j2 …" lines
        stop = min(start + CHUNK, len(distinct))
        cut = offsets[start:stop + 1]
        heads = cut[:-1] - cut[0] + np.arange(stop - start)  # where each set's number goes among its members
        numbers = np.empty(int(cut[-1] - cut[0]) + stop - start, np.int64)
        is_head = np.zeros(len(numbers), bool)
        is_head[heads] = True
        numbers[heads], numbers[~is_head] = np.arange(start, stop), members[cut[0]:cut[-1]]
        after = np.full(len(numbers), space, np.uint8)
        after[heads], after[heads + np.diff(cut)] = colon, newline
        h.update(_lines(numbers, np.where(is_head, hash_, 0).astype(np.uint8), after))
    return True


_POWERS = 10 ** np.arange(19, dtype=np.int64)


def _lines(numbers: np.ndarray, before: np.ndarray, after: np.ndarray) -> bytes:
    """Each non-negative number in decimal, with its byte ``before`` (0: none) and ``after``."""
    digits = np.maximum(np.searchsorted(_POWERS, numbers, side="right"), 1)
    has = before != 0
    ends = np.cumsum(has + digits + 1)
    first = ends - digits - 1
    out = np.empty(int(ends[-1]) if len(ends) else 0, np.uint8)
    out[first[has] - 1] = before[has]
    out[first + digits] = after
    rest = numbers.copy()
    for k in range(int(digits.max(initial=0))):
        live = digits > k
        out[(first + digits - 1 - k)[live]] = 48 + rest[live] % 10
        rest //= 10
    return out.tobytes()
