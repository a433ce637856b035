"""``audit --prove``: a certificate that the unrolled circuit U_N equals T for every audited N.

The engine's part is small on purpose: it unrolls T with :func:`.unroll.unroll`
(or a given unroller, e.g. a deliberately wrong one), hashes each U_N's
canonical structure from its flat arrays, lists the lemmas and hands the
document to the trusted kernel (:mod:`verified_aat.kernel.audit_proof`),
which re-unrolls T itself, re-derives every lemma and runs the solvers.  The
certificate says *proved* only when the kernel accepted it.

When the kernel rejects — U_N is not the kernel's composition of gadgets at
some N, or a lemma is false — the engine looks for a witness: seeded
sequences (with many argmax ties) on which U_N, evaluated exactly, differs
from T's exact engine.  A witness is replayed with two other exact
evaluators (the generic circuit interpreter for U_N, the independent
reference of :mod:`.reference` for T) before it is reported: *refuted*.
Without a witness the answer is *unknown*, never *refuted*.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..certificates.kernel_form import sha256_json, transformer_form
from ..circuits.evaluate import evaluate
from ..errors import InputError
from ..transformer.exact_engine import ExactRunner
from ..transformer.model import Transformer
from .check import sample_sequence, sample_sequences
from .flat import CONST, INPUT, KINDS
from .reference import reference_run
from .unroll import UnrolledCircuit, Unroller, flatten, unroll

from ..status import Status

PROVED, REFUTED, UNKNOWN = Status.PROVED, Status.REFUTED, Status.UNKNOWN  # the one vocabulary (status.py)


@dataclass(frozen=True)
class Witness:
    """A sequence on which U_N and T differ, replayed exactly."""

    n: int
    sequence: tuple[tuple[Fraction, ...], ...]
    circuit: tuple[Fraction, ...]
    transformer: tuple[Fraction, ...]

    def describe(self) -> str:
        first = next(k for k, (a, b) in enumerate(zip(self.circuit, self.transformer)) if a != b)
        show = "[" + ", ".join("(" + ", ".join(map(str, v)) + ")" for v in self.sequence) + "]"
        return (f"N = {self.n}: on {show} output {first} of U_N is {self.circuit[first]}, T gives "
                f"{self.transformer[first]}")


@dataclass(frozen=True)
class ProofResult:
    status: str
    certificate: dict[str, Any] | None
    reasons: tuple[str, ...] = ()
    witness: Witness | None = None
    theorem: str = ""
    lemmas: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def structure_hash(u: UnrolledCircuit) -> str:
    """sha256 of U_N's canonical structure (the kernel's circuit form), computed from the flat arrays."""
    flat = u.flat
    index = {g: k for k, g in enumerate(flat.input_gates)}
    kinds, offsets, argv = flat.kinds.tolist(), flat.offsets.tolist(), flat.argv.tolist()
    names = [kind.value for kind in KINDS]
    gates: list[list[Any]] = []
    for g, kind in enumerate(kinds):
        if kind == INPUT:
            gates.append(["input", index[g]])
        elif kind == CONST:
            gates.append(["const", str(flat.const_values[g])])
        else:
            gates.append([names[kind], argv[offsets[g]:offsets[g + 1]]])
    return sha256_json({"gates": gates, "outputs": list(flat.outputs)})


def unrolled_entry(u: UnrolledCircuit) -> dict[str, Any]:
    return {"n": u.n_positions, "sha256": structure_hash(u), "gates": u.flat.size,
            "depth": u.flat.measures().depth}


def build_certificate(transformer: Transformer, lengths: Sequence[int], unroller: Unroller = unroll
                      ) -> tuple[dict[str, Any], dict[int, UnrolledCircuit], dict[int, str]]:
    """The certificate (status *proved*, still to be checked), the U_N, and the N whose U_N is not the kernel's."""
    from ..kernel.audit_proof import AUDIT_FORMAT, AUDIT_VERSION, derive_lemmas
    from ..kernel.data import load_transformer as kernel_transformer
    from ..kernel.unroll import structure as kernel_structure
    from ..kernel.unroll import unroll as kernel_unroll

    form = transformer_form(transformer)
    kernel_T = kernel_transformer(json.loads(json.dumps(form)))
    unrolled, entries, uses, differs = {}, [], {}, {}
    for n in lengths:
        u = unrolled[n] = unroller(transformer, n)
        entry = unrolled_entry(u)
        entries.append(entry)
        kb = kernel_unroll(kernel_T, n)
        uses[n] = kb.uses
        if sha256_json(kernel_structure(kb)) != entry["sha256"]:
            differs[n] = _first_difference(u, kernel_structure(kb))
    lemmas = [{"id": lemma.id, "kind": lemma.kind, "scope": lemma.scope, "uses": lemma.uses, "smt2": lemma.text}
              for lemma in derive_lemmas(kernel_T, uses)]
    doc = {"format": AUDIT_FORMAT, "version": AUDIT_VERSION,
           "claim": f"U_N = {transformer.name} on every sequence of length N, for N in {list(lengths)}",
           "info": {"transformer": transformer.name, "dimension": transformer.dimension,
                    "layers": transformer.n_layers, "heads": transformer.n_heads},
           "transformer": form, "hashes": {"transformer": sha256_json(form)}, "lengths": list(lengths),
           "unrolled": entries, "lemmas": lemmas, "result": {"status": PROVED}}
    from ..schematic.proof_objects import attach_proof_objects
    attach_proof_objects(doc)  # GT, ARGMAX: trichotomy case trees the kernel checks (S12c)
    return doc, unrolled, differs


