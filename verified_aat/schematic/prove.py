"""``prove_construction``: the schematic prover (its certificate is re-checked by the kernel).

Steps: (1) the construction's own encoder must agree with the kernel's statement of its layout on
sample circuits (the schematic lemmas are about that layout); (2) the kernel's derivation of the
lemmas from the transformer's circuits (``prepare``, on the kernel's own checks); (3) Z3 on each lemma.
Everything proved: a certificate.  A structural failure or a false lemma: the refutation search
(``refutation.refute``) looks for the smallest circuit and input where T_K fails, replayed exactly;
found, *refuted*, else *unknown*.  Undecided lemmas: *unknown*.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from ..certificates.kernel_form import encoding_digest, sha256_json, transformer_form
from ..circuits.json_format import circuit_structure
from ..constructions.base import Construction
from ..constructions.registry import document_data, embedded_document, get_construction
from ..errors import InputError
from ..kernel.report import Options, Report
from ..kernel.rules import run_checks
from ..kernel.schematic_edges import EdgeScheme
from ..kernel.data import Malformed, NotChecked
from ..kernel.layouts import SHIPPED, read_construction, shipped_construction
from ..kernel.schematic import (SCHEMATIC_CHECKS, SCHEMATIC_FORMAT, SCHEMATIC_VERSION, SchematicContext, derive_lemmas,
                                intended_sets, schematic_theorem)
from ..kernel.schematic_scheme import EarlySchedule, scheme_of
from ..kernel.schematic_lemmas import SETS
from ..kernel.solvers import z3_answer
from ..refutation.candidates import candidate_circuits
from ..refutation.refute import Refutation, intended_depth, refute
from ..transformer.model import Transformer
from ..wording import plural

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
PROOF_OBJECT_SECONDS = 5.0  # search for an edited T's proof objects (the rest rest on the solvers, named)
MODELS = 6  # false lemmas whose models are turned into witness circuits (each names a fan-in, ids, values)


def prepare(doc: dict[str, Any], derive: bool = True) -> tuple[SchematicContext, Report]:
    """The kernel's schematic checks up to and including its own derivation of the lemmas (the prover then
    discharges the lemmas itself, with models for its witnesses); ``derive`` False: the checks only."""
    ctx = SchematicContext(doc, Options())
    report = Report()
    run_checks(ctx, SCHEMATIC_CHECKS[:5], report)
    if derive and not report.rejections and not ctx.unchecked:  # past a kernel limit: nothing to derive
        ctx.derivation = derive_lemmas(ctx)
    return ctx, report


def schematic_builtins() -> tuple[str, ...]:
    """The shipped constructions that have an every-K induction (for tools and benchmarks)."""
    found = []
    for path in sorted(SHIPPED.glob("*.json")):
        try:
            scheme_of(shipped_construction(path.stem))
        except Exception:  # noqa: BLE001 - a built-in without an induction is simply not listed
            continue
        found.append(path.stem)
    return tuple(found)


@dataclass(frozen=True)
class SchematicResult:
    status: str
    construction: str
    depth_bound: int | None          # None: every K
    certificate: dict[str, Any] | None
    lemmas: int
    problems: tuple[str, ...]        # failed or undecided lemmas, structural failures
    refutation: Refutation | None
    theorem: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:  # one line, as every result prints (display.py), not the certificate it holds
        from ..display import schematic_repr
        return schematic_repr(self)

    def _repr_html_(self) -> str:
        from ..display import schematic_html
        return schematic_html(self)


def encoding_mismatch(construction: Construction, circuits: int = 30) -> str | None:
    """The first sample circuit on which the construction's encoder differs from the kernel's reading of
    its document (the schematic lemmas are about the latter)."""
    from ..kernel.data import NotChecked, load_circuit as kernel_circuit
    from ..kernel.encoding import Illegitimate, build
    from ..kernel.layouts import OutsideLayout
    from ..kernel.agreement import encoding_digest as kernel_digest

    layout = read_construction(document_data(construction), "$.construction_document")
    for n, circuit in enumerate(candidate_circuits(circuits)):
        try:
            construction.check_class(circuit)
            mine = kernel_digest(build(layout, kernel_circuit(circuit_structure(circuit), "$")))
        except (InputError, OutsideLayout, NotChecked):  # outside the class, or past the kernel's work bound
            continue
        except Illegitimate as exc:
            return f"the construction's document is not a legitimate encoding: {exc}"
        if encoding_digest(construction.encode(circuit)) != mine:
            return f"the construction's encoder differs from the kernel's layout on circuit {circuit.name}"
    return None


def schematic_document(name: str, depth_bound: int | None, T: Transformer, info_depth: int,
                       sets: dict[str, str] | None = None, embedded: Any = None, own: bool = False,
                       derive: bool = True) -> tuple[dict[str, Any], SchematicContext, Report]:
    """The certificate document with the kernel's own lemma list (not yet discharged), the kernel's
    context and its report on the checks before the solvers (rejections: a structural failure).
    ``embedded``: the construction document to embed (None for a shipped built-in)."""
    form = transformer_form(T)
    doc: dict[str, Any] = {"format": SCHEMATIC_FORMAT, "version": SCHEMATIC_VERSION, "construction": name,
                           "depth_bound": depth_bound, "transformer": form,
                           "hashes": {"transformer": sha256_json(form)}, "lemmas": [],
                           "result": {"status": "proved"},
                           "info": {"depth_bound": info_depth, "every_K": depth_bound is None}}
    if embedded is not None:
        doc["construction_document"] = embedded
        if own:
            doc["info"]["transformer"] = "own"
    if sets:
        doc["hints"] = {"sets": dict(sets)}
    ctx, report = prepare(doc, derive)
    doc["lemmas"] = [{"id": d, "kind": x.kind, "uses": x.uses, "smt2": x.text}
                     for d, x in ctx.derivation.lemmas.items()]
    return doc, ctx, report


def _discharge(ctx: SchematicContext, timeout_ms: int) -> tuple[list[str], list[str], list[str]]:
    """Z3 on every lemma the kernel's normal form does not prove (S12a): (false lemmas, undecided lemmas) as
    messages, and the false lemmas' texts."""
    from ..kernel.identity import decide

    failed, undecided, false = [], [], []
    for digest, lemma in ctx.derivation.lemmas.items():
        if decide(lemma.text) is True:  # valid: Z3 could only agree
            continue
        answer = z3_answer(lemma.text, timeout_ms)
        if answer == "sat":
            failed.append(f"{lemma.kind} lemma {digest[:12]} is false: {lemma.where}")
            false.append(lemma.text)
        elif answer != "unsat":
            undecided.append(f"{lemma.kind} lemma {digest[:12]} ({lemma.where}): z3 says {answer}")
    return failed, undecided, false


