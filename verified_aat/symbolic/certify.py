"""Certification: run the actual transformer symbolically and discharge every
obligation (MATH.md §6).

Pipeline: compile (or take a given transformer) → attention (hint lemmas and
key joins) → structural frame → per-position obligations, deduplicated by
their canonical text → discharge → verdict.  *proved* only when every
obligation is discharged; any failure goes to the refutation search, and
without a replayed counterexample the verdict is *unknown*.
"""

from __future__ import annotations

import time
from itertools import chain, compress
from operator import attrgetter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..circuits.ir import Circuit, Kind
from ..constructions.base import Construction
from ..constructions.claims import Schedule
from ..constructions.registry import embedded_document
from ..constructions.encoding import Encoding
from ..errors import InputError
from ..gc_pause import gc_paused
from ..status import Status
from ..transformer.model import Pooling, Transformer
from .analysis import output_reads
from .attention import ArgmaxSets, brute_force_argmax, hint_lemma, hint_reads_structure_only, join_argmax, score_reads
from .derive import derive_positions
from .discharge import FAILED, PROVED, UNKNOWN, LemmaVerdict, discharge, discharge_all
from .obligations import (Derivation, Lemma, LayerFunction, StructureView, digest,
                          layer_functions)
from .residual import concrete_outputs
from ..wording import plural

PROVED_STATUS, REFUTED_STATUS, UNKNOWN_STATUS = Status.PROVED, Status.REFUTED, Status.UNKNOWN


@dataclass
class AttentionClaim:
    function: int
    head: str
    layers: tuple[int, ...]
    method: str  # "key-join" or "brute-force"
    lemma: str | None  # digest of the hint lemma
    sets: ArgmaxSets


@dataclass(repr=False)
class CertifyResult:
    """What ``certify`` found; ``status`` is a :class:`~verified_aat.status.Status` (equal to its string)."""

    status: Status
    circuit: Circuit
    transformer: Transformer
    encoding: Encoding
    construction: str
    depth_bound: int
    schedule: Schedule
    structural: tuple[str, ...]
    hints: dict[str, Any]
    derivation: Derivation
    verdicts: dict[str, LemmaVerdict]
    attention: list[AttentionClaim]
    problems: list[str] = field(default_factory=list)
    counterexample: Any = None
    seconds: dict[str, float] = field(default_factory=dict)
    construction_rules: dict[str, Any] = field(default_factory=dict)
    construction_document: Any = None  # a user's construction document, embedded in the certificate
    own_transformer: bool = False      # T is the construction's own T_K (no --transformer)
    kernel: str | None = None          # the kernel's outcome (verified_aat.pipeline), None: not asked
    theorem: str = ""                  # the kernel's theorem line, when it accepted
    certificate: dict[str, Any] | None = field(default=None, repr=False)  # only what the kernel accepted
    kernel_report: Any = field(default=None, repr=False)

    @property
    def solver_calls(self) -> int:
        return sum(1 for v in self.verdicts.values() if v.solver != "normal-form")

    def __repr__(self) -> str:
        from ..display import certify_repr
        return certify_repr(self)

    def _repr_html_(self) -> str:
        """Status, counts, problems and any counterexample as a table for Jupyter."""
        from ..display import certify_html
        return certify_html(self)


@dataclass
class Prepared:
    """The compile stage's output: what every later stage reads."""

    circuit: Circuit
    construction: Construction
    compiled: Any
    transformer: Transformer
    encoding: Encoding
    schedule: Schedule
    hints: dict[str, Any]
    structural: tuple[str, ...]
    own_transformer: bool


@dataclass
class Derived:
    """The derive stage's output: the obligations as distinct lemmas, the attention claims, the problems."""

    derivation: Derivation
    attention: list[AttentionClaim]
    hint_verdicts: dict[str, LemmaVerdict]
    problems: list[str]
    seconds: dict[str, float]


def prepare(circuit: Circuit, construction: Construction, depth_bound: int | None = None,
            transformer: Transformer | None = None) -> Prepared:
    """Compile (or take the given transformer), with the schedule and the score hints as the kernel reads them."""
    compiled = construction.compile(circuit, depth_bound)
    # The certificate embeds the transformer as JSON; derive everything from
    # the parsed-back form so that the checker sees exactly the same circuits.
    T = _normalised_transformer(transformer or compiled.transformer)
    if any(head.pooling is Pooling.SOFTMAX for layer in T.layers for head in layer.heads):
        raise InputError("softmax pooling cannot be certified: it is not exact over Q (use the float engine)")
    encoding = compiled.encoding
    if T.coordinates != encoding.coordinates:
        raise InputError(f"the transformer's coordinates {T.coordinates} are not {construction.name}'s "
                         f"{encoding.coordinates}")
    hints = {name: _normalised_hint(hint, T.coordinates) for name, hint in construction.score_hints().items()}
    schedule = compiled.schedule or construction.schedule(circuit, encoding)
    return Prepared(circuit, construction, compiled, T, encoding, schedule, hints,
                    _structural(construction.structural, T, encoding, schedule), transformer is None)


