"""Deliberately broken unrollings, and the witnesses that show the audit catches them.

A demonstration and test module: no module of verified_aat imports it except the CLI's
``--defect`` option, lazily.  Each defect is a changed gadget (:class:`.unroll.Gadgets`)
passed to the real unrolling code, :func:`.unroll.unroll`; the correct gadgets stay in
:mod:`.unroll`.  Each of :data:`DEFECTS` makes U_N wrong on some sequence;
:func:`find_witness` finds such a sequence among the audit's own seeded samples and
:func:`replay` re-evaluates the defective circuit on it exactly and compares its outputs
with the independent reference (:mod:`.reference`).  :data:`HARMLESS` lists changes that
look like bugs but are not: the audit (and a prover) must accept them.

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
from functools import partial
from typing import Any, Iterable, Sequence

from ..circuits.builder import Wire
from ..errors import InputError
from ..transformer.model import Transformer
from .check import DEFAULT_LENGTHS, compare, sample_sequences
from .reference import reference_run
from .unroll import (GADGETS, Builder, Gadgets, UnrolledCircuit, Unroller, argmax_gates, average_gadget, flatten,
                     is_zero, unique_gadget, unroll)

DEFECTS: dict[str, str] = {
    "missing-reciprocal": "average pooling: the term (1/N)·[c_i = N] of r_i is left out",
    "gt-as-ge": "argmax: gt(s_ij′, s_ij) built as [s_ij′ ≥ s_ij] instead of [s_ij′ > s_ij]",
    "leftmost-as-rightmost": "leftmost heads select the last member of the argmax set",
    "count-off-by-one": "average pooling: [c_i = m + 1] instead of [c_i = m] in r_i",
    "dropped-j-ne-j": "leftmost/rightmost: P_ij sums over j′ ≤ j (j′ ≥ j), the condition j′ ≠ j dropped",
    "swapped-compare": "argmax: σ = sign(s_ij − s_ij′), the non-commutative subtraction's operands swapped",
}
HARMLESS: dict[str, str] = {
    "argmax-includes-j": "argmax: the term j′ = j kept in Σ gt(s_ij′, s_ij) (it is gt(s, s) = 0)",
}


def check_defect(name: str) -> None:
    """Refuse an unknown defect name (InputError naming the known ones)."""
    if name not in DEFECTS and name not in HARMLESS:
        raise InputError(f"unknown defect {name!r}; known: {', '.join(sorted(DEFECTS) + sorted(HARMLESS))}")


def _gt_terms(b: Builder, row: list[Wire], negated: list[Wire], j: int, defect: str) -> list[Wire]:
    """:func:`.unroll.gt_terms` with one of three changes (``swapped-compare``, ``gt-as-ge``,
    ``argmax-includes-j``); the constants are the ones :func:`.unroll.argmax_gates` made."""
    one, minus_one, half = b.const(1), b.const(-1), b.const(Fraction(1, 2))
    terms = []
    for jp in range(len(row)):
        if jp == j and defect != "argmax-includes-j":
            continue
        if defect == "swapped-compare":  # sign(s_ij − s_ij′): the subtraction's operands swapped
            sg = b.sign(b.add(row[j], b.mul(minus_one, row[jp])))
        else:
            sg = b.sign(b.add(row[jp], negated[j]))
        if defect == "gt-as-ge":  # [s_ij′ ≥ s_ij] = 1 − (σ² − σ)/2
            lt = b.mul(half, b.add(b.mul(sg, sg), b.mul(minus_one, sg)))
            terms.append(b.add(one, b.mul(minus_one, lt)))
        else:
            terms.append(b.mul(half, b.add(b.mul(sg, sg), sg)))
    return terms


def _average(b: Builder, marks: list[Wire], xs: list[list[Wire]], defect: str) -> list[Wire]:
    """:func:`.unroll.average_gadget` with [c = m + 1] for [c = m], or the term 1/N left out."""
    n, d = len(xs), len(xs[0])
    count = b.add(*marks)
    sums = [b.add(*(b.mul(marks[j], xs[j][c]) for j in range(n))) for c in range(d)]
    shift = 1 if defect == "count-off-by-one" else 0
    last = n - 1 if defect == "missing-reciprocal" else n
    weights = [b.mul(b.const(Fraction(1, m)), is_zero(b, b.add(count, b.const(-m - shift))))
               for m in range(1, last + 1)]
    reciprocal = b.add(*weights)
    return [b.mul(sums[c], reciprocal) for c in range(d)]


def _dropped_j_ne_j(b: Builder, marks: list[Wire], xs: list[list[Wire]], leftmost: bool) -> list[Wire]:
    """:func:`.unroll.unique_gadget` with j′ ≤ j (j′ ≥ j) instead of j′ < j (j′ > j)."""
    n, d = len(xs), len(xs[0])
    firsts = [b.mul(marks[j], is_zero(b, b.add(*(marks[:j + 1] if leftmost else marks[j:])))) for j in range(n)]
    return [b.add(*(b.mul(firsts[j], xs[j][c]) for j in range(n))) for c in range(d)]


def _as_rightmost(b: Builder, marks: list[Wire], xs: list[list[Wire]], leftmost: bool) -> list[Wire]:
    return unique_gadget(b, marks, xs, False)


def defective_gadgets(defect: str) -> Gadgets:
    """The gadgets of the unrolling with ``defect`` (one of :data:`DEFECTS` or :data:`HARMLESS`)."""
    check_defect(defect)
    argmax = GADGETS.argmax
    if defect in ("swapped-compare", "gt-as-ge", "argmax-includes-j"):
        argmax = partial(argmax_gates, gts=partial(_gt_terms, defect=defect))
    average = partial(_average, defect=defect) if defect in ("count-off-by-one", "missing-reciprocal") \
        else average_gadget
    unique = {"dropped-j-ne-j": _dropped_j_ne_j, "leftmost-as-rightmost": _as_rightmost}.get(defect, unique_gadget)
    return Gadgets(defect, argmax, average, unique)


def unroll_defective(transformer: Transformer, n: int, defect: str) -> UnrolledCircuit:
    """``unroll(T, N)`` with the gadgets of ``defect`` (an unknown name: InputError)."""
    return unroll(transformer, n, defective_gadgets(defect))


def defective_unroller(defect: str) -> Unroller:
    """``(T, N) -> U_N`` with ``defect``, for ``audit(unroller=...)``, ``round_trip`` and ``prove_audit``."""
    gadgets = defective_gadgets(defect)
    return lambda transformer, n: unroll(transformer, n, gadgets)


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
    flat = (unroll(transformer, n) if defect is None else unroll_defective(transformer, n, defect)).flat
    got = tuple(Fraction(v) for v in flat.evaluator.run(flatten(sequence)).take(flat.outputs))
    want = tuple(Fraction(v) for v in flatten(reference_run(transformer, sequence).outputs))
    return got, want


def find_witness(transformer: Transformer, defect: str, lengths: Iterable[int] = DEFAULT_LENGTHS,
                 samples: int = 20, seed: int = 0) -> Witness | None:
    """The first audit sample on which the defective unrolling's outputs differ from the reference's."""
    check_defect(defect)
    for n in lengths:
        unrolled = unroll_defective(transformer, n, defect)
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
