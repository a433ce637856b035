"""Refutation (and harmless-edit proof) time per class of issue 20: wall and CPU seconds.

Usage: ``python benchmarks/refute_bench.py``.  Each row runs ``prove-construction`` on a held-out
wrong document (``tests/data/constructions/held-out/``) or on an edited transformer
(``tests/transformer_edits.py``) in this process, and prints the status, the witness (its gates and
largest add fan-in) and the time.  The issue's budget is 10 s per class.  A second table: ``refute`` of gate-edge's
T_K with one middle gather layer edited, the candidate circuit it first failed on and the shrunk witness it reports.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import transformer_edits as edits  # noqa: E402

from verified_aat.constructions.interpreted import DocumentConstruction  # noqa: E402
from verified_aat.constructions.registry import get_construction  # noqa: E402
from verified_aat.schematic import prove_construction  # noqa: E402

HELD_OUT = ROOT / "tests" / "data" / "constructions" / "held-out"
DOCUMENTS = [("add fan-in ≥ 65", "gate-edge-cap64"), ("add fan-in ≥ 65", "edge-k-cap64"),
             ("add fan-in ≥ 65", "edge-only-cap64"), ("source id ≥ 100", "gate-edge-src100"),
             ("mul id ≥ 100", "edge-only-src100"), ("mean above 10³⁰", "gate-edge-clip-1e30"),
             ("sign arg in (−10⁻⁴¹, 0)", "gate-edge-tiny-sign"), ("mean exactly 7/3", "gate-edge-at-7-3"),
             ("source id 2²⁰ + 1", "gate-edge-src-2p20")]
EDITS = [("T's add reads min(k, 64)", "gate-edge", edits.cap_add_fan_in),
         ("T's add reads min(k, 64)", "edge-k", edits.cap_add_fan_in),
         ("unused head (harmless)", "gate-edge", edits.with_unused_head),
         ("unused head (harmless)", "edge-only", edits.with_unused_head),
         ("unread last-layer values (harmless)", "edge-k", edits.scribble_last_layer),
         ("extra layer at edges (harmless)", "gate-edge", edits.with_edge_layer),
         ("head read by val (twin)", "gate-edge", edits.with_read_head),
         ("extra layer at gates (twin)", "unique-hard", lambda T: edits.with_edge_layer(T, also_gates=True))]


def _row(label: str, name: str, run) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    circuit = result.refutation.circuit if result.refutation is not None else None
    witness = "—" if circuit is None else (f"{circuit.size} gates, add fan-in ≤ "
                                           f"{max([len(g.args) for g in circuit.gates if g.kind.value == 'add'] or [0])}")
    return label, name, result.status, witness, f"{wall:.2f}", f"{cpu:.2f}"


def main() -> int:
    rows = [_row(label, name, lambda n=name: prove_construction(DocumentConstruction.load(HELD_OUT / f"{n}.json"),
                                                                  witness_budget=60.0))
            for label, name in DOCUMENTS]
    for label, name, edit in EDITS:
        construction = get_construction(name)
        rows.append(_row(label, name, lambda c=construction, e=edit: prove_construction(
            c, transformer=e(c.transformer(2)), witness_budget=30.0)))
    _table(("class", "construction", "status", "witness", "wall s", "CPU s"), rows)
    print()
    _table(("gate-edge T_K, gather layer edited", "status", "first found", "reported (shrunk)", "wall s", "CPU s"),
           [_middle_layer(k, layer) for k, layer in MIDDLE])
    return 0


MIDDLE = [(8, 8), (12, 12), (31, 32)]  # (K, layer): sign_value read as the gathered value (red team, round 28)


def _middle_layer(k: int, layer: int) -> tuple[str, ...]:
    """``refute`` of gate-edge's T_K with one middle gather layer edited: the stacked candidate it first fails on,
    and the witness after shrinking (``refutation/shrink.py``)."""
    from verified_aat.api import refute
    from verified_aat.transformer.spec import transformer_from_json, transformer_to_json
    data = transformer_to_json(get_construction("gate-edge").transformer(k))
    body = list(data["functions"][data["layers"][layer - 1]["activation"]])
    body[body.index("sign_value = sign gather.val")] = "sign_value = add gather.val"
    data["functions"]["edited"], data["layers"][layer - 1]["activation"] = body, "edited"
    wall, cpu = time.perf_counter(), time.process_time()
    found = refute(transformer_from_json(data), "gate-edge", budget=240)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu

    def size(c) -> str:  # type: ignore[no-untyped-def]
        return "—" if c is None else f"{c.size} gates, {len(c.outputs)} outputs"
    return (f"K = {k}, layer {layer}", str(found.status), size(found.first_found or found.circuit), size(found.circuit),
            f"{wall:.2f}", f"{cpu:.2f}")


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(x.ljust(w) for x, w in zip(r, widths)))


if __name__ == "__main__":
    raise SystemExit(main())