def _witness_from_false_lemmas(T: Transformer, construction: Construction, false: list[str], timeout_ms: int,
                               budget: float) -> Refutation:
    """Circuits built from the false lemmas' models (a fan-in k, ids, values), replayed exactly."""
    from .witness import lemma_model, witness_from_models

    models = [m for text in false[:MODELS] for m in [lemma_model(text, min(timeout_ms, 5_000))] if m]
    return witness_from_models(T, construction, models, budget)


def _no_induction(construction: Construction) -> str | None:
    """Why the kernel has no every-K induction for the construction's document (None: it has one)."""
    data = document_data(construction)
    if data is None:
        return "it has no construction document"
    try:
        scheme_of(read_construction(data, "$.construction_document"))
    except (NotChecked, EarlySchedule, Malformed) as exc:
        return str(exc)
    return None


def _layers_hint(construction: Construction, problems: list[str]) -> list[str]:
    """What proves a document whose prefix or suffix layers the every-K proof does not cover (P4)."""
    spec = (document_data(construction) or {}).get("transformer", {})
    if not any("schematic-layers" in p for p in problems) or not (spec.get("prefix") or spec.get("suffix")):
        return []
    return ["the every-K proof covers T_K = K × block only (edge layouts: and a suffix that repeats the block), not "
            "this document's prefix or suffix layers: `prove-construction -K K` proves T_K for one K (layers after "
            "the 2K included), `certify` each circuit"]


