"""Per-position obligations of every layer function: the loop that dominates certify at scale.

For each layer function F and position p with claims, the obligations are checked at
the first layer of F at or after each settle layer of p (later layers are substitution
instances, docs/soundness.md S9).  Each obligation is reduced to its *shape*; each
distinct shape is rendered and hashed once.

With ``jobs ≥ 2`` on a large encoding the positions are split in two stripes (alternate blocks)
and the second stripe is derived in a forked child process (copy-on-write: the rows, claims and
argmax sets are not copied up front).  The merge reproduces the sequential result
exactly — the same lemmas, the same use counts, and each lemma's kind and first use
taken from the earliest (function, position, layer) in sequential order — so the
certificate does not depend on ``jobs``.  If forking is unavailable or the child
fails, its stripe is derived in this process.
"""

from __future__ import annotations

import bisect
import os
import pickle
from collections import Counter
from typing import Any, Callable

from ..circuits.ir import Circuit
from ..constructions.encoding import Encoding
from ..constructions.base import Schedule
from ..transformer.model import Transformer
from .obligations import Derivation, LayerFunction, Lemma, ObligationDeriver, digest

PARALLEL_MIN_POSITIONS = 200_000  # below this a fork costs more than it saves
STRIPE = 4096  # positions per block of a stripe

# a lemma found in one range: (text, kind, uses, first-use order key, (layer, position))
Found = dict[str, tuple[str, str, int, tuple[int, int, int], tuple[int, int]]]


def derive_positions(circuit: Circuit, T: Transformer, rows: Any, schedule: Schedule, structural: Any,
                     functions: list[LayerFunction], argmax: dict, encoding: Encoding, derivation: Derivation,
                     progress: Callable[[str, int, int], None] | None, jobs: int = 1) -> None:
    """Add every per-position lemma to ``derivation`` (lemmas, uses, kinds, unsupported layers)."""
    deriver = ObligationDeriver(circuit, T, rows, schedule, structural, argmax)
    live = []
    for fn in functions:
        if any((fn.number, h) not in argmax for h in range(len(fn.layer.heads))):
            derivation.unsupported.append(f"layer {fn.layers[0]}: attention unknown, its obligations were not derived")
        else:
            live.append(fn)
    n = len(rows)
    if jobs >= 2 and n >= PARALLEL_MIN_POSITIONS and hasattr(os, "fork"):
        halves = _in_two_processes(lambda part, tick: _derive_range(deriver, circuit, encoding, live, part, tick),
                                   n, progress, len(live))
    else:
        tick = _ticker(progress, len(live) * n)
        halves = [_derive_range(deriver, circuit, encoding, live, [range(n)], tick)]
    _merge(halves, derivation)


def _ticker(progress: Callable[[str, int, int], None] | None, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    return lambda k: progress("derive", k, total)


def stripes(n: int, which: int, block: int | None = None) -> list[range]:
    """Stripe ``which`` (0 or 1) of range(n) as blocks: alternate blocks of ``block`` positions, so that
    both processes get a share of every region of the encoding (gates, edges, wide sets) and equal work."""
    block = block or STRIPE
    return [range(start, min(start + block, n)) for start in range(which * block, n, 2 * block)]


def _in_two_processes(work: Callable[[list[range], Any], tuple[Found, Counter]], n: int,
                      progress: Callable[[str, int, int], None] | None, n_functions: int) -> list[tuple[Found, Counter]]:
    """``work`` on stripe 0 here and on stripe 1 in a forked child; the child's result comes back pickled."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: derive, send, and leave without running any cleanup of the parent's
        os.close(read_end)
        status = 1
        try:
            data = pickle.dumps(work(stripes(n, 1), None), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    tick = _ticker(progress, n_functions * n)
    try:
        first = work(stripes(n, 0), tick)
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return [first, work(stripes(n, 1), None)]  # the child failed: derive its stripe here
    return [first, pickle.loads(data)]


def _derive_range(deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding, functions: list[LayerFunction],
                  blocks: list[range], tick: Callable[[int], None] | None) -> tuple[Found, Counter]:
    """The lemmas of the positions in ``blocks`` (increasing) under every function, with sequential order keys."""
    found: Found = {}
    shapes: dict[tuple, str] = {}  # shape → lemma id: each distinct text is rendered and hashed once
    kind_names: dict[tuple[str, object], tuple[str, str]] = {}
    kinds: Counter = Counter()
    n_layers = deriver.transformer.n_layers
    claims = deriver.claims
    roles = encoding.roles
    gates = circuit.gates
    for f_index, fn in enumerate(functions):
        plans: dict[int, tuple[list[int], frozenset[int]]] = {}  # by shared settle pattern
        for p in (p for block in blocks for p in block):
            if tick is not None and p % 4096 == 4095:
                tick(4096)
            claim = claims[p]
            if claim is None or not claim.pattern.entries or claim.settle > n_layers:
                continue
            pattern = deriver.settle_pattern(p)
            plan = plans.get(id(pattern))
            if plan is None:
                settles = frozenset(s for s, _ in pattern)
                plan = plans[id(pattern)] = (check_layers(fn.layers, settles), settles)
            layers, settles = plan
            role = roles[p]
            name_key = (role.kind, gates[role.gate].kind if role.kind == "gate" else None)
            names = kind_names.get(name_key)
            if names is None:
                local = (f"local-step:{gates[role.gate].kind.value}" if role.kind == "gate"
                         else f"local-step:{role.kind}")
                names = kind_names[name_key] = (local, f"frame:{role.kind}")
            for k, layer in enumerate(layers):
                kind = names[0] if layer in settles else names[1]
                kinds[kind] += 1
                shape = deriver.shape(fn, p, layer)
                key = shapes.get(shape)
                if key is None:
                    text = deriver.render(shape)
                    key = shapes[shape] = digest(text)
                    if key not in found:
                        found[key] = (text, kind, 0, (f_index, p, k), (layer, p))
                text, first_kind, uses, order, first_use = found[key]
                found[key] = (text, first_kind, uses + 1, order, first_use)
    return found, kinds


def _merge(parts: list[tuple[Found, Counter]], derivation: Derivation) -> None:
    """Union of the ranges' lemmas in sequential first-use order; uses and kind counts add up."""
    merged: Found = {}
    for found, kinds in parts:
        derivation.kinds.update(kinds)
        for key, (text, kind, uses, order, first_use) in found.items():
            seen = merged.get(key)
            if seen is None:
                merged[key] = (text, kind, uses, order, first_use)
            else:
                earlier = (kind, order, first_use) if order < seen[3] else (seen[1], seen[3], seen[4])
                merged[key] = (text, earlier[0], seen[2] + uses, earlier[1], earlier[2])
    lemmas = derivation.lemmas
    for key, (text, kind, uses, _, first_use) in sorted(merged.items(), key=lambda item: item[1][3]):
        lemma = lemmas.get(key)
        if lemma is None:
            lemmas[key] = Lemma(key, text, kind, uses, first_use)
        else:  # already there (e.g. an attention lemma with the same text): add the uses
            lemma.uses += uses


def check_layers(layers: tuple[int, ...], settles: frozenset[int] | set[int]) -> list[int]:
    """For each settle layer s, the first of ``layers`` (sorted) that is ≥ s."""
    found = set()
    for s in settles:
        i = bisect.bisect_left(layers, s)
        if i < len(layers):
            found.add(layers[i])
    return sorted(found)
