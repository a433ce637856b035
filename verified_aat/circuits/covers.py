"""Cube algebra for BLIF covers (:mod:`.netlists`): a cube is a pattern over ``0 1 -``, one
character per argument; :func:`disjoint_cubes` rewrites a cover (a list of cubes, their OR)
into pairwise disjoint cubes with the same union, whose sum is the cover's multilinear
polynomial (:mod:`.linear`).
"""

from __future__ import annotations

import functools

MAX_DISJOINT_CUBES = 10_000  # a cover whose disjoint form is larger is refused
MAX_SHARP_STEPS = 200_000    # ... and one that takes more steps to make disjoint


def _sharp(p: str, d: str) -> list[str]:
    """Disjoint cubes covering the points of cube p outside cube d."""
    if any(a != "-" and b != "-" and a != b for a, b in zip(p, d)):
        return [p]  # disjoint already
    pieces, q = [], p
    for i, (a, b) in enumerate(zip(p, d)):
        if a == "-" and b != "-":
            pieces.append(q[:i] + ("1" if b == "0" else "0") + q[i + 1:])
            q = q[:i] + b + q[i + 1:]
    return pieces  # what is left of q lies inside d


@functools.lru_cache(maxsize=4096)
def disjoint_cubes(cubes: tuple[str, ...]) -> tuple[str, ...]:
    """Pairwise disjoint cubes with the same union as ``cubes`` (each new cube minus the earlier
    ones); :class:`OverflowError` past :data:`MAX_DISJOINT_CUBES` cubes or :data:`MAX_SHARP_STEPS`."""
    out: list[str] = []
    steps = 0
    for cube in cubes:
        pieces = [cube]
        for d in out:
            steps += len(pieces)
            pieces = [r for piece in pieces for r in _sharp(piece, d)]
            if not pieces:
                break
            if steps > MAX_SHARP_STEPS or len(out) + len(pieces) > MAX_DISJOINT_CUBES:
                raise OverflowError("cover too large")
        out.extend(pieces)
    return tuple(out)
