"""The per-circuit checks: a table of named rules over a typed context (Alive2 style), each naming the step of
docs/soundness.md it discharges (S1–S13, B1–B5, D, N). Nothing in the certificate is trusted: every field is
recomputed here or is a hint the kernel verifies in full."""

from __future__ import annotations

from typing import Any, Callable

from .agreement import (compare_derived, entries, lemma_room, match_lemmas, other_netlist, stated_depth_bound,
                        stated_document, stated_hashes)
from .attention import BRUTE_FORCE_LIMIT, brute_force, budget_for, join, key_lemma
from .structure import reads, score_reads
from .data import (MAX_DEGREE, MAX_LAYERS, Malformed, as_dict, as_list, as_rational, counted, within,
                   load_circuit, load_structure, load_transformer, need)
from .defence import run_defence
from .encoding import Illegitimate, build
from .layouts import OutsideLayout, construction_of
from .obligations import Deriver, Reads, activation_params, frame_changes
from .context import Context
from .derivation import layer_functions
from .schedule import base_failures, claims_from_rules, readout_failures
from .discharge import discharge_derivation
from .problems import CANDIDATES, Problem
from .report import Options, Report
from .rules import Check, judge, sha256_json

KEY_KIND = "attention:key-decomposition"


# -- S1: data -------------------------------------------------------------------------

def _circuit(ctx: Context) -> list[str]:
    ctx.circuit = load_structure(ctx.doc["circuit"], "$.circuit")
    ctx.domain, ctx.hashes["circuit"] = ctx.doc["circuit"]["domain"], sha256_json(ctx.doc["circuit"])
    return []


def _transformer(ctx: Context) -> list[str]:
    ctx.transformer = load_transformer(ctx.doc["transformer"])
    ctx.hashes["transformer"] = sha256_json(ctx.doc["transformer"])
    return []


# -- S2: the encoding ------------------------------------------------------------------

def _construction(ctx: Context) -> list[str]:
    ctx.construction = construction_of(ctx.doc["construction"], ctx.doc.get("construction_document"))
    return []


def _encoding(ctx: Context) -> list[str]:
    name = ctx.doc["construction"]
    try:
        encoding = build(ctx.construction, ctx.circuit)  # type: ignore[union-attr, arg-type]
    except OutsideLayout as exc:
        return [Problem("the circuit is outside {name}'s encoding: {why:200}", {"name": name, "why": str(exc)})]
    except Illegitimate as exc:
        return [Problem("{name}'s document does not give a legitimate encoding of this circuit: {why:200}",
                        {"name": name, "why": str(exc)})]
    T = ctx.transformer
    if T.coordinates != encoding.coordinates:  # type: ignore[union-attr]
        return [Problem("the transformer's coordinates {given:120} are not {name}'s {coordinates:120}", {"name": name,
                        "given": list(T.coordinates), "coordinates": list(encoding.coordinates)})]  # type: ignore[union-attr]
    ctx.encoding = encoding
    ctx.rows = encoding.rows
    return []


# -- S7 / S11: what can be rendered and pooled exactly -------------------------------------

def _names(ctx: Context) -> list[str]:
    """Parameters are ``<owner>_<coordinate>``: distinct unless an underscore makes two of them meet."""
    T = ctx.transformer
    for layer in {layer.key: layer for layer in T.layers}.values():  # type: ignore[union-attr]
        symbols = activation_params(T, layer)  # type: ignore[arg-type]
        if len(set(symbols)) != len(symbols):
            return [Problem("two activation inputs get the same SMT name in a layer with heads {heads:200}: rename a head "
                            "or a coordinate", {"heads": [h.name for h in layer.heads]})]
    return []


# -- S4: hints ------------------------------------------------------------------------------

