"""The canonical digest of all argmax sets of one head (docs/certificates.md, certificate version 3).

The sha256 of little-endian signed 64-bit numbers: the number of positions P and of distinct sets D; per
position p, the number s of its set (sets numbered by first appearance); per distinct set, its size; then the
members of each distinct set in turn, sorted.  It is a format definition, shared by the engine and the
checker like a printer (``kernel/agreement.summary`` computes it with the standard library alone).
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np


def sets_digest(set_ids: Sequence[int], distinct: Sequence[Sequence[int]]) -> str:
    """The digest of ``set_ids`` (one set number a position) and the ``distinct`` sets in number order; the key
    joins' arrays (``distinct.offsets`` / ``.members``) are hashed as they are."""
    offsets, members = getattr(distinct, "offsets", None), getattr(distinct, "members", None)
    if isinstance(offsets, np.ndarray) and isinstance(members, np.ndarray):
        sizes, flat = np.diff(offsets), members[offsets[0]:offsets[-1]] if len(offsets) else members[:0]
    else:
        sizes, flat = np.fromiter(map(len, distinct), np.int64, len(distinct)), \
            np.fromiter((m for s in distinct for m in s), np.int64)
    h = hashlib.sha256()
    for numbers in ([len(set_ids), len(sizes)], set_ids, sizes, flat):
        h.update(np.ascontiguousarray(numbers, dtype="<i8").tobytes())
    return h.hexdigest()
