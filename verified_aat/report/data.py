"""What a report shows, gathered from any of its sources into one frozen value.

Sources: a :class:`~verified_aat.symbolic.certify.CertifyResult` (proved, refuted or unknown),
a certificate document (optionally judged by the trusted kernel), or the JSON object that
``refute --json`` prints (it names the model file and holds the refuting circuit's text).
The page itself (``html.py``) only formats a :class:`ReportData`; it computes nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from ..circuits.ir import Circuit, Domain, Gate, Kind
from ..circuits.rationals import read_json_rational
from ..constructions.base import Construction
from ..constructions.encoding import Encoding
from ..errors import InputError
from ..transformer.key_join import ArgmaxSets
from ..transformer.model import Transformer
from .diff import TransformerDiff, transformer_diff
from .fields import count, counts, listing, mapping, phase_seconds, stated_status
from .names import net_names
from ..wording import plural


@dataclass(frozen=True)
class HeadSets:
    """The argmax sets of one head of one layer function, and the layers that use it."""

    function: int
    head: str
    pooling: str
    layers: tuple[int, ...]
    method: str
    sets: ArgmaxSets | None  # None: not computed (say why in ``note``)
    note: str = ""
    ignored: tuple[bool, ...] | None = None  # per position: the activation provably ignores this head there
    ignored_note: str = ""  # why ``ignored`` is None (see report/relevance.py)


@dataclass(frozen=True)
class LemmaView:
    """One distinct lemma as the certificate stores it."""

    id: str
    kind: str
    uses: int
    engine: str
    smt2: str
    status: str = "proved"  # the engine's verdict: proved, failed or unknown (a certificate holds proved ones only)


@dataclass(frozen=True)
class ReportData:
    """Everything one report page shows."""

    title: str
    status: str                        # proved / refuted / unknown / accepted / rejected / not-checked
    verdict: tuple[str, ...]           # lines explaining the status (theorem, problems, rejections)
    construction: str
    depth_bound: int | None
    circuit: Circuit
    transformer: Transformer | None
    encoding: Encoding | None
    attention: tuple[HeadSets, ...] = ()
    obligations: tuple[tuple[str, int], ...] = ()
    lemmas: tuple[LemmaView, ...] = ()
    counterexample: dict[str, Any] | None = None   # the ``--json`` form (cli/json_output.counterexample_json)
    diff: TransformerDiff | None = None
    source: str = ""
    timings: tuple[tuple[str, float], ...] = field(default=())
    names: tuple[str, ...] = ()  # one name per gate for the whole page (report/names.py)
    construction_document: Any = None  # a user's construction document (certify -c FILE.json, its certificates)
    naming: str = ""             # how they were chosen, when not the circuit's own


def from_certify_result(result: Any, transformer_path: str | None = None, source: str = "certify") -> ReportData:
    """A report of a ``certify`` run, whatever its outcome (an edited transformer is diffed when its path is given)."""
    from ..json_envelope import counterexample_json
    from ..constructions.registry import construction_of_record

    construction = construction_of_record(result.construction, result.construction_document)
    from ..symbolic.obligations import layer_functions
    from .relevance import head_relevance

    relevance = head_relevance(result.transformer, result.encoding, construction.structural,
                               layer_functions(result.transformer))
    attention = tuple(HeadSets(c.function, c.head, _pooling(result.transformer, c.head), c.layers, c.method, c.sets,
                               "", relevance.ignored.get((c.function, c.head)), relevance.note)
                      for c in result.attention)
    def view(lemma: Any) -> LemmaView:
        v = result.verdicts.get(lemma.digest)
        return LemmaView(lemma.digest, lemma.kind, lemma.uses, v.solver if v else "none", lemma.text,
                         str(v.status) if v else "not run")

    lemmas = tuple(view(l) for l in sorted(result.derivation.lemmas.values(), key=lambda l: l.digest))
    verdict = {"proved": ("every obligation was discharged by the engine; the certificate is re-checked by "
                          "`verified-aat check` (the trusted kernel)",),
               "refuted": ("a counterexample was found and replayed in exact rational arithmetic",),
               }.get(result.status, ("not proved: " + "; ".join(result.problems[:5]),)) \
        + tuple(f"problem: {p}" for p in result.problems[:20] if result.status != "unknown")
    diff = _diff(transformer_path, construction, result.depth_bound)
    from ..circuits.link_section import netlist_section
    names, naming = net_names(result.circuit, netlist_section(result.circuit))
    return ReportData(
        title=f"{result.construction} on {result.circuit.name}", status=result.status, verdict=verdict,
        construction=result.construction, depth_bound=result.depth_bound, circuit=result.circuit,
        construction_document=result.construction_document,
        transformer=result.transformer, encoding=result.encoding, attention=attention,
        obligations=tuple(sorted((k, v) for k, v in result.derivation.kinds.items() if v)), lemmas=lemmas,
        counterexample=counterexample_json(result.counterexample) if result.status == "refuted" else None,
        diff=diff, source=source, timings=tuple(sorted(result.seconds.items())), names=names, naming=naming)


def from_certificate(doc: dict[str, Any], kernel_report: Any = None, source: str = "certificate") -> ReportData:
    """A report of a certificate; ``kernel_report`` (a kernel Report) supplies the verdict when given."""
    from ..certificates.document import is_constructions_own
    from ..constructions.registry import CONSTRUCTIONS, construction_of_record

    name = doc.get("construction")
    embedded = doc.get("construction_document")
    construction = CONSTRUCTIONS.get(name) if isinstance(name, str) and embedded is None else None
    if embedded is not None and isinstance(name, str):
        construction = construction_of_record(name, embedded)
    if construction is None or not isinstance(doc.get("circuit"), dict):
        raise InputError("not a certificate of a known construction (no 'construction' or 'circuit')", source)
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    depth = info.get("depth_bound") if type(info.get("depth_bound")) is int else None
    circuit = circuit_from_structure(doc["circuit"], str(info.get("circuit") or "circuit"), source)
    own = is_constructions_own(doc)
    transformer = construction.transformer(depth) if own and depth else transformer_from_form(doc.get("transformer"))
    encoding = construction.encode(circuit)
    attention = argmax_sets(transformer, encoding, construction) if transformer is not None else ()
    if kernel_report is not None:
        status = kernel_report.outcome
        verdict = ((kernel_report.theorem,) if kernel_report.accepted else ()) + tuple(kernel_report.reasons)
    else:
        status = stated_status(doc)
        verdict = ("the certificate says so; not re-checked here (run `verified-aat check` for the kernel's verdict)",)
    lemmas = tuple(LemmaView(str(l.get("id")), str(l.get("kind")), count(l.get("uses")), str(l.get("engine")),
                             str(l.get("smt2"))) for l in listing(doc.get("lemmas")) if type(l) is dict)
    obligations = counts(mapping(doc.get("derived")).get("obligations"))
    names, naming = net_names(circuit, doc.get("netlist"))
    return ReportData(
        title=f"{name} on {circuit.name}", status=status, verdict=verdict, construction=name, depth_bound=depth,
        construction_document=embedded,
        circuit=circuit, transformer=transformer, encoding=encoding, attention=attention, obligations=obligations,
        lemmas=lemmas, source=source, timings=phase_seconds(mapping(doc.get("timings")).get("phases")),
        names=names, naming=naming)


def from_refute_json(doc: dict[str, Any], source: str = "refute --json", base_dir: str = ".",
                     file: str | None = None, line_of: Any = None) -> ReportData:
    """A report of the object ``refute --json`` printed: it names the model file and holds the circuit text.

    ``doc`` is checked against :mod:`.refute_schema` first; ``file`` (default ``source``) and ``line_of``
    (a JSON path's line, e.g. ``Locator.line``) locate the one error a malformed result gets.  The model
    must be a regular file: it is stat'ed, never opened otherwise."""
    from ..circuits.text_format import parse_circuit_text
    from ..constructions.registry import resolve_construction
    from ..refutation.refute import intended_depth
    from ..transformer.spec import load_transformer
    from .refute_schema import located, validate_refute_json

    where = file or source
    validate_refute_json(doc, where, line_of)
    model = doc["model"]
    path = model if os.path.isabs(model) else os.path.join(base_dir, model)
    if not os.path.exists(path):
        path = model  # relative to the working directory, as refute read it
    if model == "-":  # `refute - --report R`: the transformer this command read from standard input
        from ..files import stdin_read_as
        if not stdin_read_as("transformer"):
            raise located(("model",), "the model was read from refute's standard input ('-'), which is gone: run "
                          "refute with the model as a file to report on it", where, line_of)
    else:
        _regular_model(path, where, line_of)
    construction = resolve_construction(doc["construction"])
    transformer = load_transformer(path)
    try:
        circuit = parse_circuit_text(doc["circuit"]["text"], file=where)
    except InputError as exc:
        at = f" (line {exc.line} of the circuit text)" if exc.line is not None else ""
        raise located(("circuit", "text"), f"{exc.message}{at}", where, line_of) from None
    depth = intended_depth(construction, transformer)
    encoding = construction.encode(circuit)
    cex = doc["counterexample"]
    for k, step in [*enumerate(cex["steps"]), ("first_mismatch", cex["first_mismatch"])]:
        if step is not None and step["position"] >= encoding.length:
            at = ("counterexample", "steps", k) if isinstance(k, int) else ("counterexample", k)
            raise located(at + ("position",), f"position {step['position']} is past the encoding's "
                          f"{plural(encoding.length, 'position')}", where, line_of)
    reasons = tuple(doc.get("reasons") or [])
    if (first := doc["circuit"].get("shrunk_from")) is not None:  # refute shrank the candidate it first found
        edges = f"{plural(first['edges'], 'edge')}, " if "edges" in first else ""
        reasons += (f"the circuit is the candidate first found ({plural(first['gates'], 'gate')}, {edges}"
                    f"{plural(first['outputs'], 'output')}) shrunk, each step replayed",)
    return ReportData(
        title=f"{os.path.basename(model)} ({construction.name}) on {circuit.name}", status=doc["status"],
        verdict=("a counterexample was found and replayed in exact rational arithmetic",) + reasons,
        construction=construction.name, depth_bound=depth, circuit=circuit, transformer=transformer,
        encoding=encoding, attention=argmax_sets(transformer, encoding, construction),
        counterexample=cex, diff=_diff(path, construction, depth), source=source, names=net_names(circuit)[0])


def _regular_model(path: str, file: str, line_of: Any) -> None:
    """Refuse a model that is missing or not a regular file (a FIFO, /dev/zero) before anything reads it."""
    import stat

    from .refute_schema import located

    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise located(("model",), f"cannot read the model {path}: {exc.strerror or exc}", file, line_of) from None
    if not stat.S_ISREG(mode):
        raise located(("model",), f"the model {path} is not a regular file", file, line_of)


def from_refutation(refutation: Any, model_path: str, construction: str = "gate-edge") -> ReportData:
    """A report of :func:`verified_aat.refutation.refute.refute`'s result for the model file ``model_path``."""
    from ..json_envelope import counterexample_json, envelope

    if refutation.counterexample is None:
        raise InputError("no counterexample was found: nothing to report (this is not a proof)", model_path)
    doc = envelope("refute", "refuted", model=model_path, construction=construction,
                   circuit=refutation.circuit_json(),
                   counterexample=counterexample_json(refutation.counterexample))
    return from_refute_json(doc, "refute")


BRUTE_FORCE_WORK = 10**8
"""Score gates the page evaluates on all pairs, for all heads together (the kernel's bound, attention.WORK): each head
had its own 1,500² pairs, so 640 heads of one small score on a 58 KB certificate kept ``report`` busy for 15 minutes
(red team, round 12)."""


def score_size(score: Any) -> int:
    """Gates of a circuit score, entries of a bilinear one: the cost of one evaluation."""
    return len(score.circuit.gates) if hasattr(score, "circuit") else max(1, len(score.entries()))


def argmax_sets(transformer: Transformer, encoding: Encoding, construction: Construction) -> tuple[HeadSets, ...]:
    """Argmax sets per layer function and head, for display: by the construction's key join where the head's
    score is exactly its T_K's (whose key lemma certify proves), else on all pairs when the score reads
    structural coordinates only and the sequence is short, else not shown."""
    from ..certificates.kernel_form import structure_key
    from ..symbolic.attention import brute_force_argmax, score_reads
    from ..symbolic.obligations import layer_functions
    from ..transformer.key_join import facts_hold, join_argmax
    from ..transformer.model import CircuitScore
    from .relevance import head_relevance

    def key(score: Any) -> Any:
        return structure_key(score.circuit) if isinstance(score, CircuitScore) else score.matrix

    own = {h.name: key(h.score) for layer in construction.transformer(1).layers for h in layer.heads}
    hints = construction.score_hints()
    structural = {transformer.coordinates.index(c) for c in construction.structural if c in transformer.coordinates}
    rows = encoding.rows
    relevance = head_relevance(transformer, encoding, construction.structural, layer_functions(transformer))
    out: list[HeadSets] = []
    cache: dict[Any, tuple[str, ArgmaxSets | None, str]] = {}  # by (head name, score)
    all_pairs: dict[Any, tuple[str, ArgmaxSets | None, str]] = {}  # by score (a head named "all pairs" shared its key)
    left = BRUTE_FORCE_WORK
    for fn in layer_functions(transformer):
        for head in fn.layer.heads:
            k = (head.name, key(head.score))
            if k not in cache:
                hint = hints.get(head.name)
                if own.get(head.name) == k[1] and hint is not None and facts_hold(rows, hint, transformer.coordinates):
                    cache[k] = ("key-join", join_argmax(rows, hint), "")
                elif score_reads(head.score, transformer.dimension) <= structural:
                    if k[1] not in all_pairs:  # the sets are the score's, whatever the head's name
                        left -= len(rows) ** 2 * score_size(head.score)
                        sets = brute_force_argmax(rows, head.score) if left >= 0 else None
                        all_pairs[k[1]] = ("all pairs", sets, "" if sets else "sequence too long to score all "
                                           "pairs" if left >= 0 else "not shown: the page's budget of "
                                           f"{BRUTE_FORCE_WORK:,} score gates on all pairs is spent")
                    cache[k] = all_pairs[k[1]]
                else:
                    cache[k] = ("none", None, "the score reads value coordinates: the sets depend on the input")
            method, sets, note = cache[k]
            out.append(HeadSets(fn.number, head.name, head.pooling.value, fn.layers, method, sets, note,
                                relevance.ignored.get((fn.number, head.name)), relevance.note))
    return tuple(out)


def circuit_from_structure(structure: dict[str, Any], name: str, source: str) -> Circuit:
    """A circuit from a certificate's canonical structure (``[op, args]`` / ``["input", i]`` / ``["const", q]``)."""
    gates: list[Gate] = []
    try:
        for entry in structure["gates"]:
            op = entry[0]
            if op == "input":
                gates.append(Gate(Kind.INPUT, index=int(entry[1])))
            elif op == "const":
                gates.append(Gate(Kind.CONST, value=read_json_rational(entry[1])))
            else:
                gates.append(Gate(Kind(op), tuple(int(a) for a in entry[1])))
        domain = Domain(structure.get("domain", "rationals"))
        return Circuit(tuple(gates), tuple(int(o) for o in structure["outputs"]), name, domain)
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise InputError(f"$.circuit: not a circuit structure ({exc})", source) from None


def transformer_from_form(form: Any) -> Transformer | None:
    """The transformer of a certificate's kernel form (coordinates, shared functions, layers), or None if
    it is not one (the report then shows no layout; the kernel, not the report, judges the form)."""
    from fractions import Fraction

    from ..transformer.model import BilinearScore, CircuitScore, Head, Layer, Pooling

    try:
        coords = tuple(str(c) for c in form["coordinates"])
        d = len(coords)
        functions = [circuit_from_structure({**f, "domain": "rationals"}, f"f{i}", "certificate")
                     for i, f in enumerate(form["functions"])]
        layers = []
        for entry in form["layers"]:
            heads = []
            for h in entry["heads"]:
                score: Any
                if isinstance(h["score"], dict):
                    matrix = [[Fraction(0)] * d for _ in range(d)]
                    for r, c, q in h["score"]["bilinear"]:
                        matrix[int(r)][int(c)] = read_json_rational(q)
                    score = BilinearScore(tuple(tuple(row) for row in matrix))
                else:
                    score = CircuitScore(functions[int(h["score"])])
                heads.append(Head(str(h["name"]), score, Pooling(h["pooling"])))
            layers.append(Layer(tuple(heads), functions[int(entry["activation"])]))
        return Transformer(coords, tuple(layers), "certificate")
    except (KeyError, IndexError, TypeError, ValueError, InputError):
        return None


def _pooling(transformer: Transformer, head: str) -> str:
    return next((h.pooling.value for layer in transformer.layers for h in layer.heads if h.name == head), "?")


def _diff(path: str | None, construction: Construction, depth: int | None) -> TransformerDiff | None:
    if not path or path == "-" or depth is None:
        return None
    from ..files import read_input
    try:
        text = read_input(path, "transformer").decode("utf-8")
    except (InputError, UnicodeDecodeError):
        return None
    return transformer_diff(text, construction.transformer(depth), os.path.basename(path))


def load_json_source(path: str) -> Any:
    """A JSON file's content (for ``report``'s input detection); InputError if unreadable."""
    from ..files import read_input
    raw = read_input(path, "report input")
    if raw[:2] == b"\x1f\x8b":
        return None  # gzip: a certificate; the kernel's reader handles it
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not JSON ({exc})", path) from None
