"""The names of the deliberately changed unrollings that ``unroll(T, N, defect=NAME)`` builds.

Each of :data:`DEFECTS` makes U_N wrong on some sequence; :data:`HARMLESS` lists changes that
look like bugs but are not.  They exist to show that the audit and the prover catch a wrong
unrolling; the search for and replay of a witness is :mod:`.mutants` (which nothing in the
package imports: tests and demonstrations only).
"""

from __future__ import annotations

from ..errors import InputError

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