def _first_difference(u: UnrolledCircuit, kernel: dict[str, Any]) -> str:
    """Where the engine's U_N first departs from the kernel's unrolling (gate index and layer)."""
    flat = u.flat
    mine = kernel["gates"]
    for g in range(max(flat.size, len(mine))):
        if g >= flat.size or g >= len(mine) or _gate(flat, g) != mine[g]:
            layer = next((k for k, (a, b) in enumerate(u.layer_ranges, start=1) if a <= g < b), None)
            return f"gate {g}" + (f" (layer {layer})" if layer else "") + " differs from the kernel's unrolling"
    return "the outputs differ from the kernel's unrolling"


def _gate(flat: Any, g: int) -> list[Any]:
    kind = int(flat.kinds[g])
    if kind == INPUT:
        return ["input", flat.input_gates.index(g)]
    if kind == CONST:
        return ["const", str(flat.const_values[g])]
    return [KINDS[kind].value, flat.argv[flat.offsets[g]:flat.offsets[g + 1]].tolist()]


def kernel_limit(transformer: Transformer, lengths: Sequence[int]) -> str | None:
    """Why the kernel would refuse to check U_N for ``lengths`` (its caps on N and on the gates), or None.

    Runs the kernel's own size check on the kernel form of T, so the answer agrees with ``check`` exactly.
    """
    from ..kernel.audit_proof import MAX_LENGTH, AuditContext, _transformer
    from ..kernel.data import Malformed, NotChecked
    from ..kernel.problems import render
    from ..kernel.report import Options

    past = [n for n in lengths if n > MAX_LENGTH]
    if past:
        return f"N = {past[0]} is past the kernel's cap of N <= {MAX_LENGTH} for audit certificates"
    form = json.loads(json.dumps(transformer_form(transformer)))
    try:
        _transformer(AuditContext({"transformer": form}, Options(), lengths=sorted(set(lengths))))
    except Malformed as exc:
        return f"past the kernel's cap: {render(exc.message, exc.data)}"
    except NotChecked as exc:
        return f"past the kernel's cap: {exc}"
    return None


def witness_sequences(n: int, d: int, samples: int, seed: int) -> list[list[list[Fraction]]]:
    """The audit's seeded samples plus tie-heavy ones (one vector repeated, few distinct vectors)."""
    import random

    rng = random.Random(seed + 7919 * n)
    extra = [sample_sequence(rng, n, d, kind) for _ in range(samples) for kind in ("constant", "repeats", "binary")]
    return sample_sequences(n, d, samples, seed) + extra


def find_witness(transformer: Transformer, u: UnrolledCircuit, samples: int, seed: int) -> Witness | None:
    """A sequence where U_N and T differ, replayed by two more exact evaluators; None if none is found."""
    n, flat, runner = u.n_positions, u.flat, ExactRunner(transformer)  # T's activations compiled once
    for sequence in witness_sequences(n, transformer.dimension, samples, seed):
        got = tuple(flat.evaluator.run(flatten(sequence)).take(flat.outputs))
        want = tuple(flatten(runner.run(sequence).outputs))
        if got == want:
            continue
        replay_u = tuple(Fraction(v) for v in evaluate(u.circuit, flatten(sequence)))
        replay_t = tuple(Fraction(v) for v in flatten(reference_run(transformer, sequence).outputs))
        if replay_u == tuple(map(Fraction, got)) and replay_t == tuple(map(Fraction, want)) and replay_u != replay_t:
            return Witness(n, tuple(tuple(map(Fraction, v)) for v in sequence), replay_u, replay_t)
    return None


def prove_audit(transformer: Transformer, lengths: Sequence[int], *, unroller: Unroller = unroll,
                solvers: tuple[str, ...] = ("z3",), timeout_s: float = 20.0, jobs: int = 2,
                samples: int = 100, seed: int = 0) -> ProofResult:
    """Build the certificate, have the kernel check it; on rejection look for a replayed witness."""
    from ..kernel.audit_proof import check_audit
    from ..kernel.report import Options

    lengths = sorted(set(lengths))
    if not lengths:
        raise InputError("no lengths to prove")
    limit = kernel_limit(transformer, lengths)
    if limit is not None:  # the kernel would refuse: say so before unrolling anything
        return ProofResult(UNKNOWN, None, (limit,))
    t0 = time.perf_counter()
    doc, unrolled, differs = build_certificate(transformer, lengths, unroller)
    t1 = time.perf_counter()
    report = check_audit(doc, Options(solvers=solvers, timeout_ms=int(timeout_s * 1000), jobs=jobs))
    t2 = time.perf_counter()
    timings = {"build": t1 - t0, "kernel": t2 - t1}
    if report.accepted:
        doc["result"]["engine"] = {"lemmas": report.lemmas, "solver_runs": report.solver_runs}
        doc["timings"] = {k: round(v, 3) for k, v in timings.items()}
        return ProofResult(PROVED, doc, theorem=report.theorem, lemmas=report.lemmas, timings=timings)
    reasons = tuple(f"N = {n}: {where}" for n, where in differs.items()) + tuple(report.reasons)
    suspects = list(differs) or (lengths if report.rejections else [])
    for n in suspects:
        witness = find_witness(transformer, unrolled[n], samples, seed)
        if witness is not None:
            timings["witness"] = time.perf_counter() - t2
            return ProofResult(REFUTED, None, reasons, witness, lemmas=report.lemmas, timings=timings)
    timings["witness"] = time.perf_counter() - t2
    note = ("no witness sequence found: the unrolling is not the kernel's, but it may still compute T"
            if report.rejections else "a lemma was not decided")
    return ProofResult(UNKNOWN, None, reasons + (note,), lemmas=report.lemmas, timings=timings)

