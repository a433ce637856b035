"""The kernel's check of a *schematic* certificate: one proof for every circuit of depth ≤ K, re-derived from the
construction's document and the transformer's own circuits; each check names its step P1–P10 of docs/soundness.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .agreement import entries, lemma_room, match_lemmas, stated_hash, stated_schematic
from .discharge import discharge_derivation as solvers_check
from .document_transformer import own_transformer_problems
from .rules import Check, judge, sha256_json
from .data import Transformer, as_dict, as_int, counted, load_transformer, need, within
from .layouts import Construction, construction_of
from .derivation import Derivation, Function, layer_functions
from .problems import Problem
from .report import Options, Report
from .schematic_derive import derive
from .schematic_edges import EdgeScheme, derive_edges
from .schematic_lemmas import SETS, Scheme
from .schematic_relevance import needs
from .schematic_scheme import EarlySchedule, encoding_problems, scheme_of

SCHEMATIC_FORMAT = "verified-aat/schematic-certificate"
SCHEMATIC_VERSION = 1
MAX_DEPTH_BOUND = 50_000


@dataclass
class SchematicContext:
    doc: dict[str, Any]
    options: Options
    construction: Construction | None = None
    own_depth: int | None = None
    scheme: Scheme | EdgeScheme | None = None
    transformer: Transformer | None = None
    depth_bound: int | None = None  # None: every K
    phases: dict[str, list[Function]] = field(default_factory=dict)
    sets: dict[str, str] = field(default_factory=dict)  # head name → intended set (a hint, proved by P6)
    derivation: Derivation = field(default_factory=Derivation)
    unchecked: list[str] = field(default_factory=list)
    solver_runs: int = 0
    kernel_decided: int = 0
    solver_only: list[str] = field(default_factory=list)
    proofs: dict[str, Any] = field(default_factory=dict)  # lemma id → its proof object (S12c)
    transformer_hash: str = ""
    trailing: int = 0  # layers after the 2K of a fixed K (P9)
    instance: str = ""  # the theorem at the given circuit (P10, ``schematic_instance.py``)


def _document(ctx: SchematicContext) -> list[str]:
    bound = ctx.doc["depth_bound"]  # the format's keys: stated_schematic (agreement.py), which runs first
    within(type(bound) is not int or bound <= MAX_DEPTH_BOUND, "$.depth_bound", f"K = {bound} (at most {MAX_DEPTH_BOUND})")
    ctx.depth_bound = None if bound is None else as_int(bound, "$.depth_bound", 1)
    return []


def _transformer(ctx: SchematicContext) -> list[str]:
    ctx.transformer = load_transformer(ctx.doc["transformer"])
    ctx.transformer_hash = sha256_json(ctx.doc["transformer"])
    return stated_hash(ctx.doc, "transformer", ctx.transformer_hash)


def _scheme(ctx: SchematicContext) -> list[str]:
    name = ctx.doc["construction"]
    ctx.construction = construction_of(name, ctx.doc.get("construction_document"))
    try:
        scheme = scheme_of(ctx.construction)
    except EarlySchedule as exc:
        return [str(exc)]
    T = ctx.transformer
    assert T is not None
    coordinates = ctx.construction.coordinates
    if T.coordinates != coordinates:
        return [f"the transformer's coordinates {list(T.coordinates)} are not {name}'s {list(coordinates)}"]
    softmax = [n for n, layer in enumerate(T.layers, 1) for h in layer.heads if h.pooling == "softmax"]
    if softmax:
        return [f"layer {softmax[0]} pools by softmax, which is not exact"]
    ctx.scheme = scheme
    hints = as_dict(ctx.doc.get("hints", {"sets": {}}), "$.hints", {"sets"})
    sets = as_dict(hints["sets"], "$.hints.sets", set(), {h.name for layer in T.layers for h in layer.heads})
    allowed = SETS if isinstance(scheme, EdgeScheme) or scheme.slots is not None else ("in-edges",)
    ctx.sets = {**intended_sets(ctx.construction), **sets}  # the hints' and the document's intended sets
    for head, chosen in ctx.sets.items():
        need(chosen in allowed, "$.hints.sets" if head in sets else "$.construction_document.attends",
             f"an intended set is one of {list(allowed)}")
    return own_transformer_problems(ctx, ctx.doc.get("info"))


def intended_sets(construction: Construction | None) -> dict[str, str]:
    """The document's ``attends``: each head's intended set among a reader's in-edges (a hint, proved by P6)."""
    raw = {} if construction is None else construction.data.get("attends", {})
    sets = as_dict(raw, "$.construction_document.attends", set(), set(raw) if type(raw) is dict else set())
    for head, chosen in sets.items():
        need(chosen in SETS, f"$.construction_document.attends.{head}", f"an intended set is one of {list(SETS)}")
    return dict(sets)


