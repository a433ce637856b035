"""The reference exact engine: every score pair with the plain circuit interpreter.

Deliberately naive (N² score evaluations per head and layer, no joins, no memos, no
incremental layers) so that differential tests can compare the fast engine
(:mod:`.exact_engine`) with something obviously right.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Sequence

from ..circuits.evaluate import as_exact, evaluate
from ..errors import InputError
from .exact_results import SOFTMAX_MESSAGE, HeadTrace, LayerTrace, RunResult, RunStats, check_sequence
from .exact_state import Vector
from .model import BilinearScore, Pooling, Score, Transformer

Number = int | Fraction


def _reference_score(score: Score, xi: Vector, xj: Vector) -> Number:
    if isinstance(score, BilinearScore):
        d = len(xi)
        return as_exact(sum((score.matrix[r][c] * xi[r] * xj[c] for r in range(d) for c in range(d)), Fraction(0)))
    return evaluate(score.circuit, list(xi) + list(xj))[0]


def run_exact_reference(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> RunResult:
    """The obviously correct engine: every score pair with the circuit interpreter."""
    start = time.perf_counter()
    rows = check_sequence(transformer, sequence)
    n, d = len(rows), transformer.dimension
    layers: list[LayerTrace] = []
    evaluations = 0
    for number, layer in enumerate(transformer.layers, start=1):
        args: list[list[Number]] = [list(row) for row in rows]
        head_traces = []
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(SOFTMAX_MESSAGE)
            sets = []
            for i in range(n):
                scores = [_reference_score(head.score, rows[i], rows[j]) for j in range(n)]
                evaluations += n
                top = max(scores)
                chosen = [j for j in range(n) if scores[j] == top]
                sets.append(tuple(chosen))
                if head.pooling is Pooling.AVERAGE:
                    pooled = [as_exact(Fraction(sum(rows[j][c] for j in chosen), len(chosen))) for c in range(d)]
                else:
                    pooled = list(rows[min(chosen) if head.pooling is Pooling.LEFTMOST else max(chosen)])
                args[i].extend(pooled)
            head_traces.append(HeadTrace(head.name, tuple(sets)))
        rows = [tuple(evaluate(layer.activation, a)) for a in args]
        layers.append(LayerTrace(layer.name or f"layer {number}", tuple(rows), tuple(head_traces)))
    stats = RunStats(n, transformer.n_layers, evaluations, transformer.n_heads, 0, n * len(layers),
                     time.perf_counter() - start)
    return RunResult(tuple(rows), tuple(layers), stats)
