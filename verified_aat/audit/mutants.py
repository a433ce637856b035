"""Deliberately broken unrollings, and the witnesses that show the audit catches them.

A demonstration and test module: no module of verified_aat imports it except the CLI's
``--defect`` option, lazily.  Each defect is an edit of the uniform family (:data:`EDITS`: a
range or a gadget of :data:`verified_aat.kernel.audit_family.FAMILY` changed), interpreted by
:mod:`.family` and built by the real unrolling code, :func:`.unroll.unroll`.  Each of
:data:`DEFECTS` makes U_N wrong on some short sequence; each of :data:`LATE_DEFECTS` only past
N = 32, where only the all-N proof (``audit --prove``) looks;
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
from typing import Any, Callable, Iterable, Sequence

from ..errors import InputError
from ..transformer.model import Transformer
from .check import DEFAULT_LENGTHS, compare, sample_sequences
from .family import Family, gadgets_of, kernel_family
from .reference import reference_run
from .unroll import Gadgets, UnrolledCircuit, Unroller, flatten, unroll

DEFECTS: dict[str, str] = {
    "missing-reciprocal": "average pooling: the term (1/N)·[c_i = N] of r_i is left out",
    "gt-as-ge": "argmax: gt(s_ij′, s_ij) built as [s_ij′ ≥ s_ij] instead of [s_ij′ > s_ij]",
    "leftmost-as-rightmost": "leftmost heads select the last member of the argmax set",
    "count-off-by-one": "average pooling: [c_i = m + 1] instead of [c_i = m] in r_i",
    "dropped-j-ne-j": "leftmost/rightmost: P_ij sums over j′ ≤ j (j′ ≥ j), the condition j′ ≠ j dropped",
    "swapped-compare": "argmax: σ = sign(s_ij − s_ij′), the non-commutative subtraction's operands swapped",
}
LATE_DEFECTS: dict[str, str] = {  # right for every N ≤ 32, wrong past it: only the all-N proof sees them
    "argmax-window-32": "argmax: M_ij compares s_ij with the positions k < 32 only (a gadget sized for N ≤ 32)",
    "count-saturates-at-32": "average pooling: r_i sums the terms m = 1 … min(N, 32) (a count that saturates)",
    "pool-drops-last-past-32": "pooling: the sums Σ_j M_ij·x_j and Σ_j L_ij·x_j leave out j = N − 1 when N > 32",
}
HARMLESS: dict[str, str] = {
    "argmax-includes-j": "argmax: the term j′ = j kept in Σ gt(s_ij′, s_ij) (it is gt(s, s) = 0)",
}


def check_defect(name: str) -> None:
    """Refuse an unknown defect name (InputError naming the known ones)."""
    if name not in DEFECTS and name not in LATE_DEFECTS and name not in HARMLESS:
        known = sorted(DEFECTS) + sorted(LATE_DEFECTS) + sorted(HARMLESS)
        raise InputError(f"unknown defect {name!r}; known: {', '.join(known)}")


def _set(path: str, value: Any) -> Callable[[Family], None]:
    """An edit of one field of the family (``ranges.argmax.to``, ``gadgets.gt.gates``…); None deletes it."""
    *parents, last = path.split(".")

    def edit(family: Family) -> None:
        node = family
        for key in parents:
            node = node[key]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return edit


_GE = [["add", "s_k", "neg_j"], ["sign", 0], ["mul", 1, 1], ["mul", "c:-1", 1], ["add", 2, 3], ["mul", "c:1/2", 4],
       ["mul", "c:-1", 5], ["add", "c:1", 6]]                               # 1 − (σ² − σ)/2 = [s_k ≥ s_j]
_SWAPPED = [["mul", "c:-1", "s_k"], ["add", "s_j", 0], ["sign", 1], ["mul", 2, 2], ["add", 3, 2], ["mul", "c:1/2", 4]]
EDITS: dict[str, list[Callable[[Family], None]]] = {
    "missing-reciprocal": [_set("ranges.reciprocal.to", "N")],
    "gt-as-ge": [_set("gadgets.gt.gates", _GE)],
    "leftmost-as-rightmost": [_set("ranges.leftmost", {"index": "k", "from": "j+1", "to": "N"})],
    "count-off-by-one": [_set("gadgets.reciprocal_term.constants", ["1/m", "-m-1"]),
                         _set("gadgets.reciprocal_term.gates",
                              [["add", "count", "c:-m-1"], ["is_zero", 0], ["mul", "c:1/m", 1]])],
    "dropped-j-ne-j": [_set("ranges.leftmost.to", "j+1"), _set("ranges.rightmost.from", "j")],
    "swapped-compare": [_set("gadgets.gt.gates", _SWAPPED)],
    "argmax-includes-j": [_set("ranges.argmax.except", None)],
    "argmax-window-32": [_set("ranges.argmax.to", "min(N, 32)")],
    "count-saturates-at-32": [_set("ranges.reciprocal.to", "min(N, 32) + 1")],
    "pool-drops-last-past-32": [_set("ranges.pool.to", "min(N, max(N - 1, 32))")],
}


def defective_family(defect: str) -> Family:
    """The kernel's family with the edits of ``defect`` (an unknown name: InputError)."""
    check_defect(defect)
    family = kernel_family()
    for edit in EDITS[defect]:
        edit(family)
    return family


def defective_gadgets(defect: str) -> Gadgets:
    """The gadgets of the unrolling with ``defect`` (one of :data:`DEFECTS`, :data:`LATE_DEFECTS` or
    :data:`HARMLESS`): the changed family, interpreted (:func:`.family.gadgets_of`)."""
    return gadgets_of(defective_family(defect), defect)


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