def _trailing_depth(construction: Construction, T: Transformer) -> int | None:
    """K for a T that is 2K layers of the gate/edge induction followed by layers that do not begin another
    pair (an extra final layer, proved to keep every gate's row: P9).  None: T has an even number of layers,
    or its odd last layer is the first of a pair (T_{K+1} with its last layer missing is meant for K + 1)."""
    from dataclasses import replace

    data = document_data(construction)
    if data is None or isinstance(scheme_of(read_construction(data, "$.construction_document")), EdgeScheme):
        return None
    n = len(T.layers)
    K, t = n // 2, n % 2
    if K < 1 or t == 0:
        return None
    form = lambda layers: transformer_form(replace(T, layers=tuple(layers)))  # noqa: E731
    starts_a_pair = form(T.layers[2 * K:]) == form(T.layers[2 * K - 2:2 * K - 2 + t])
    return None if starts_a_pair else K


def _fixed_depth(construction: Construction, T: Transformer) -> int | None:
    """The K to prove a given T for when it is not one block repeated (None: it is; prove every K): K pairs
    and trailing layers (P9), else the K it is meant for (``intended_depth``)."""
    _, _, report = schematic_document(construction.name, None, T, 1, embedded=embedded_document(construction),
                                      derive=False)  # only the layer check matters here
    if not any(r.check == "schematic-layers" for r in report.rejections):
        return None
    return _trailing_depth(construction, T) or intended_depth(construction, T)


def lemma_witness(construction: Construction, T: Transformer, depth_bound: int | None = None,
                  timeout_ms: int = 10_000, budget: float = 30.0) -> Refutation | None:
    """``refute``'s first try, from T's schematic lemmas: a replayed witness built from the false lemmas'
    models; or, where every lemma holds, the kernel's theorem (``Refutation.proved``: no counterexample
    exists).  None: no induction for the construction, a structural failure, an undecided lemma, or no
    circuit built from the models fails."""
    if _no_induction(construction) is not None:
        return None
    found = _at_depth(construction, T, depth_bound or _meant(construction, T), timeout_ms, budget)
    if found is not None or depth_bound is None:
        return found
    meant = _meant(construction, T)  # T meant for a larger K: its theorem covers depth <= depth_bound too (red team 7)
    wider = _at_depth(construction, T, meant, timeout_ms, budget) if depth_bound < meant else None
    return wider if wider is not None and wider.proved else None


def _meant(construction: Construction, T: Transformer) -> int:
    """The K a given T is proved for when no depth bound is asked (``_fixed_depth``, else ``intended_depth``)."""
    return _fixed_depth(construction, T) or intended_depth(construction, T)


def _at_depth(construction: Construction, T: Transformer, K: int, timeout_ms: int, budget: float) -> Refutation | None:
    """lemma_witness at one depth bound K."""
    t0 = time.perf_counter()
    doc, ctx, report = schematic_document(construction.name, K, T, K, embedded=embedded_document(construction))
    if report.rejections or ctx.unchecked:
        return None
    failed, undecided, false = _discharge(ctx, timeout_ms)
    if not failed and not undecided:
        from ..kernel.schematic import check_schematic
        verdict = check_schematic(doc)
        if verdict.outcome == "accepted":
            return Refutation(None, None, 0, time.perf_counter() - t0, proved=verdict.theorem)
        return None
    if not false:
        return None
    found = _witness_from_false_lemmas(T, construction, false, timeout_ms, budget)
    return found if found.counterexample is not None else None