def _structural(ctx: Context) -> list[str]:
    hints = as_dict(ctx.doc["hints"], "$.hints", {"structural", "schedule", "attention"})
    raw = as_list(hints["structural"], "$.hints.structural", 256, size=False)
    coords = ctx.encoding.coordinates  # type: ignore[union-attr]
    for k, c in enumerate(raw):
        need(c in coords, f"$.hints.structural[{k}]", "unknown coordinate {c!r}", c=c)
    ctx.structural = {coords.index(c) for c in raw}
    need(len(ctx.structural) == len(raw), "$.hints.structural", "a coordinate is listed twice")
    return [Problem("input x_{i} is placed in structural coordinate {coordinate} (position {p})",
                    {"i": i, "coordinate": coords[c], "p": p})
            for p, c, i in ctx.encoding.input_slots if c in ctx.structural]  # type: ignore[union-attr]


def _schedule(ctx: Context) -> list[str]:
    ctx.claims = claims_from_rules(ctx.doc["hints"]["schedule"], ctx.circuit, ctx.encoding,  # type: ignore[arg-type]
                                   ctx.structural)
    return []


# -- S6: attention ----------------------------------------------------------------------------

def _attention(ctx: Context) -> list[Problem]:
    T = ctx.transformer
    ctx.functions = layer_functions(T)  # type: ignore[arg-type]
    within(len(ctx.rows) * sum(1 + len(fn.layer.heads) for fn in ctx.functions) <= 64 * len(ctx.rows) + 10**7,  # S6-S9
           "$.transformer.layers", "distinct layers and their heads times the positions pass 64 a position + 10^7")
    claims = {}
    for k, raw in enumerate(as_list(ctx.doc["hints"]["attention"], "$.hints.attention", 10 * MAX_LAYERS)):
        entry = as_dict(raw, f"$.hints.attention[{k}]", {"function", "head", "method"}, {"key"})
        fh = (entry["function"], entry["head"])
        need(type(fh[0]) is int and type(fh[1]) is str and fh not in claims, f"$.hints.attention[{k}]", "an integer function and a head's name, each head once")
        claims[fh] = (k, entry)
    by_score: dict[object, list[tuple[int, ...]]] = {}
    ctx.attention_work = budget_for(ctx.rows)  # one budget for every head's keys, walks and brute force
    for fn in ctx.functions:
        for h, head in enumerate(fn.layer.heads):
            found = claims.pop((fn.number, head.name), None)
            if found is None:
                return [Problem("layer {layer}, head {head}: the certificate gives no attention method",
                                {"layer": fn.layers[0], "head": head.name})]
            k, entry = found
            where, method = f"$.hints.attention[{k}]", entry["method"]
            need(method in ("key-join", "brute-force"), f"{where}.method",
                 "must be 'key-join' or 'brute-force', got {method!r}", method=method)
            problems, cache = (_key_join if method == "key-join" else _brute_force)(ctx, fn, head, entry, where,
                                                                                    by_score)
            if problems:
                return problems
            ctx.sets[(fn.number, h)] = by_score[cache]
            ctx.attention_methods[(fn.number, h)] = method
    if claims:
        k, _ = next(iter(claims.values()))
        raise Malformed(f"$.hints.attention[{k}]", "names a head that no layer has")
    return []


def _key_join(ctx: Context, fn, head, entry, where: str, by_score: dict):  # type: ignore[no-untyped-def]
    """A key-join head: its key circuits read structural coordinates only, its facts hold in enc(C, x)."""
    T = ctx.transformer
    d = T.dimension  # type: ignore[union-attr]
    need("key" in entry, where, "a key-join needs a key decomposition")
    keys, facts = _load_key(entry["key"], f"{where}.key", ctx)
    bad = [name for name, c in keys.items() if c.n_inputs != d or len(c.outputs) != 1]
    need(not bad, f"{where}.key", f"key circuits take the {counted(d, 'coordinate')} and give one output")
    read = set().union(*(reads(c, list(c.outputs)) for c in keys.values()))
    if not read <= ctx.structural:
        return [Problem("head {head}: the key circuits read value coordinates {coordinates}", {"head": head.name,
                        "coordinates": sorted(T.coordinates[c] for c in read - ctx.structural)})], None  # type: ignore[union-attr]
    for c, value in facts:
        at = {"head": head.name, "coordinate": T.coordinates[c], "value": value}  # type: ignore[union-attr]
        if c not in ctx.structural:
            return [Problem("head {head}: fact {coordinate} = {value} is about a coordinate that may change", at)], None
        if any(row[c] != value for row in ctx.rows):
            return [Problem("head {head}: fact {coordinate} = {value} fails at some position", at)], None
    cache = ("key", key_lemma(head.score, keys, facts, T.coordinates))  # type: ignore[union-attr]
    ctx.derivation.use(cache[1], KEY_KIND, count=False,  # counted as attention below
                       where=f"layer {fn.layers[0]}, head {head.name}")
    if cache not in by_score:
        by_score[cache] = join(ctx.rows, keys, ctx.attention_work)
    return [], cache


