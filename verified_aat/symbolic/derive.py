"""Per-position obligations of every layer function: the loop that dominated certify at scale.

For each layer function F and position p with claims, the obligations are checked at
the first layer of F at or after each settle layer of p (later layers are substitution
instances, docs/soundness.md S9).  Each obligation is reduced to its *shape*; each
distinct shape is rendered and hashed once.  The positions are grouped by *signature* first
(``derive_grouped.py``, numpy arrays), so that a shape is built once per signature, not once
per position; ``_derive_range`` below is the position-by-position definition the grouped
result must equal, and the fallback when it cannot.

With ``shards`` (a Dask cluster, ``verified_aat/shards.py``) on a large encoding the positions are
split into one stripe per worker (every k-th block) and each stripe is derived on a worker.  The merge
reproduces the sequential result exactly — the same lemmas, the same use counts, and each lemma's kind
and first use taken from the earliest (function, position, layer) in sequential order — so the
certificate does not depend on the number of workers.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from ..circuits.ir import Circuit
from ..constructions.encoding import Encoding
from ..constructions.claims import Schedule
from ..transformer.model import Transformer
from .derive_grouped import derive_range_grouped
from .obligations import Derivation, LayerFunction, Lemma, ObligationDeriver, check_layers, digest, kind_names

PARALLEL_MIN_POSITIONS = 200_000  # below this a fork costs more than it saves
STRIPE = 4096  # positions per block of a stripe

# a lemma found in one range: (text, kind, uses, first-use order key, (layer, position))
Found = dict[str, tuple[str, str, int, tuple[int, int, int], tuple[int, int]]]


def derive_positions(circuit: Circuit, T: Transformer, rows: Any, schedule: Schedule, structural: Any,
                     functions: list[LayerFunction], argmax: dict, encoding: Encoding, derivation: Derivation,
                     progress: Callable[[str, int, int], None] | None, shards: Any = None) -> None:
    """Add every per-position lemma to ``derivation`` (lemmas, uses, kinds, unsupported layers)."""
    deriver = ObligationDeriver(circuit, T, rows, schedule, structural, argmax)
    live = []
    for fn in functions:
        if any((fn.number, h) not in argmax for h in range(len(fn.layer.heads))):
            derivation.unsupported.append(f"layer {fn.layers[0]}: attention unknown, its obligations were not derived")
        else:
            live.append(fn)
    n = len(rows)
    parts = None
    if getattr(shards, "forked", False):  # grouped, the derivation costs less than forking for it (measured
        shards = None                     # at 10⁶ gates: 3.6 s in one process, 5.4 s wall over two forks)
    if shards is not None and n >= PARALLEL_MIN_POSITIONS:
        try:
            k = shards.workers
            parts = shards.map(_derive_stripe, (deriver, circuit, encoding, live),
                               [stripes(n, i, count=k) for i in range(k)])
        except Exception:  # noqa: BLE001 - a worker or the cluster failed: derive everything here instead
            parts = None
    if parts is None:
        parts = [_derive_blocks(deriver, circuit, encoding, live, [range(n)], _ticker(progress, len(live) * n))]
    _merge(parts, derivation)


def _derive_stripe(shared: tuple[Any, ...], blocks: list[range]) -> tuple[Found, Counter]:
    """One worker's stripe (a module-level function, so a worker process can unpickle it)."""
    return _derive_blocks(*shared, blocks, None)


def _derive_blocks(deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding, functions: list[LayerFunction],
                   blocks: list[range], tick: Callable[[int], None] | None) -> tuple[Found, Counter]:
    """The lemmas of ``blocks``: grouped by signature (derive_grouped.py), or position by position when a
    signature proves too coarse; both give the same result."""
    found = derive_range_grouped(deriver, circuit, encoding, functions, blocks, tick)
    return found if found is not None else _derive_range(deriver, circuit, encoding, functions, blocks, tick)


def _ticker(progress: Callable[[str, int, int], None] | None, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    return lambda k: progress("derive", k, total)


def stripes(n: int, which: int, block: int | None = None, count: int = 2) -> list[range]:
    """Stripe ``which`` of ``count`` of range(n) as blocks: every count-th block of ``block`` positions, so
    that every worker gets a share of every region of the encoding (gates, edges, wide sets) and equal work."""
    block = block or STRIPE
    return [range(start, min(start + block, n)) for start in range(which * block, n, count * block)]


def _derive_range(deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding, functions: list[LayerFunction],
                  blocks: list[range], tick: Callable[[int], None] | None) -> tuple[Found, Counter]:
    """The lemmas of the positions in ``blocks`` (increasing) under every function, with sequential order keys."""
    found: Found = {}
    shapes: dict[tuple, str] = {}  # shape → lemma id: each distinct text is rendered and hashed once
    names_of: dict[tuple[str, object], tuple[str, str]] = {}
    kinds: Counter = Counter()
    n_layers = deriver.transformer.n_layers
    claims = deriver.claims.as_list()  # every claim as an object, once: this path reads them all
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
            names = names_of.get(name_key)
            if names is None:
                names = names_of[name_key] = kind_names(*name_key)
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