def refute_by_lemmas_then_search(T: Transformer, construction: Construction, circuits: Any = None,
                                 budget_seconds: float = 60.0, per_circuit_seconds: float = 5.0,
                                 depth_bound: int | None = None) -> Refutation:
    """``refute``: T's schematic lemmas first (a witness built from a false lemma's model, whatever fan-in,
    ids or values it needs; or the kernel's proof that none exists), then the search over small candidate
    circuits (or the given ``circuits``)."""
    if circuits is None:
        found = lemma_witness(construction, T, depth_bound, budget=budget_seconds / 2)
        if found is not None:
            return found
    return refute(T, construction, circuits, budget_seconds=budget_seconds, per_circuit_seconds=per_circuit_seconds,
                  depth_bound=depth_bound)


def _search(T: Transformer, construction: Construction, every_k: bool, depth_bound: int | None,
            budget: float) -> Refutation:
    """The search over small candidate circuits for T (at its K); for the construction's own T_K for every K,
    then T_2 and T_3 too (a document whose T_1 is right may still be wrong at a larger K)."""
    reach = depth_bound or intended_depth(construction, T)
    found = refute(T, construction, budget_seconds=budget / (1 + 2 * every_k), depth_bound=reach)
    for k in (2, 3) if every_k and found.counterexample is None else ():
        found = refute(construction.transformer(k), construction, budget_seconds=budget / 3, depth_bound=k)
        if found.counterexample is not None:
            break
    return found


def _other_sets(ctx: SchematicContext, T: Transformer) -> list[dict[str, str]]:
    """Intended-set hints to try when attention lemmas fail: every other choice of sets, fewest heads changed first
    (every combination for up to 3 heads, at most 26; else one head at a time).  One head at a time missed a document
    whose two heads' ``attends`` were swapped (unique-hard-left, first: slot-1, second: slot-0): unknown, T right."""
    if ctx.scheme is None or not (isinstance(ctx.scheme, EdgeScheme) or ctx.scheme.slots is not None):
        return []
    defaults = intended_sets(ctx.construction)
    heads = sorted({h.name for layer in T.layers for h in layer.heads})
    own = tuple(defaults.get(head, "in-edges") for head in heads)
    if len(heads) > 3:
        return [{head: s} for head in heads for s in SETS if s != defaults.get(head, "in-edges")]
    choices = [c for c in product(SETS, repeat=len(heads)) if c != own]
    choices.sort(key=lambda c: sum(a != b for a, b in zip(c, own)))
    return [{head: s for head, s, d in zip(heads, c, own) if s != d} for c in choices]