def _brute_force(ctx: Context, fn, head, entry, where: str, by_score: dict):  # type: ignore[no-untyped-def]
    """A brute-force head: its score reads structural coordinates only, on a sequence short enough."""
    need("key" not in entry, where, "brute-force takes no key")
    value_reads = score_reads(head.score, ctx.transformer.dimension) - ctx.structural  # type: ignore[union-attr]
    if value_reads:
        return [Problem("head {head}: brute-force attention on a score that reads value coordinates {coordinates}: "
                        "its argmax sets may depend on x", {"head": head.name, "coordinates": sorted(
                            ctx.transformer.coordinates[c] for c in value_reads)})], None  # type: ignore[union-attr]
    within(len(ctx.rows) <= BRUTE_FORCE_LIMIT, where, f"head {head.name}: brute force on {len(ctx.rows)} positions "
           f"(at most {BRUTE_FORCE_LIMIT})")
    cache = ("brute", head.score_key)
    if cache not in by_score:
        by_score[cache] = brute_force(ctx.rows, head.score, ctx.attention_work)
    return [], cache


def _load_key(raw: object, path: str, ctx: Context):  # type: ignore[no-untyped-def]
    obj = as_dict(raw, path, {"row_key", "col_key", "col_penalty", "facts"})
    keys = {name: load_circuit(obj[name], f"{path}.{name}", 10_000, max_degree=MAX_DEGREE)
            for name in ("row_key", "col_key", "col_penalty")}
    coords = ctx.transformer.coordinates  # type: ignore[union-attr]
    facts = []
    for k, item in enumerate(as_list(obj["facts"], f"{path}.facts", len(coords), size=False)):
        need(type(item) is list and len(item) == 2 and item[0] in coords, f"{path}.facts[{k}]",
             "expected [coordinate, value]")
        facts.append((coords.index(item[0]), as_rational(item[1], f"{path}.facts[{k}][1]")))
    need(len({c for c, _ in facts}) == len(facts), f"{path}.facts", "a coordinate is given twice")
    return keys, sorted(facts)


# -- S8, S9: frame and obligations ----------------------------------------------------------------

def _structural_frame(ctx: Context) -> list[str]:
    problems: list[str] = []
    ctx.reads = Reads(len(ctx.rows))  # the argmax-set members S8 and S9 read, in all (a work bound)
    left = [max(10**7, 256 * len(ctx.rows))]  # the gate evaluations of every structural output, in all layers
    for fn in ctx.functions:
        problems += frame_changes(fn, ctx.transformer, ctx.rows, ctx.structural, ctx.sets, ctx.reads, left)  # type: ignore[arg-type]
    return problems


def _obligations(ctx: Context) -> list[str]:
    C, T, E = ctx.circuit, ctx.transformer, ctx.encoding
    deriver = Deriver(C, T, ctx.rows, ctx.claims, ctx.structural, ctx.sets, ctx.reads)  # type: ignore[arg-type]
    deriver.derivation = ctx.derivation  # and its room: the lemma text left after the key lemmas (S11)
    deriver.set_roles([C.gates[r.gate].op if r.kind == "gate" else r.kind for r in E.roles],  # type: ignore[union-attr]
                      [r.kind for r in E.roles])  # type: ignore[union-attr]
    deriver.run(ctx.functions, ctx.options.shards)
    return compare_derived(ctx)  # the certificate's counts and set summaries (agreement.py, which can only reject)


# -- D and N: the interpreter and the netlist link ---------------------------------------------------