def _layers(ctx: SchematicContext) -> list[str]:
    """P4: layer ℓ has phase fetch when ℓ is odd, gather when even; 2K layers (every K: one function per phase)."""
    T = ctx.transformer
    assert T is not None and ctx.scheme is not None
    period = len(ctx.scheme.phases)
    functions = layer_functions(T)
    by_layer = {n: fn for fn in functions for n in fn.layers}
    wanted = period * (ctx.depth_bound or 0) + ctx.scheme.extra_layers
    if ctx.depth_bound is not None and isinstance(ctx.scheme, Scheme) and len(T.layers) > wanted:
        ctx.trailing = len(T.layers) - wanted
    met: set[tuple[str, int]] = set()  # (phase, function number): a list's `in` made 10^5 distinct layers quadratic
    for number in sorted(by_layer):
        phase = "trailing" if number > len(T.layers) - ctx.trailing else ctx.scheme.phases[(number - 1) % period]
        if (key := (phase, by_layer[number].number)) not in met and not met.add(key):  # (red team 26)
            ctx.phases.setdefault(phase, []).append(by_layer[number])
    if ctx.depth_bound is None:
        if len(T.layers) < period + ctx.scheme.extra_layers or len(T.layers) % period or any(
                len(f) != 1 for f in ctx.phases.values()):
            return [f"a proof for every K needs T to repeat one layer per phase; it has {counted(len(T.layers), 'layer')} and "
                    f"{ {p: len(f) for p, f in ctx.phases.items()} } functions per phase"]
        spec, extra = ctx.construction.data["transformer"], ctx.scheme.extra_layers  # type: ignore[union-attr]
        if ctx.own_depth is not None and (spec.get("prefix") or len(spec["block"]) != period or spec.get(
                "suffix", []) != (spec["block"] * (extra + 1))[:extra]):  # T = the document's T_1 only (red team)
            return ["the document's T_K = prefix + K × block + suffix is not the phases' layers repeated for every K, "
                    "so T is its own T_K for one K only: the certificate may not say 'own' for every K"]
        return []
    if len(T.layers) < wanted:
        return [f"depth bound {ctx.depth_bound} needs {counted(wanted, 'layer')}, T has {len(T.layers)}"]
    return []


def derive_lemmas(ctx: SchematicContext, room: int | None = None) -> Derivation:
    assert ctx.transformer is not None and ctx.construction is not None and ctx.scheme is not None
    functions = list({fn.number: fn for fns in ctx.phases.values() for fn in fns}.values())
    needed = needs(ctx.transformer, functions, ctx.construction.readout[1], ctx.trailing, ctx.depth_bound is None)
    if isinstance(ctx.scheme, EdgeScheme):
        return derive_edges(ctx.scheme, ctx.phases.get("step", []), needed, ctx.sets, room)
    return derive(ctx.scheme, ctx.phases, needed, ctx.sets, room)


def _lemmas(ctx: SchematicContext) -> list[Problem]:
    """P5 (``agreement.py``, which can only reject); the proof objects go to ``ctx.proofs``, checked with their
    lemmas (S12c), never believed."""
    ctx.derivation = derive_lemmas(ctx, lemma_room(ctx.doc["lemmas"]))  # no more text than the list holds (S11)
    return match_lemmas(ctx.doc["lemmas"], entries(ctx.derivation), {"id", "kind", "uses", "smt2"}, {"proof"}, ctx.proofs,
                        100_000)


def _instance(ctx: SchematicContext) -> list[str]:
    """P10 (``schematic_instance.py``), entered only with an embedded circuit or ``check --circuit FILE``."""
    if ctx.options.circuit_file is None and "instance" not in ctx.doc:
        return []
    from .schematic_instance import instantiate
    return instantiate(ctx)


# the table, in the form of checks.py; the solver check is the per-circuit one (discharge.py: the derivation, options
# and counters, which a SchematicContext has too)
SCHEMATIC_CHECKS: tuple[Check, ...] = (
    Check("schematic-document", "P1", "a version-1 schematic certificate that claims a proof",
          lambda ctx: stated_schematic(ctx.doc, SCHEMATIC_VERSION) + _document(ctx)),  # the first: agreement.py
    Check("schematic-transformer", "P1", "the embedded transformer is well-formed and hashed", _transformer),
    Check("schematic-scheme", "P2", "the construction's document fits one of the kernel's inductions (roles, "
                                    "class, schedule), T has its coordinates and pools exactly", _scheme),
    Check("schematic-encoding", "P3", "the document's base case and read-out are those the induction uses",
          lambda ctx: encoding_problems(ctx.scheme)),  # on the row formulas with symbolic parameters
    Check("schematic-layers", "P4", "T's layers follow the scheme's phases (fetch, gather; or one step), as many "
                                    "as K needs", _layers),
    Check("schematic-lemmas", "P5", "the certificate's lemmas are exactly the kernel's lemma texts", _lemmas),
    Check("schematic-solvers", "P8", "every lemma is unsat (valid over the reals)", solvers_check),  # type: ignore[arg-type]
    Check("schematic-instance", "P10", "the embedded circuit, or one given with --circuit, is in the class, within "
                                       "the depth bound", _instance),
)


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
    if ctx.doc.get("construction_document") is not None and ctx.construction is not None:  # a user's document: name its hash
        where += f"; enc_{name} as its embedded construction document (sha256 {ctx.construction.digest}) states it"
    if ctx.depth_bound is None:
        period = len(scheme.phases)
        extra = f" + {scheme.extra_layers}" if scheme.extra_layers else ""
        layers = "the layer of T" if period == 1 else f"the first {period} layers of T"
        own = f", {name}'s own T_K" if ctx.own_depth is not None else ""
        text = (f"for every K ≥ 1, every {scheme.circuit_class} circuit C of depth ≤ K and every x ∈ R^n ({where}): "
                f"T_K = {layers} (sha256 {ctx.transformer_hash}) repeated K{extra} times{own}, on "
                f"enc_{name}(C, x), reads out C(x)")
    else:
        text = (f"for every {scheme.circuit_class} circuit C of depth ≤ {ctx.depth_bound} and every x ∈ R^n ({where}): "
                f"T (sha256 {ctx.transformer_hash}, {counted(len(T.layers), 'layer')}) on enc_{name}(C, x) reads out "
                "C(x)")
    return text + ctx.instance
