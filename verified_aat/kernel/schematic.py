"""The kernel's check of a *schematic* certificate: one proof for every circuit of depth ≤ K.

A schematic certificate names a construction and embeds a transformer; the kernel trusts nothing
else in it.  It re-derives every lemma from the transformer's own circuits and its own statement
of the construction's encoding (``layouts.py`` through ``schematic_lemmas.py``), requires the
certificate's lemma list to be exactly its own, and runs its solver front end on its own texts.
Each check names its step P1–P8 of docs/soundness.md ("Schematic certificates").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .checks import Check, judge, run_checks, sha256_json
from .checks import _solvers as solvers_check
from .data import Gate, Transformer, as_dict, as_int, as_list, load_circuit, load_transformer, need
from .layouts import LAYOUTS, GateEdgeLayout
from .obligations import Derivation, Function, layer_functions
from .report import Options, Report
from .schematic_derive import derive
from .schematic_edges import (EDGE_SCHEMES, EdgeScheme, derive_edges, edge_encoding_problems,
                               layout_problems)
from .schematic_lemmas import SCHEMES, SETS, Scheme, Sym, add_code_problems

SCHEMATIC: dict[str, Scheme | EdgeScheme] = {**SCHEMES, **EDGE_SCHEMES}  # every construction with a schematic proof

SCHEMATIC_FORMAT = "verified-aat/schematic-certificate"
SCHEMATIC_VERSION = 1
KEYS = {"format", "version", "construction", "depth_bound", "transformer", "hashes", "lemmas", "result"}
OPTIONAL = {"info", "timings", "hints"}
MAX_DEPTH_BOUND = 50_000


@dataclass
class SchematicContext:
    doc: dict[str, Any]
    options: Options
    scheme: Scheme | EdgeScheme | None = None
    transformer: Transformer | None = None
    depth_bound: int | None = None  # None: every K
    phases: dict[str, list[Function]] = field(default_factory=dict)
    sets: dict[str, str] = field(default_factory=dict)  # head name → intended set (a hint, proved by P6)
    derivation: Derivation = field(default_factory=Derivation)
    unchecked: list[str] = field(default_factory=list)
    solver_runs: int = 0
    transformer_hash: str = ""


def _document(ctx: SchematicContext) -> list[str]:
    doc = as_dict(ctx.doc, "$", KEYS, OPTIONAL)
    need(type(doc["version"]) is int and doc["version"] == SCHEMATIC_VERSION, "$.version",
         f"this kernel checks schematic version {SCHEMATIC_VERSION}")
    result = as_dict(doc["result"], "$.result", {"status"})
    need(result["status"] == "proved", "$.result.status", f"the certificate claims {result['status']!r}"[:120])
    bound = doc["depth_bound"]
    ctx.depth_bound = None if bound is None else as_int(bound, "$.depth_bound", 1, MAX_DEPTH_BOUND)
    return []


def _transformer(ctx: SchematicContext) -> list[str]:
    ctx.transformer = load_transformer(ctx.doc["transformer"])
    ctx.transformer_hash = sha256_json(ctx.doc["transformer"])
    given = as_dict(ctx.doc["hashes"], "$.hashes", {"transformer"})["transformer"]
    return [] if given == ctx.transformer_hash else [
        f"the embedded transformer has hash {ctx.transformer_hash[:16]}…, the certificate says {str(given)[:16]}…"]


def _scheme(ctx: SchematicContext) -> list[str]:
    name = ctx.doc["construction"]
    scheme = SCHEMATIC.get(name) if type(name) is str else None
    if scheme is None:
        return [f"the kernel states no schematic proof for construction {str(name)[:60]!r}"]
    T = ctx.transformer
    assert T is not None
    coordinates = LAYOUTS[scheme.layout].coordinates
    if T.coordinates != coordinates:
        return [f"the transformer's coordinates {list(T.coordinates)} are not {name}'s {list(coordinates)}"]
    softmax = [n for n, layer in enumerate(T.layers, 1) for h in layer.heads if h.pooling == "softmax"]
    if softmax:
        return [f"layer {softmax[0]} pools by softmax, which is not exact"]
    ctx.scheme = scheme
    hints = as_dict(ctx.doc.get("hints", {"sets": {}}), "$.hints", {"sets"})
    sets = as_dict(hints["sets"], "$.hints.sets", set(), {h.name for layer in T.layers for h in layer.heads})
    allowed = SETS if isinstance(scheme, EdgeScheme) or scheme.slots is not None else ("in-edges",)
    for head, chosen in sets.items():
        need(chosen in allowed, f"$.hints.sets.{head}", f"an intended set is one of {list(allowed)}")
    ctx.sets = dict(sets)
    return layout_problems(scheme) if isinstance(scheme, EdgeScheme) else add_code_problems(scheme)


def _encoding(ctx: SchematicContext) -> list[str]:
    """P3: the layout's base case and read-out, on its own rows: a const gate's row holds its constant in
    val (for a symbolic constant), input i is placed in val of its gate, outputs are read at val of their
    gate, and in-edges follow their target in slot order (what leftmost/rightmost pooling picks)."""
    if isinstance(ctx.scheme, EdgeScheme):
        return edge_encoding_problems(ctx.scheme)
    layout = LAYOUTS[ctx.scheme.layout]  # type: ignore[union-attr]
    assert isinstance(layout, GateEdgeLayout)
    val = layout.coordinates.index("val")
    if layout.gate_row(Sym("g"), Gate("const", (), Sym("c")))[val].text != "c":  # type: ignore[union-attr]
        return ["a const gate's row does not hold its constant in val"]
    probe = load_circuit({"gates": [["input", 0], ["const", "5/7"], ["input", 1], ["add", [2, 0]],
                                    ["mul", [3, 3]]], "outputs": [4, 0, 3]}, "probe")  # in every layout's class
    enc = layout.build(probe)
    problems = []
    if enc.input_slots != ((0, val, 0), (2, val, 1)) or enc.rows[1][val] != probe.gates[1].value:
        problems.append("inputs are not placed in val of their gates")
    if enc.readout != ((4, val), (0, val), (3, val)):
        problems.append("outputs are not read at val of their gates")
    edges = [(r.gate, r.slot, r.source) for r in enc.roles if r.kind == "edge"]
    if edges != [(3, 0, 2), (3, 1, 0), (4, 0, 3), (4, 1, 3)] or enc.roles[:5] != tuple(
            r for r in enc.roles if r.kind == "gate"):
        problems.append("positions are not gates in id order, then edges in (target, slot) order")
    return problems


def _layers(ctx: SchematicContext) -> list[str]:
    """P4: layer ℓ has phase fetch when ℓ is odd, gather when even; 2K layers (every K: one function per phase)."""
    T = ctx.transformer
    assert T is not None and ctx.scheme is not None
    period = len(ctx.scheme.phases)
    functions = layer_functions(T)
    by_layer = {n: fn for fn in functions for n in fn.layers}
    for number in sorted(by_layer):
        phase = ctx.scheme.phases[(number - 1) % period]
        if by_layer[number] not in ctx.phases.setdefault(phase, []):
            ctx.phases[phase].append(by_layer[number])
    if ctx.depth_bound is None:
        if len(T.layers) < period + _extra(ctx.scheme) or len(T.layers) % period or any(
                len(f) != 1 for f in ctx.phases.values()):
            return [f"a proof for every K needs T to repeat one layer per phase; it has {len(T.layers)} layers and "
                    f"{ {p: len(f) for p, f in ctx.phases.items()} } functions per phase"]
        return []
    wanted = period * ctx.depth_bound + _extra(ctx.scheme)
    if len(T.layers) != wanted:
        return [f"depth bound {ctx.depth_bound} needs {wanted} layers, T has {len(T.layers)}"]
    return []


def _extra(scheme: Scheme | EdgeScheme) -> int:
    return scheme.extra_layers if isinstance(scheme, EdgeScheme) else 0


def _derive(ctx: SchematicContext) -> Derivation:
    if isinstance(ctx.scheme, EdgeScheme):
        return derive_edges(ctx.scheme, ctx.phases.get("step", []), ctx.sets)
    return derive(ctx.scheme, ctx.phases, ctx.sets)  # type: ignore[arg-type]


def _lemmas(ctx: SchematicContext) -> list[str]:
    ctx.derivation = _derive(ctx)
    listed: dict[str, dict] = {}
    for k, raw in enumerate(as_list(ctx.doc["lemmas"], "$.lemmas", 100_000)):
        entry = as_dict(raw, f"$.lemmas[{k}]", {"id", "kind", "uses", "smt2"})
        need(type(entry["id"]) is str and entry["id"] not in listed, f"$.lemmas[{k}].id", "ids must be distinct strings")
        listed[entry["id"]] = entry
    problems = []
    for digest, lemma in ctx.derivation.lemmas.items():
        entry = listed.pop(digest, None)
        if entry is None:
            problems.append(f"the kernel's {lemma.kind} lemma {digest[:12]} ({lemma.where[:80]}) is missing")
        elif type(entry["uses"]) is not int or (entry["kind"], entry["uses"], entry["smt2"]) != (
                lemma.kind, lemma.uses, lemma.text):
            problems.append(f"lemma {digest[:12]}: the certificate's kind, use count or text differs from the kernel's")
    problems += [f"lemma {str(d)[:12]} is not a lemma the kernel derives" for d in listed]
    return problems[:4]


# the table, in the form of checks.py (the solver check is checks.py's own: it reads only the derivation,
# the options and the counters, which a SchematicContext has too)
SCHEMATIC_CHECKS: tuple[Check, ...] = (
    Check("schematic-document", "P1", "a version-1 schematic certificate that claims a proof", _document),
    Check("schematic-transformer", "P1", "the embedded transformer is well-formed and hashed", _transformer),
    Check("schematic-scheme", "P2", "the kernel states this construction's templates, T has its coordinates "
                                             "and pools exactly", _scheme),
    Check("schematic-encoding", "P3", "the layout's base case and read-out are those the induction uses",
                   _encoding),
    Check("schematic-layers", "P4", "T's layers follow the scheme's phases (fetch, gather; or one step), as many "
                                    "as K needs", _layers),
    Check("schematic-lemmas", "P5", "the certificate's lemmas are exactly the kernel's lemma texts", _lemmas),
    Check("schematic-solvers", "P8", "every lemma is unsat (valid over the reals)", solvers_check),  # type: ignore[arg-type]
)


def prepare(doc: dict[str, Any]) -> tuple[SchematicContext, Report]:
    """Every check up to and including the kernel's own derivation of the lemmas (for the prover: it
    then discharges the lemmas itself, with models for its witnesses)."""
    ctx = SchematicContext(doc, Options())
    report = Report()
    run_checks(ctx, SCHEMATIC_CHECKS[:5], report)
    if not report.rejections:
        ctx.derivation = _derive(ctx)
    return ctx, report


def check_schematic(doc: dict[str, Any], options: Options | None = None) -> Report:
    """Run the schematic checks in order; the first failing one ends the run."""
    return judge(SchematicContext(doc, options or Options()), SCHEMATIC_CHECKS,
                 lambda c: (len(c.derivation.lemmas), sum(lemma.uses for lemma in c.derivation.lemmas.values())),
                 schematic_theorem)


def schematic_theorem(ctx: SchematicContext) -> str:
    """The accepted statement in one line (docs/soundness.md, P8)."""
    scheme, T = ctx.scheme, ctx.transformer
    assert scheme is not None and T is not None
    name = ctx.doc["construction"]
    where = "every ordered ring Q ⊆ R ⊆ ℝ"
    if ctx.depth_bound is None:
        period = len(scheme.phases)
        extra = f" + {_extra(scheme)}" if _extra(scheme) else ""
        layers = "the layer of T" if period == 1 else f"the first {period} layers of T"
        return (f"for every K ≥ 1, every {scheme.circuit_class} circuit C of depth ≤ K and every x ∈ R^n ({where}): "
                f"T_K = {layers} (sha256 {ctx.transformer_hash[:12]}) repeated K{extra} times, on "
                f"enc_{name}(C, x), reads out C(x)")
    return (f"for every {scheme.circuit_class} circuit C of depth ≤ {ctx.depth_bound} and every x ∈ R^n ({where}): "
            f"T (sha256 {ctx.transformer_hash[:12]}, {len(T.layers)} layers) on enc_{name}(C, x) reads out C(x)")