def _defence(ctx: Context) -> list[str]:
    problems, ctx.defence = run_defence(ctx)
    ctx.rows, ctx.claims, ctx.sets, ctx.encoding = (), [], {}, None  # the last reader: the lemmas' normal forms reuse it
    return problems


def _netlist(ctx: Context) -> list[str]:
    """N: the netlist link (``netlist_link.py`` and its readers) runs only for a certificate with a netlist
    section or a netlist given with --circuit; without either there is no link to check (its own first case)."""
    raw = ctx.doc.get("netlist")
    if raw is None and ctx.options.netlist is None:
        return []
    if raw is not None and (type(raw) is not dict or "steps" in raw or "signals" not in raw):  # by steps, or malformed
        from .netlist_steps import step_report
        problems, ctx.netlist_theorem = step_report(ctx)
        return problems
    if raw is not None and not ctx.options.candidate_link:  # the link by candidates: only when asked (N)
        ctx.unchecked += [] if (problems := other_netlist(raw, ctx.options.netlist)) else [CANDIDATES]
        return problems  # other_netlist, reject-only: a given netlist that is not the section's is rejected
    from .netlist_link import link_report  # the link by candidates (cap mode): a kind of its own
    problems, ctx.netlist_theorem, _ = link_report(ctx)
    return problems


def _own_transformer(ctx: Context) -> list[str]:
    """S2's own-transformer claim (``document_transformer.py``, shared with P2), entered only for a certificate whose
    ``info.transformer`` makes it: without the claim there is nothing to compare (a trusted-base kind of its own)."""
    info = ctx.doc["info"]
    if type(info) is not dict or info.get("transformer") is None:
        return []
    from .document_transformer import own_transformer_problems
    return own_transformer_problems(ctx, info)


def _binarization(name: str, *args: bool) -> Callable[[Context], list[Problem | str]]:
    """B1–B5 (``binarized.py``), entered only for a certificate with an ``original`` section: without one
    there is no circuit before binarization to check (so that module is a trusted-base kind of its own)."""
    def run(ctx: Context) -> list[Problem | str]:
        if ctx.doc.get("original") is None:
            return []
        from . import binarized
        return getattr(binarized, name)(ctx, *args)
    return run


def _given_circuit(ctx: Context) -> list[Problem]:
    """S1 with ``--circuit FILE``: ``circuit_file.py`` reads the file, entered only when one is given."""
    if ctx.options.circuit_file is None:
        return []
    from .circuit_file import given_circuit
    return given_circuit(ctx)


