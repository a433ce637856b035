"""The per-circuit derivation on shards (docs/soundness.md S9), entered only when a check is given shards
(``Options.shards``: ``--cluster``, or ``--jobs`` ≥ 2, from ``obligations.PARALLEL_MIN_POSITIONS`` positions): each
worker derives its stripes (alternate blocks of :data:`STRIPE`) with the kernel's ``Deriver._run_range``, and the
merge is exactly the sequential result, charged one work bound for the check (red team round 8)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .agreement import charge

STRIPE = 4096  # positions per block


def stripe(n: int, which: int, count: int = 2) -> list[range]:
    """Stripe ``which`` of ``count`` of range(n): every count-th block of STRIPE positions from block
    ``which`` (so every stripe gets a share of every region of the encoding)."""
    return [range(start, min(start + STRIPE, n)) for start in range(which * STRIPE, n, count * STRIPE)]


def _derive_stripe(shared: tuple[Any, list[Any]], blocks: list[range]) -> tuple[dict, Counter, int]:
    """One worker's stripe (a module-level function, so a worker process can unpickle it) and the members its means
    read; the budget is left as it was (part 0 of ForkedShards runs in the kernel's own process)."""
    deriver, functions = shared
    left = deriver.budget.left
    try:
        found, counts = deriver._run_range(functions, blocks)
        return found, counts, left - deriver.budget.left
    finally:  # also when the stripe fails: the caller then derives everything here, on the whole budget
        deriver.budget.left = left


def derive_on_shards(deriver: Any, functions: list[Any], shards: Any) -> tuple[dict, Counter] | None:
    """``deriver._run_range`` over every position, from the workers' stripes: lemma id → [text, kind, uses, order
    key, where] in first-use order, and the counts; None when a worker or the cluster fails (the caller then
    derives everything itself)."""
    n = len(deriver.claims)
    try:
        k = shards.workers
        parts = shards.map(_derive_stripe, (deriver, functions), [stripe(n, i, k) for i in range(k)])
    except Exception:  # noqa: BLE001 - a worker or the cluster failed: derive everything here instead
        return None
    deriver.budget.spend(sum(part[2] for part in parts))  # one budget for all stripes: NotChecked past it
    merged: dict[str, list] = {}
    counts: Counter = Counter()
    for found, part_counts, _ in parts:
        counts.update(part_counts)
        for digest, (text, kind, uses, key, where) in found.items():  # uses added up, the rest of the earliest use
            seen = merged.setdefault(digest, [text, kind, 0, key, where])
            seen[2] += uses
            if key < seen[3]:
                seen[0], seen[1], seen[3], seen[4] = text, kind, key, where
    charge(deriver.derivation.room, sum(len(entry[0]) for entry in merged.values()))  # the room of the union, as in sequence
    return dict(sorted(merged.items(), key=lambda item: item[1][3])), counts