# long because one driver whose stages (derive, discharge, retry other intended sets, proof objects,
# witness search) share the timings and the `finish` closure; each stage is a call.
def prove_construction(construction: Construction | str, depth_bound: int | None = None,
                       transformer: Transformer | None = None, timeout_ms: int = 20_000,
                       witness_budget: float = 60.0) -> SchematicResult:
    """Prove T_K (``depth_bound`` K; None: every K) for every circuit of the construction's class."""
    wall, cpu = time.perf_counter(), time.process_time()
    if isinstance(construction, str):
        construction = get_construction(construction)
    if depth_bound is not None and depth_bound < 1:
        raise InputError(f"the depth bound must be ≥ 1, got {depth_bound}", "-K")
    T = transformer or construction.transformer(depth_bound or 1)
    name = construction.name
    if transformer is not None and depth_bound is None and _no_induction(construction) is None:
        depth_bound = _fixed_depth(construction, T)
    timings: dict[str, float] = {}

    def finish(status: str, doc: dict | None, lemmas: int, problems: list[str],
               found: Refutation | None = None, theorem: str = "") -> SchematicResult:
        return SchematicResult(status, name, depth_bound, doc, lemmas, tuple(problems), found, theorem,
                               time.perf_counter() - wall, time.process_time() - cpu, timings)

    why = _no_induction(construction)
    if why is not None:  # nothing to prove with; a wrong T is still refuted by a replayed witness
        t0 = time.perf_counter()
        found = _search(T, construction, transformer is None and depth_bound is None, depth_bound,
                        witness_budget)
        timings["witness"] = time.perf_counter() - t0
        reason = [f"the kernel states no schematic proof for {name}: {why}"]
        if found.counterexample is not None and found.counterexample.rational:
            return finish(REFUTED, None, 0, reason, found)
        return finish(UNKNOWN, None, 0, reason + ["not proved (unknown)"], found)
    embedded = embedded_document(construction)
    t0 = time.perf_counter()
    problems: list[str] = []
    mismatch = encoding_mismatch(construction)
    if mismatch:
        problems.append(mismatch)
    own = transformer is None
    info_depth = (depth_bound or 1) if own else (depth_bound or intended_depth(construction, T))
    doc, ctx, report = schematic_document(name, depth_bound, T, info_depth, embedded=embedded, own=own)
    if ctx.unchecked and not report.rejections:  # past one of the kernel's limits: unknown, never proved or refuted
        return finish(UNKNOWN, None, 0, [f"the kernel does not check it: {u}" for u in ctx.unchecked])
    problems += [str(r) for r in report.rejections]
    timings["derive"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    failed, undecided, false = ([], [], []) if problems else _discharge(ctx, timeout_ms)
    if any(f.startswith("schematic:attention") for f in failed):  # a wrong set fails its head's steps too
        for sets in _other_sets(ctx, T):  # another intended set for one head (a hint the kernel proves)
            again, again_ctx, _ = schematic_document(name, depth_bound, T, info_depth, sets, embedded, own)
            if _discharge(again_ctx, timeout_ms) == ([], [], []):
                doc, ctx, failed, false = again, again_ctx, [], []
                break
    timings["solve"] = time.perf_counter() - t0
    lemmas = len(ctx.derivation.lemmas)
    if not problems and not failed and not undecided:
        t0 = time.perf_counter()
        from .proof_objects import attach_proof_objects
        # the construction's own T_K: every object (the shipped certificates); an edited T: what 5 s find
        attach_proof_objects(doc, None if own else PROOF_OBJECT_SECONDS)
        timings["proof_objects"] = time.perf_counter() - t0
        doc["timings"] = {k: round(v, 3) for k, v in timings.items()}
        return finish(PROVED, doc, lemmas, [], theorem=schematic_theorem(ctx))
    if problems or failed or undecided:  # undecided only: a wrong T may still go wrong on a candidate circuit
        t0 = time.perf_counter()
        found = _witness_from_false_lemmas(T, construction, false, timeout_ms, witness_budget / 2)
        if found.counterexample is None and false and own and depth_bound is None:  # T_1 right, T_2 wrong on them?
            found = _witness_from_false_lemmas(construction.transformer(2), construction, false, timeout_ms,
                                               witness_budget / 4)
        if found.counterexample is None:
            left = max(witness_budget - (time.perf_counter() - t0), witness_budget / 2)
            found = _search(T, construction, own and depth_bound is None, depth_bound, left)
        timings["witness"] = time.perf_counter() - t0
        if found.counterexample is not None and found.counterexample.rational:
            return finish(REFUTED, None, lemmas, problems + failed, found)
        if found.counterexample is not None:  # refutes ℝ only; over Q it is still open
            return finish(UNKNOWN, None, lemmas, problems + failed + ["an irrational witness refutes the claim over ℝ "
                                                                     "only: not refuted over Q"], found)
        return finish(UNKNOWN, None, lemmas, problems + failed + undecided + _layers_hint(construction, problems) +
                      [f"no replayed witness in {plural(found.circuits_tried, 'circuit')}: not refuted"], found)
    raise AssertionError("unreachable: proved, or problems, false or undecided lemmas")