def _structural(declared: Any, T: Transformer, encoding: Encoding, schedule: Schedule) -> tuple[str, ...]:
    """The construction's structural coordinates, then any other that no layer changes (every activation passes
    it through) and that holds no input and no claim: a document that forgot to declare one is still certified
    (red team, round 6). A hint like the rest: the kernel checks it (S4 no input there, S8 no layer changes it)."""
    inputs = {c for _, c, _ in encoding.input_slots}
    unchanged = [c for c, name in enumerate(T.coordinates) if name not in declared and c not in inputs
                 and all(output_reads(layer.activation)[c].identity_of == c for layer in T.layers)]
    if unchanged:
        claimed = {entry[0] for pattern in schedule.patterns for entry in pattern.entries}
        unchanged = [c for c in unchanged if c not in claimed]
    return (*declared, *(T.coordinates[c] for c in unchanged))


def derive(p: Prepared, timeout_ms: int = 10_000, jobs: int = 1,
           progress: Callable[[str, int, int], None] | None = None, shards: Any = None) -> Derived:
    """Structure, base case, read-out, attention (hint lemmas and key joins), structural frame and the
    per-position obligations, deduplicated by their canonical text (on ``shards``' workers when given:
    ``verified_aat/shards.py``)."""
    clock = time.perf_counter()
    circuit, T, encoding, schedule = p.circuit, p.transformer, p.encoding, p.schedule
    problems: list[str] = []
    derivation = Derivation()
    rows = encoding.rows  # exact, ints where integral (the encoders' contract; see constructions/encoding.py)
    struct_idx = [T.coordinates.index(c) for c in p.structural]
    derivation.kinds["structure"] += _check_structure(circuit, encoding, problems)
    derivation.kinds["base"] += _check_base(circuit, encoding, schedule, problems)
    derivation.kinds["schedule"] += _check_readout(circuit, encoding, schedule, T.n_layers, problems)
    functions = layer_functions(T)
    argmax: dict[tuple[int, int], ArgmaxSets] = {}
    attention: list[AttentionClaim] = []
    hint_verdicts: dict[str, LemmaVerdict] = {}
    by_score: dict[Any, tuple[str, str | None, ArgmaxSets | None]] = {}
    columns: dict[int, Any] = {}
    for fn in functions:
        for h, head in enumerate(fn.layer.heads):
            key = (head.score, head.name)
            if progress:
                progress("attention", 1, sum(len(f.layer.heads) for f in functions))
            if key not in by_score:
                by_score[key] = _attention(head, p.hints.get(head.name), T, rows, struct_idx, derivation,
                                           hint_verdicts, problems, timeout_ms, columns)
            method, lemma_id, sets = by_score[key]
            if lemma_id is not None:
                derivation.lemmas[lemma_id].uses += 1  # one use per layer function and head, as the kernel counts
            derivation.kinds["attention"] += len(rows)
            if sets is None:
                continue
            argmax[(fn.number, h)] = sets
            attention.append(AttentionClaim(fn.number, head.name, fn.layers, method, lemma_id, sets))
    seconds = {"attention": time.perf_counter() - clock}
    if not any(problem.startswith("attention") for problem in problems):  # the frame needs every argmax set
        derivation.kinds["frame:structure"] += _check_structural_frame(functions, T, rows, struct_idx, argmax,
                                                                        problems, derivation)
        derive_positions(circuit, T, rows, schedule, p.structural, functions, argmax, encoding, derivation, progress,
                         shards)
    seconds["derive"] = time.perf_counter() - clock - seconds["attention"]
    return Derived(derivation, attention, hint_verdicts, problems, seconds)


