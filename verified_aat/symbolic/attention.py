"""Attention obligations: argmax sets from the transformer's own scores.

A construction claims a key decomposition of each score (:class:`ScoreHint`).
The claim is proven once per score function as an SMT lemma; then the
argmax set of every position follows from concrete keys by a join over the
sorted column keys, in time near-linear in the sequence length.  Argmax sets
with equal content are shared (one list object), which keeps huge fan-ins
from costing quadratic memory.  The lemma and the join live in
``transformer/key_join.py``, shared with the exact engine; :func:`engine_keys`
gives the engine the same lemmas, proved by the same discharge.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from ..circuits.evaluate import compile_circuit
from ..circuits.ir import Circuit
from ..constructions.base import ScoreHint
from ..transformer.key_join import (ArgmaxSets, KeyDecompositions, hint_lemma, join_argmax, score_term,
                                    share_sets as _share)
from ..transformer.model import CircuitScore, Score, score_input_names
from .analysis import reads_of


def hint_reads_structure_only(hint: ScoreHint, structural: Sequence[int]) -> bool:
    allowed = set(structural)
    return all(reads_of(c) <= allowed for c in (hint.row_key, hint.col_key, hint.col_penalty))


def brute_force_argmax(rows: Sequence[Sequence[Fraction | int]], score: Score, limit: int = 1500) -> ArgmaxSets | None:
    """Evaluate the score on all pairs (only for short sequences); None if too long."""
    if len(rows) > limit:
        return None
    if isinstance(score, CircuitScore):
        f = compile_circuit(score.circuit)

        def s(x, y):
            return f(*x, *y)[0]
    else:
        entries = score.entries()

        def s(x, y):
            return sum(q * x[r] * y[c] for r, c, q in entries)
    sets = []
    for x in rows:
        values = [s(x, y) for y in rows]
        m = max(values)
        sets.append(tuple(j for j, v in enumerate(values) if v == m))
    return _share(sets)


def score_reads(score: Score, d: int) -> set[int]:
    """Coordinates (0..d-1) of either vector that the score reads."""
    if isinstance(score, CircuitScore):
        return {k % d for k in reads_of(score.circuit)}
    return {r for r, _, _ in score.entries()} | {c for _, c, _ in score.entries()}


def prove_key_lemma(text: str, timeout_ms: int = 10_000) -> str:
    """The verdict of one key-decomposition lemma: normal forms, else Z3 (as in certify)."""
    from .discharge import discharge

    return discharge(text, timeout_ms).status


def engine_keys(hints: Mapping[str, Any] | None, timeout_ms: int = 10_000, discover: bool = True) -> KeyDecompositions:
    """Key decompositions for the exact engine: ``hints`` by head name (a construction's
    ``score_hints()``, or None), each used only after its lemma is proved for the head's own score."""
    return KeyDecompositions(dict(hints or {}), lambda text: prove_key_lemma(text, timeout_ms), discover)


__all__ = ["ArgmaxSets", "engine_keys", "prove_key_lemma", "join_argmax", "brute_force_argmax", "hint_lemma",
           "score_term", "score_reads", "hint_reads_structure_only", "score_input_names", "Circuit"]