CHECKS: tuple[Check, ...] = (
    Check("document", "S1", "a version-2 or -3 certificate that claims a proof", stated_document),  # agreement.py
    Check("depth-bound", "S1", "the stated depth bound K is in 1 ... 10,000", stated_depth_bound),  # agreement.py
    Check("circuit", "S1", "the embedded circuit is a well-formed arithmetic circuit", _circuit),
    Check("transformer", "S1", "the embedded transformer is well-formed", _transformer),
    Check("names", "S11", "every SMT name stands for one activation input", _names),
    Check("hashes", "S1", "the hashes are those of the embedded objects", stated_hashes),  # agreement.py
    Check("original", "B1", "the recorded circuit before binarization is well-formed, hashed, of the same shape",
          _binarization("load_original")),
    Check("original-gates", "B3", "its inputs, constants and signs are the certified circuit's", _binarization("gate_failures")),
    Check("original-trees", "B4", "each n-ary sum or product is a tree over the same operands",
          _binarization("gate_failures", True)),
    Check("original-outputs", "B5", "its outputs are the certified circuit's outputs", _binarization("output_failures")),
    Check("given-circuit", "S1", "the circuit given with --circuit is the certified one (or the one before "
          "binarization)", _given_circuit),
    Check("construction", "S2", "the construction is a well-formed document: embedded, or the shipped built-in "
                                "it names", _construction),
    Check("own-transformer", "S2", "a transformer said to be the construction's own T_K is the document's", _own_transformer),
    Check("encoding", "S2", "the proof is about the construction's legitimate encoding enc(C, x)",
          lambda ctx: _encoding(ctx) or stated_hashes(ctx)),  # the stated hash of enc(C): agreement.py
    Check("exact-pooling", "S7", "every head pools exactly (average, leftmost or rightmost)", lambda ctx: [Problem(
        "layer {n}, head {head}: softmax pooling is not exact; nothing can be certified", {"n": n, "head": h.name})
        for n, layer in enumerate(ctx.transformer.layers, start=1) for h in layer.heads if h.pooling == "softmax"]),
    Check("structural", "S4", "structural coordinates are coordinates that carry no input", _structural),
    Check("schedule", "S4", "the schedule hint is in the kernel's rule form", _schedule),
    Check("readout", "S10", "every output is read where a claim gives its value by the last layer",
          lambda ctx: list(readout_failures(ctx.claims, ctx.circuit, ctx.encoding, len(ctx.transformer.layers)))),
    Check("base", "S5", "every claim settled at a layer <= 0 holds in enc(C, x)",
          lambda ctx: list(base_failures(ctx.claims, ctx.circuit, ctx.encoding))),
    Check("attention", "S6", "argmax sets come from proven keys or from structure-only scores", _attention),
    Check("structural-frame", "S8", "no layer changes a structural coordinate", _structural_frame),
    Check("obligations", "S9", "the certificate's derived counts are the kernel's", _obligations),
    Check("lemmas", "S11", "the certificate's lemmas are exactly the kernel's lemma texts", lambda ctx: match_lemmas(
          ctx.doc["lemmas"], entries(ctx.derivation), {"id", "kind", "uses", "smt2"}, {"engine"})),  # agreement.py
    Check("defence", "D", "the kernel's own interpreter agrees with C on seeded inputs", _defence),
    Check("solvers", "S12", "every lemma is unsat (valid over the reals)", discharge_derivation),  # discharge.py
    Check("netlist", "N", "the circuit computes the netlist's Boolean function", _netlist),
)


def check_per_circuit(doc: dict[str, Any], options: Options) -> Report:
    """The per-circuit checks' verdict (``entry.py`` sends every format it does not know here: S1 rejects it)."""
    ctx = Context(doc, options)
    ctx.derivation.room = lemma_room(doc.get("lemmas"))  # S11: the kernel renders no more text than the list holds
    report = judge(ctx, CHECKS, lambda c: (len(c.derivation.lemmas), sum(c.derivation.counts.values())), theorem)
    report.defence = ctx.defence
    return report


def theorem(ctx: Context) -> str:
    """The accepted statement in one line (docs/soundness.md, S13)."""
    C, T = ctx.circuit, ctx.transformer
    assert C is not None and T is not None
    B = "B" if ctx.original is not None else "C"  # B: the certified binarization of the user's circuit C (B1-B5)
    X = ctx.doc["construction"]
    sentence = (f"for every x in R^{C.n_inputs} and every ordered ring Q ⊆ R ⊆ ℝ: T (sha256 "
                f"{ctx.hashes['transformer']}, {counted(len(T.layers), 'layer')}) on enc_{X}({B}, x) "
                f"reads out C(x) for {B} (sha256 {ctx.hashes['circuit']}, {counted(len(C.gates), 'gate')}, "
                f"{counted(len(C.outputs), 'output')})")
    if ctx.original is not None:
        sentence += (f", the binarization of C, the circuit before binarization (sha256 {ctx.hashes['original']}, "
                     f"{counted(len(ctx.original.gates), 'gate')}, {counted(len(ctx.original.outputs), 'output')}): "
                     "each sum or product of C is a tree of B's gates of the same operation over its operands")
    if ctx.own_depth is not None:
        sentence += f", T being {X}'s own T_K for K = {ctx.own_depth}"
    if ctx.doc.get("construction_document") is not None and ctx.construction is not None:  # a user's document: name its hash
        sentence += f", with enc_{X} as its embedded construction document (sha256 {ctx.construction.digest}) states it"
    return sentence + (f"; {ctx.netlist_theorem}" if ctx.netlist_theorem else "")