def decide(p: Prepared, d: Derived, timeout_ms: int = 10_000, jobs: int = 1,
           progress: Callable[[str, int, int], None] | None = None) -> CertifyResult:
    """Discharge every lemma (normal forms, then the solvers): *proved* only when all are; else *unknown*
    (the refutation stage, ``refutation.search.refute``, may turn it into *refuted*)."""
    t0 = time.perf_counter()
    derivation, problems = d.derivation, list(d.problems)
    pending = [lemma for lemma in derivation.lemmas.values() if lemma.digest not in d.hint_verdicts]
    tick = (lambda: progress("discharge", 1, len(pending))) if progress else None
    results = discharge_all([l.text for l in pending], timeout_ms, jobs, tick)
    verdicts = dict(d.hint_verdicts)
    verdicts.update({l.digest: v for l, v in zip(pending, results)})
    seconds = {**d.seconds, "discharge": time.perf_counter() - t0}
    for lemma in derivation.lemmas.values():
        verdict = verdicts[lemma.digest]
        if verdict.status == FAILED:
            problems.append(f"obligation {lemma.kind} failed (layer {lemma.first_use[0]}, position "
                            f"{lemma.first_use[1]}, lemma {lemma.digest[:12]})")
    for lemma in derivation.lemmas.values():
        if verdicts[lemma.digest].status == UNKNOWN:
            problems.append(f"obligation {lemma.kind} unknown: {verdicts[lemma.digest].reason or 'timeout'} "
                            f"(lemma {lemma.digest[:12]})")
    problems.extend(derivation.failures)
    problems.extend(derivation.unsupported)
    c = p.construction
    return CertifyResult(PROVED_STATUS if not problems else UNKNOWN_STATUS, p.circuit, p.transformer, p.encoding,
                         c.name, p.compiled.depth_bound, p.schedule, p.structural, p.hints, derivation, verdicts,
                         d.attention, problems, None, seconds, c.schedule_rules(), embedded_document(c),
                         p.own_transformer)


@gc_paused
def certify(circuit: Circuit, construction: Construction, depth_bound: int | None = None,
            transformer: Transformer | None = None, timeout_ms: int = 10_000, jobs: int = 1,
            refute: bool = True, progress: Callable[[str, int, int], None] | None = None,
            shards: Any = None) -> CertifyResult:
    """The engine's stages in order — prepare, derive, decide, and on failure the refutation search — with no
    kernel check (``verified_aat.pipeline.certify`` ends with the kernel's verdict)."""
    clock = time.perf_counter()
    if progress:
        progress("compile", 0, 1)
    prepared = prepare(circuit, construction, depth_bound, transformer)
    if progress:
        progress("compile", 1, 1)
    result = decide(prepared, derive(prepared, timeout_ms, jobs, progress, shards), timeout_ms, jobs, progress)
    if result.status != PROVED_STATUS and refute:
        from ..refutation.search import refute as refute_stage
        refute_stage(result, timeout_ms)
    result.seconds["total"] = time.perf_counter() - clock
    return result


def _normalised_hint(hint: Any, coordinates: tuple[str, ...]) -> Any:
    """The hint as the checker will read it back from the certificate's text."""
    from dataclasses import replace
    from ..circuits.text_format import parse_circuit_text, print_circuit

    names = [f"v.{c}" for c in coordinates]

    def again(c: Circuit) -> Circuit:
        return parse_circuit_text(print_circuit(c, implicit_inputs=True), implicit_inputs=names)

    return replace(hint, row_key=again(hint.row_key), col_key=again(hint.col_key), col_penalty=again(hint.col_penalty))


def _normalised_transformer(transformer: Transformer) -> Transformer:
    from ..transformer.spec import transformer_from_json, transformer_to_json

    return transformer_from_json(transformer_to_json(transformer))


def _attention(head, hint, T, rows, struct_idx, derivation, hint_verdicts, problems, timeout_ms, columns):
    """Argmax sets of one score: by a proven key decomposition, else brute force (``columns``: the rows'
    coordinates the key joins read, kept across heads)."""
    d = T.dimension
    if hint is not None and hint_reads_structure_only(hint, struct_idx):
        # facts must be structural (so they hold at every layer) and hold in the encoding
        facts_hold = all(T.coordinates.index(c) in struct_idx and all(row[T.coordinates.index(c)] == v for row in rows)
                         for c, v in hint.facts)
        text = hint_lemma(head.score, hint, T.coordinates)
        lemma_id = digest(text)
        if lemma_id not in hint_verdicts:
            hint_verdicts[lemma_id] = discharge(text, timeout_ms)
            derivation.lemmas[lemma_id] = Lemma(lemma_id, text, "attention:key-decomposition", 0, (0, 0))
        if facts_hold and hint_verdicts[lemma_id].status == PROVED:
            return "key-join", lemma_id, join_argmax(rows, hint, columns)
        # A failed hint is not a failed construction: fall back to the real scores.
        del derivation.lemmas[lemma_id]
        del hint_verdicts[lemma_id]
    if score_reads(head.score, d) <= set(struct_idx):
        sets = brute_force_argmax(rows, head.score)
        if sets is not None:
            return "brute-force", None, sets
        problems.append(f"attention: head {head.name!r} has no proven key decomposition and the sequence is too "
                        f"long for brute force ({len(rows)} positions)")
    else:
        problems.append(f"attention: head {head.name!r} reads value coordinates; argmax sets depend on the input "
                        f"(unsupported)")
    return "none", None, None


