"""``audit --prove`` (all N): one certificate that U_N = T for every length N ≥ 1.

The engine writes the family (:func:`.family.kernel_family`, or a deliberately changed one), the
measures and lemmas the kernel derives, and the proof objects it finds, then hands the document to
the kernel (:mod:`verified_aat.kernel.audit_family`), which re-derives everything; *proved* only when
it accepts.  A changed family is rejected there; the engine then looks for the first N at which it
builds other gates than the kernel's (:func:`.family.differs_at`) and, from there on, for a sequence
on which that U_N, evaluated exactly, differs from T — replayed by two more exact evaluators before
it is reported (*refuted*), at any N, 33 and past it included.  Without a witness: *unknown*.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..certificates.kernel_form import sha256_json, transformer_form
from ..errors import InputError
from ..transformer.model import Pooling, Transformer
from .family import Family, differs_at, gadgets_of, kernel_family, literals, same_family
from .prove import PROVED, REFUTED, UNKNOWN, ProofResult, find_witness, structure_hash
from .size import size_formula
from .unroll import unroll

WITNESS_GATES = 3_000_000   # the largest U_N the witness search builds (a changed family is tried up to there)
MIN_SEARCH_LENGTH = 8       # a changed family is tried at N = 1 … at least this (and past its integer literals)


def _kernel_form(transformer: Transformer) -> tuple[dict[str, Any], Any]:
    """T's kernel form (what the certificate embeds) and the kernel's reading of it; softmax refused."""
    from ..kernel.data import load_transformer as kernel_transformer

    _refuse_softmax(transformer)
    form = transformer_form(transformer)
    return form, kernel_transformer(json.loads(json.dumps(form)))


def build_family_certificate(transformer: Transformer, family: Family | None = None,
                             proof_seconds: float | None = None, kernel_form: Any = None) -> dict[str, Any]:
    """The all-N certificate (status *proved*, still to be checked by the kernel); ``kernel_form``: the
    result of :func:`_kernel_form` when the caller already has it."""
    from ..kernel.audit_family import FAMILY_FORMAT, FAMILY_VERSION, derive_family_lemmas, derive_measures
    from ..schematic.proof_objects import attach_proof_objects

    form, kernel_T = kernel_form or _kernel_form(transformer)
    doc = {"format": FAMILY_FORMAT, "version": FAMILY_VERSION,
           "claim": f"U_N = {transformer.name} on every sequence of length N, for every N >= 1",
           "info": {"transformer": transformer.name, "dimension": transformer.dimension,
                    "layers": transformer.n_layers, "heads": transformer.n_heads},
           "transformer": form, "hashes": {"transformer": sha256_json(form)},
           "family": kernel_family() if family is None else family,
           "measures": derive_measures(kernel_T),
           "lemmas": [{"id": x.id, "kind": x.kind, "smt2": x.text} for x in derive_family_lemmas(kernel_T)],
           "result": {"status": PROVED}}
    attach_proof_objects(doc, proof_seconds)
    return doc


def kernel_limit_all_n(transformer: Transformer, kernel_form: Any = None) -> str | None:
    """The kernel's own size cap on the kernel form of T (so the answer agrees with ``check``), or None."""
    from ..kernel.audit_family import too_large
    from ..kernel.data import Malformed, NotChecked

    try:
        problem = too_large((kernel_form or _kernel_form(transformer))[1])
    except (Malformed, NotChecked) as exc:  # the kernel's reader refuses T's form past its caps (coordinates, heads, layers)
        problem = str(exc)
    return None if problem is None else f"past the kernel's cap: {problem}; nothing built, U_N = T not proved"


def _refuse_softmax(transformer: Transformer) -> None:
    from .unroll import SOFTMAX_REFUSAL
    for number, layer in enumerate(transformer.layers, start=1):
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(f"layer {number}, head {head.name}: {SOFTMAX_REFUSAL}")


def prove_all_n(transformer: Transformer, family: Family | None = None, *, name: str = "",
                solvers: tuple[str, ...] = ("z3",), timeout_s: float = 20.0, jobs: int = 2,
                samples: int = 20, seed: int = 0) -> ProofResult:
    """Certify U_N = T for every N (``family``: a changed one, to see it refuted; ``name`` labels it)."""
    from ..kernel.audit_family import check_audit_family
    from ..kernel.data import Malformed, NotChecked
    from ..kernel.report import Options

    try:
        forms = _kernel_form(transformer)
    except (Malformed, NotChecked):  # past the kernel reader's caps: kernel_limit_all_n says which
        forms = None
    limit = kernel_limit_all_n(transformer, forms)
    if limit is not None:  # the kernel would refuse: say so before building anything
        return ProofResult(UNKNOWN, None, (limit,))
    t0 = time.perf_counter()
    doc = build_family_certificate(transformer, family, kernel_form=forms)
    t1 = time.perf_counter()
    report = check_audit_family(json.loads(json.dumps(doc)),
                                Options(solvers=solvers, timeout_ms=int(timeout_s * 1000), jobs=jobs))
    t2 = time.perf_counter()
    timings = {"build": t1 - t0, "kernel": t2 - t1}
    if report.accepted:
        doc["result"]["engine"] = {"lemmas": report.lemmas, "solver_runs": report.solver_runs}
        return ProofResult(PROVED, doc, theorem=report.theorem, lemmas=report.lemmas, timings=timings)
    reasons = tuple(report.reasons)
    if family is None or same_family(family, kernel_family()):
        return ProofResult(UNKNOWN, None, reasons, lemmas=report.lemmas, timings=timings)
    result = first_witness(transformer, family, name, samples, seed)
    timings["witness"] = time.perf_counter() - t2
    if isinstance(result, str):
        return ProofResult(UNKNOWN, None, reasons + (result,), lemmas=report.lemmas, timings=timings)
    n, witness = result
    return ProofResult(REFUTED, None, reasons + (f"the family first builds other gates than the kernel's at "
                                                 f"N = {n}",), witness, lemmas=report.lemmas, timings=timings)


def first_witness(transformer: Transformer, family: Family, name: str, samples: int, seed: int) -> Any:
    """(N, witness) at the first N where ``family`` differs from the kernel's and a witness is found,
    or why there is none (a string)."""
    canonical = kernel_family()
    last = max([MIN_SEARCH_LENGTH, *(k + 2 for k in literals(family))])
    gadgets = gadgets_of(family, name or "changed")
    differed = []
    for n in range(1, last + 1):
        if not differs_at(family, canonical, n):
            continue
        if size_formula(transformer, n).size_bound > WITNESS_GATES:
            return (f"the family differs from the kernel's at N = {n}, past the witness search's "
                    f"{WITNESS_GATES:,} gates: no witness sought there")
        u = unroll(transformer, n, gadgets)
        if structure_hash(u) == structure_hash(unroll(transformer, n)):
            continue
        differed.append(n)
        witness = find_witness(transformer, u, samples, seed)
        if witness is not None:
            return n, witness
    if not differed:
        return f"the family builds the kernel's gates at every N up to {last}, yet is written differently"
    return (f"the family builds other gates than the kernel's at N = {', '.join(map(str, differed[:6]))}, but no "
            f"sequence tried shows a difference: it may still compute T (an equivalent circuit is not checked)")
