"""Deliberately broken unrollings, and the witnesses that show the audit catches them.

A demonstration and test module: nothing in verified_aat imports it.
``unroll(T, N, defect=NAME)`` (:func:`.unroll.unroll`) runs the real unrolling
code with one small change, named in :mod:`.defects`.  Each of :data:`DEFECTS` makes U_N
wrong on some sequence; :func:`find_witness` finds such a sequence among the
audit's own seeded samples and :func:`replay` re-evaluates the defective
circuit on it exactly and compares its outputs with the independent reference
(:mod:`.reference`).  :data:`HARMLESS` lists changes that look like bugs but
are not: the audit (and a prover) must accept them.

Why "dropped j′ ≠ j" is a defect of the *prefix* sums: in the argmax sum
Σ_{j′≠j} gt(s_ij′, s_ij) the term j′ = j is gt(s_ij, s_ij) = 0, so dropping
the condition there changes nothing ("argmax-includes-j", harmless).  In the
leftmost (rightmost) prefix sum P_ij = Σ_{j′<j} M_ij′ the condition j′ ≠ j is
part of j′ < j; dropping it gives Σ_{j′≤j}, which counts M_ij itself, so
L_ij = 0 everywhere and every pooled vector is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

from ..transformer.model import Transformer
from .check import DEFAULT_LENGTHS, compare, sample_sequences
from .defects import DEFECTS, HARMLESS, check_defect  # noqa: F401 - re-exported
from .reference import reference_run
from .unroll import flatten, unroll


@dataclass(frozen=True)
class Witness:
    """A sequence on which the defective U_N and the reference give different outputs."""

    defect: str
    n: int
    sequence: tuple[tuple[Fraction, ...], ...]
    circuit_outputs: tuple[Fraction, ...]
    reference_outputs: tuple[Fraction, ...]
    first_difference: str  # what the layer-by-layer comparison reports first


def outputs_of(transformer: Transformer, n: int, sequence: Sequence[Sequence[Any]],
               defect: str | None = None) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """(U_N's outputs, the reference's outputs) on ``sequence``, both exact."""
    flat = unroll(transformer, n, defect).flat
    got = tuple(Fraction(v) for v in flat.evaluator.run(flatten(sequence)).take(flat.outputs))
    want = tuple(Fraction(v) for v in flatten(reference_run(transformer, sequence).outputs))
    return got, want


def find_witness(transformer: Transformer, defect: str, lengths: Iterable[int] = DEFAULT_LENGTHS,
                 samples: int = 20, seed: int = 0) -> Witness | None:
    """The first audit sample on which the defective unrolling's outputs differ from the reference's."""
    check_defect(defect)
    for n in lengths:
        unrolled = unroll(transformer, n, defect)
        for sequence in sample_sequences(n, transformer.dimension, samples, seed):
            problem = compare(transformer, unrolled, sequence, engine=False)
            if problem is None:
                continue
            got, want = outputs_of(transformer, n, sequence, defect)
            if got != want:
                return Witness(defect, n, tuple(tuple(Fraction(v) for v in row) for row in sequence),
                               got, want, problem)
    return None


def replay(transformer: Transformer, witness: Witness) -> bool:
    """True when the witness holds: rebuilt from scratch, the defective U_N and the reference differ on it."""
    got, want = outputs_of(transformer, witness.n, witness.sequence, witness.defect)
    return got == witness.circuit_outputs and want == witness.reference_outputs and got != want