def _check_structure(circuit: Circuit, encoding: Encoding, problems: list[str]) -> int:
    """No gate has two positions and every edge occurrence has one position: the edge positions'
    (source, gate, slot) are exactly the circuit's edges, each once (as arrays: 10⁶ roles)."""
    roles, size = encoding.roles, circuit.size
    kinds = list(map(attrgetter("kind"), roles))
    gate = np.fromiter(map(attrgetter("gate"), roles), np.int64, len(roles))
    own = gate[np.fromiter(map("gate".__eq__, kinds), bool, len(kinds))]
    if own.size and (own.min() < 0 or own.max() >= size or np.bincount(own).max() > 1):
        problems.append("structure: a gate has more than one position")
    edges = list(compress(roles, map("edge".__eq__, kinds)))
    arity = np.fromiter(map(len, map(attrgetter("args"), circuit.gates)), np.int64, size)
    start = np.concatenate([[0], np.cumsum(arity)])
    try:
        target = np.fromiter(map(attrgetter("gate"), edges), np.int64, len(edges))
        source = np.fromiter(map(attrgetter("source"), edges), np.int64, len(edges))
        slot = np.fromiter(map(attrgetter("slot"), edges), np.int64, len(edges))
    except TypeError:  # an edge without a source or slot
        target = source = slot = np.full(1, -1, np.int64)
    args = np.fromiter(chain.from_iterable(map(attrgetter("args"), circuit.gates)), np.int64, int(start[-1]))
    inside = (target >= 0) & (target < size) & (slot >= 0)
    inside[inside] = slot[inside] < arity[target[inside]]
    edge = start[np.where(inside, target, 0)] + slot
    if len(edges) != len(args) or not inside.all() or (np.bincount(edge, minlength=len(args)) != 1).any() \
            or (args[edge] != source).any():
        problems.append("structure: the encoding's edge positions differ from the circuit's edges")
    return len(encoding.roles)


def _check_base(circuit: Circuit, encoding: Encoding, schedule: Schedule, problems: list[str]) -> int:
    """Claims settled at layer 0 must hold in enc(C, x) itself."""
    slots = {(p, c): i for p, c, i in encoding.input_slots}
    count, patterns = 0, schedule.patterns
    at = np.flatnonzero(np.array([p.settle <= 0 for p in patterns] + [False])[schedule.number])  # -1 reads False
    for p, number, own, source in zip(at.tolist(), *(a[at].tolist() for a in (schedule.number, schedule.gate,
                                                                                schedule.source))):
        for c, names_source, power, settle in patterns[number].entries:
            if settle > 0:
                continue
            count += 1
            gate = circuit.gates[source if names_source else own]
            ok = (gate.kind is Kind.INPUT and power == 1 and slots.get((p, c)) == gate.index) or \
                 (gate.kind is Kind.CONST and (p, c) not in slots and
                  encoding.rows[p][c] == gate.value ** power)  # type: ignore[operator]
            if not ok:
                problems.append(f"base: position {p} coordinate {encoding.coordinates[c]} does not hold its claim "
                                f"in the encoding")
    return count


def _check_readout(circuit: Circuit, encoding: Encoding, schedule: Schedule, n_layers: int,
                   problems: list[str]) -> int:
    for index, (out, (p, c)) in enumerate(zip(circuit.outputs, encoding.readout)):
        claim = schedule.claims[p]
        term, settle = (claim.term(c) if claim else None) or (None, 0)
        if term is None or term.gate != out or term.power != 1:
            problems.append(f"schedule: output {index} is read where no claim gives its value")
        elif settle > n_layers:
            problems.append(f"schedule: output {index} (gate '{circuit.gate_name(out)}') is right only after layer "
                            f"{settle}, but the transformer has {plural(n_layers, 'layer')}")
    return len(circuit.outputs)


def _check_structural_frame(functions: list[LayerFunction], T: Transformer, rows, struct_idx, argmax,
                            problems: list[str], derivation: Derivation) -> int:
    """Structural coordinates never change, so argmax sets can be reused across layers."""
    count = 0
    d = T.dimension
    for fn in functions:
        act = fn.layer.activation
        infos = output_reads(act)
        for c in struct_idx:
            count += len(rows)
            if infos[c].identity_of == c:
                continue
            needed = infos[c].inputs
            if any((k % d) not in struct_idx for k in needed):
                problems.append(f"frame: structural coordinate {T.coordinates[c]} is computed from value coordinates "
                                f"in layer {fn.layers[0]} (unsupported)")
                continue
            view = StructureView(T, rows, [T.coordinates[i] for i in struct_idx], argmax)
            for p, row in enumerate(rows):
                known = view.structural_inputs(fn, p, needed)
                value = concrete_outputs(act, [c], known)[0]
                if value != row[c]:
                    problems.append(f"frame: layer {fn.layers[0]} changes structural coordinate {T.coordinates[c]} "
                                    f"at position {p} ({row[c]} → {value})")
                    break
    return count
