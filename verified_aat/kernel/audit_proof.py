"""The kernel's check of an audit certificate: U_N = T for every audited N (docs/soundness.md, U1–U6).

An audit certificate (format ``verified-aat/audit-certificate``) embeds T in
the kernel form, the audited lengths, per N the sha256 of the engine's
unrolled circuit U_N, and the local lemmas.  The kernel trusts none of it:

* it re-unrolls T at every N with its own unroller (:mod:`.unroll`) and
  requires the engine's U_N to have the same canonical structure hash (U3),
  so U_N *is* the composition of the gadgets the lemmas are about;
* it derives the lemmas itself — for all N: COPY for every distinct score /
  activation circuit, BILINEAR for every bilinear score, GT, and the RECIP
  induction step (symbolic m); per N: ARGMAX and LEFTMOST / RIGHTMOST — from
  the same gadget functions,
  and requires the certificate's list to be exactly its own (kind, scope,
  use count and byte-identical SMT-LIB text) (U4);
* the kernel decides every lemma: by its normal form or the lemma's proof object, else by a solver, which the
  verdict then names (U5, S12).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from . import smt
from .rules import Check, judge, sha256_json
from .data import (
    Bilinear,
    Circuit,
    Transformer,
    as_dict,
    as_int,
    as_list,
    counted,
    load_transformer,
    need,
    within,
)
from .problems import Problem
from .report import Options, Report
from .agreement import match_lemmas
from .discharge import discharge
from .unroll import (
    Builder,
    bilinear,
    copy,
    depth,
    gt,
    none,
    recip_term,
    select,
    structure,
    unroll,
)

AUDIT_FORMAT = "verified-aat/audit-certificate"
AUDIT_VERSION = 3  # 2: RECIP in three integer cases over the reals; 3: ARGMAX and SELECT state their flags ≥ 0
MAX_LENGTH = 32
MAX_TOTAL_GATES = 5_000_000  # U_N built by the kernel, all N together (2*10^7 took 56 s and 6 GB; the spec circuits need 4.6*10^6)
ALL_N = "all N"
TOP = {"format", "version", "claim", "info", "transformer", "hashes", "lengths", "unrolled", "lemmas", "result"}


@dataclass(frozen=True)
class Lemma:
    kind: str
    scope: str        # "all N" or "N = k"
    text: str
    uses: int
    by_structure: bool = False  # a COPY lemma the kernel decides by the copy's structure (``faithful``)

    @property
    def id(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass
class AuditContext:
    doc: dict[str, Any]
    options: Options
    transformer: Transformer | None = None
    lengths: list[int] = field(default_factory=list)
    lemmas: list[Lemma] = field(default_factory=list)
    uses: dict[int, Any] = field(default_factory=dict)    # N -> the unroller's gadget instance counts
    unrolled: dict[int, dict[str, Any]] = field(default_factory=dict)
    unchecked: list[str] = field(default_factory=list)
    solver_runs: int = 0
    kernel_decided: int = 0
    solver_only: list[str] = field(default_factory=list)
    proofs: dict[str, Any] = field(default_factory=dict)  # lemma id → its proof object (S12c)
    measures: dict[str, Any] = field(default_factory=dict)  # all-N certificates: U_N's size, depth, class (V3)


# -- lemma texts ------------------------------------------------------------------------------

def _text(title: str, defs: list[str], params: list[str], assumptions: list[str], claim: str) -> str:
    lines = [f"{smt.HEADER} (audit: {title})", smt.LOGIC, smt.SGN, *defs, smt.declare(params).rstrip("\n")]
    lines += [f"(assert {a})" for a in assumptions]
    lines += [f"(assert (not {claim}))", "(check-sat)"]
    return "\n".join(line for line in lines if line) + "\n"


def _every(conditions: list[str]) -> str:
    """1.0 if every condition holds, else 0.0, as nested ``ite``s: the first false one decides (S12c)."""
    value = "1.0"
    for c in reversed(conditions):
        value = f"(ite {c} {value} 0.0)"
    return value


def _and(parts: list[str]) -> str:
    return "true" if not parts else (parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})")


def _gadget(b: Builder, outputs: list[int], params: list[str], name: str = "gadget") -> tuple[list[str], list[str]]:
    """define-funs of the standalone gadget's outputs and their applications."""
    b.outputs = outputs
    circuit = b.circuit()
    signature = " ".join(params)
    defs = [smt.define_fun(f"{name}{k}", circuit, k, params) for k in range(len(outputs))]
    return defs, [f"({name}{k} {signature})" for k in range(len(outputs))]


def gt_lemma(uses: int) -> Lemma:
    """GT: the comparison gadget on s and the wire of −t is 1 exactly when s > t (for all N)."""
    b = Builder()
    s, t = b.input(), b.input()
    defs, (g,) = _gadget(b, [gt(b, s, b.mul(b.const(-1), t))], ["s", "t"])
    return Lemma("gt", ALL_N, _text("GT", defs, ["s", "t"], [], f"(= {g} (ite (> s t) 1.0 0.0))"), uses)


def argmax_lemma(n: int, j: int, uses: int) -> Lemma:
    """ARGMAX: given g_k = GT(s_k, s_j) for k ≠ j (lemma GT), NONE(g) = 1 exactly when s_j is a maximum.  The
    hypotheses g_k ≥ 0 follow from the first ones; stated, and with the claim as nested ``ite``s, they let a
    proof object close a case as soon as one g_k is 1 (S12c)."""
    b = Builder()
    others = [k for k in range(n) if k != j]
    params = [f"s{k}" for k in range(n)] + [f"g{k}" for k in others]
    for _ in range(n):
        b.input()
    defs, (m,) = _gadget(b, [none(b, [b.input() for _ in others])], params)
    facts = [f"(= g{k} (ite (> s{k} s{j}) 1.0 0.0))" for k in others] + [f"(>= g{k} 0.0)" for k in others]
    top = _every([f"(>= s{j} s{k})" for k in others])
    return Lemma("argmax", f"N = {n}", _text(f"ARGMAX N={n} j={j}", defs, params, facts, f"(= {m} {top})"), uses)


def reciprocal_lemmas(uses: int) -> list[Lemma]:
    """RECIP, the step m → m + 1 of the induction over the terms of r = t_1 + … + t_N.  The invariant after
    m terms: the partial sum p is 1/c when c ≤ m, else 0, for the count c (an integer ≥ 1); the base m = 0
    is the empty sum, 0.  The term t = w·[c + negm = 0], with w·(m + 1) = 1 and negm = −(m + 1) the wires
    of the constants 1/(m+1) and −(m+1).  For integers c, m one of three cases holds, each one lemma with
    the invariant written out for it: c ≤ m (p = 1/c, named r, and p + t = r), c = m + 1 (p = 0 and
    p + t = 1/c = w), c ≥ m + 2 (p = 0 and p + t = 0)."""
    b = Builder()
    defs, _ = _gadget(b, [recip_term(b, b.input(), b.input(), b.input())], ["c", "w", "negm"])
    wires = ["(= (* w (+ m 1.0)) 1.0)", "(= negm (- (- m) 1.0))", "(>= m 0.0)"]
    cases = {
        "c <= m": (["c", "m", "p", "r", "w", "negm"], ["(>= c 1.0)", "(>= m c)", "(= p r)"], "c", "r"),
        "c = m + 1": (["m", "p", "w", "negm"], ["(= p 0.0)"], "(+ m 1.0)", "w"),
        "c >= m + 2": (["c", "m", "p", "w", "negm"], ["(>= c (+ m 2.0))", "(= p 0.0)"], "c", "0.0"),
    }
    return [Lemma("recip", ALL_N, _text(f"RECIP step, case {case}", defs, params, wires + facts,
                                        f"(= (+ p (gadget0 {count} w negm)) {after})"), uses)
            for case, (params, facts, count, after) in cases.items()]


def select_lemma(n: int, j: int, pooling: str, uses: int) -> Lemma:
    """For marks in {0, 1}: L_j = 1 exactly when m_j = 1 and no mark before (leftmost) / after (rightmost) j is
    (m_k ≥ 0 follows from m_k ∈ {0, 1}, stated for the proof object as in ARGMAX)."""
    b = Builder()
    params = [f"m{k}" for k in range(n)]
    marks = [b.input() for _ in range(n)]
    defs, (sel,) = _gadget(b, [select(b, marks, j, pooling == "leftmost")], params)
    others = range(j) if pooling == "leftmost" else range(j + 1, n)
    first = _every([f"(= m{j} 1.0)"] + [f"(= m{k} 0.0)" for k in others])
    binary = [f"(or (= m{k} 0.0) (= m{k} 1.0))" for k in range(n)] + [f"(>= m{k} 0.0)" for k in range(n)]
    return Lemma(pooling, f"N = {n}", _text(f"{pooling.upper()} N={n} j={j}", defs, params, binary, f"(= {sel} {first})"),
                 uses)


def copy_lemma(f: Circuit, label: str, uses: int) -> Lemma:
    """The binarised copy of f computes f, output by output."""
    b = Builder()
    params = [f"v{k}" for k in range(f.n_inputs)]
    defs, copies = _gadget(b, copy(b, f, [b.input() for _ in params]), params, "copy")
    originals = [smt.define_fun(f"orig{k}", f, k, params) for k in range(len(f.outputs))]
    apps = [f"(orig{k} {' '.join(params)})" for k in range(len(f.outputs))]
    claim = _and([f"(= {c} {o})" for c, o in zip(copies, apps)])
    return Lemma("copy", ALL_N, _text(f"COPY {label}", defs + originals, params, [], claim), uses, faithful(f))


def faithful(f: Circuit) -> bool:
    """COPY decided by structure (U5): the binarised copy is f gate for gate, up to the associativity of products.
    The normal form would expand a product of 64 sums into 2^64 monomials (red team). False: not decided so."""
    b = Builder()
    outputs = copy(b, f, [b.input() for _ in range(f.n_inputs)])
    ids: dict[tuple, int] = {}  # one numbering of terms for both circuits
    copied, original = _terms(b.circuit(), ids), _terms(f, ids)
    return copied is not None and original is not None and [copied[o] for o in outputs] == [original[o] for o in f.outputs]


def _terms(c: Circuit, ids: dict[tuple, int]) -> list[int] | None:
    """Each gate's term as an interned number, nested products flattened in order; None past 10^6 factors."""
    terms: list[int] = []
    factors: list[tuple[int, ...]] = []  # of each product gate, flattened
    work = 0
    for gate in c.gates:
        flat: tuple[int, ...] = ()
        if gate.op == "mul":
            flat = tuple(x for a in gate.args for x in (factors[a] if c.gates[a].op == "mul" else (terms[a],)))
            work += len(flat)
            if work > 10**6:
                return None
        factors.append(flat)
        key = (gate.op, flat) if flat else (gate.op, gate.index, gate.value, tuple(terms[a] for a in gate.args))
        terms.append(ids.setdefault(key, len(ids)))
    return terms


def bilinear_lemma(score: Bilinear, d: int, uses: int) -> Lemma:
    b = Builder()
    row, col = [f"xi{k}" for k in range(d)], [f"xj{k}" for k in range(d)]
    xi, xj = [b.input() for _ in row], [b.input() for _ in col]
    defs, (s,) = _gadget(b, [bilinear(b, score, xi, xj)], row + col)
    claim = f"(= {s} {smt.bilinear_term(score.entries, row, col)})"
    return Lemma("copy", ALL_N, _text("COPY bilinear score", defs, row + col, [], claim), uses)


def derive_lemmas(T: Transformer, uses: dict[int, Any]) -> list[Lemma]:
    """Every lemma the unrollings at the lengths in ``uses`` rest on, with its instance count."""
    total: dict[tuple[str, object], int] = {}
    for counter in uses.values():
        for key, count in counter.items():
            if key[0] in ("copy", "bilinear", "gt", "recip"):
                total[key] = total.get(key, 0) + count
    functions: dict[object, Circuit] = {}
    for layer in T.layers:
        functions[("f", layer.key[1])] = layer.activation
        for head in layer.heads:
            functions[head.score_key] = head.score  # type: ignore[assignment]
    lemmas = []
    for key, count in total.items():
        if count == 0:
            continue
        if key[0] == "gt":
            lemmas.append(gt_lemma(count))
        elif key[0] == "recip":
            lemmas += reciprocal_lemmas(count)
        elif key[0] == "bilinear":
            lemmas.append(bilinear_lemma(Bilinear(key[1]), T.dimension, count))  # type: ignore[arg-type]
        else:
            lemmas.append(copy_lemma(functions[key[1]], f"function {key[1][1]}", count))  # type: ignore[index]
    for n, counter in uses.items():
        for (kind, arg), count in sorted(counter.items(), key=lambda item: (item[0][0], str(item[0][1]))):
            if kind == "argmax":
                lemmas.append(argmax_lemma(n, arg, count))  # type: ignore[arg-type]
            elif kind in ("leftmost", "rightmost"):
                lemmas.append(select_lemma(n, arg, kind, count))  # type: ignore[arg-type]
    return lemmas


# -- the checks --------------------------------------------------------------------------------

def read_header(ctx: AuditContext, top: set[str], fmt: str, version: int, kind: str) -> dict[str, Any]:
    """U1 / V1: the document's keys, format, version, claim and info, and a result that claims a proof."""
    doc = as_dict(ctx.doc, "$", top, {"timings"})
    need(doc["format"] == fmt, "$.format", f"must be {fmt!r}")
    need(type(doc["version"]) is int and doc["version"] == version, "$.version",
         f"this kernel checks {kind} certificates of version {version} (regenerate older ones with audit --prove), "
         "got {given!r}", given=doc["version"])
    need(type(doc["claim"]) is str and type(doc["info"]) is dict, "$", "claim must be a string, info an object")
    result = as_dict(doc["result"], "$.result", {"status"}, {"engine"})
    need(result["status"] == "proved", "$.result.status", "the certificate claims {status!r}", status=result["status"])
    return doc


def _document(ctx: AuditContext) -> list[str]:
    doc = read_header(ctx, TOP, AUDIT_FORMAT, AUDIT_VERSION, "audit")
    raw = as_list(doc["lengths"], "$.lengths", 64)
    ctx.lengths = [as_int(n, f"$.lengths[{k}]", 1, MAX_LENGTH) for k, n in enumerate(raw)]
    need(bool(ctx.lengths) and ctx.lengths == sorted(set(ctx.lengths)), "$.lengths",
         "lengths must be distinct, increasing and at least one")
    return []


def _transformer(ctx: AuditContext) -> list[str]:
    T = ctx.transformer = load_transformer(ctx.doc["transformer"])
    total = 0
    for n in ctx.lengths:  # a bound on the size of every U_N together, before building anything
        total += sum(sum(n * n * (6 * n + 6 + T.dimension + _size(h.score)) for h in layer.heads)
                     + n * _size(layer.activation) for layer in T.layers)
        within(total <= MAX_TOTAL_GATES, "$.lengths", f"the unrollings up to N = {n} would exceed "
                                                      f"{MAX_TOTAL_GATES} gates together")
    return []


def _size(f: Circuit | Bilinear) -> int:
    if isinstance(f, Bilinear):
        return 2 * len(f.entries) + 1
    return sum(max(1, len(g.args)) for g in f.gates)


def _hashes(ctx: AuditContext) -> list[Problem]:
    given = as_dict(ctx.doc["hashes"], "$.hashes", {"transformer"})
    mine = sha256_json(ctx.doc["transformer"])
    if given["transformer"] == mine:
        return []
    return [Problem("the embedded transformer has hash {mine:16}, the certificate says {given:16}",
                    {"mine": mine, "given": given["transformer"]})]


def _pooling(ctx: AuditContext) -> list[str]:
    return [f"layer {k}, head {h.name}: softmax pooling cannot be unrolled exactly"
            for k, layer in enumerate(ctx.transformer.layers, start=1) for h in layer.heads  # type: ignore[union-attr]
            if h.pooling == "softmax"]


def _unrolled(ctx: AuditContext) -> list[Problem]:
    raw = as_list(ctx.doc["unrolled"], "$.unrolled", 64)
    need(len(raw) == len(ctx.lengths), "$.unrolled", "one entry per audited length")
    problems = []
    for k, (n, entry) in enumerate(zip(ctx.lengths, raw)):
        entry = as_dict(entry, f"$.unrolled[{k}]", {"n", "sha256", "gates", "depth"})
        need(entry["n"] == n and type(entry["n"]) is int, f"$.unrolled[{k}].n", f"must be {n}")
        b = unroll(ctx.transformer, n)  # type: ignore[arg-type]
        ctx.uses[n] = b.uses
        mine = {"n": n, "sha256": sha256_json(structure(b)), "gates": len(b.gates), "depth": depth(b)}
        ctx.unrolled[n] = mine
        if json.dumps(entry, sort_keys=True) != json.dumps(mine, sort_keys=True):
            problems.append(Problem("N = {n}: the kernel's unrolling has size {gates}, depth {depth}, hash {sha256:16}; "
                                    "the certificate's U_N has size {given_gates:12}, depth {given_depth:12}, hash "
                                    "{given_sha256:16}", {**mine, **{f"given_{k}": v for k, v in entry.items()}}))
    return problems


def _lemmas(ctx: AuditContext) -> list[Problem]:
    """U4 (``agreement.py``, which can only reject); the proof objects go to ``ctx.proofs``, checked with their
    lemmas (S12c), never believed."""
    ctx.lemmas = derive_lemmas(ctx.transformer, ctx.uses)  # type: ignore[arg-type]
    return match_lemmas(ctx.doc["lemmas"], {x.id: {"id": x.id, "kind": x.kind, "scope": x.scope, "uses": x.uses,
                                                   "smt2": x.text, "where": x.scope} for x in ctx.lemmas},
                        {"id", "kind", "scope", "uses", "smt2"}, {"proof"}, ctx.proofs, 100_000)


def _solvers(ctx: AuditContext) -> list[str]:
    """U5 (``discharge.py``): the kernel's normal form, then the solvers (in worker processes with jobs ≥ 2)."""
    from .solvers import solve_all  # the solver runner: only for lemmas the trust line then names

    def answer(jobs: list[tuple[str, str]]) -> list[str]:
        return solve_all(jobs, ctx.options.timeout_ms, ctx.options.jobs)
    return discharge(ctx, [(f"{x.kind} lemma {x.id} ({x.scope})", x.text) for x in ctx.lemmas], answer,
                     [ctx.proofs.get(x.id) for x in ctx.lemmas], [x.by_structure for x in ctx.lemmas])


AUDIT_CHECKS: tuple[Check, ...] = (
    Check("audit-document", "U1", f"an audit certificate of version {AUDIT_VERSION} that claims a proof", _document),
    Check("audit-transformer", "U1", "the embedded transformer is well-formed and small enough", _transformer),
    Check("audit-hashes", "U1", "the transformer hash is that of the embedded transformer", _hashes),
    Check("audit-pooling", "U2", "every head pools exactly (average, leftmost or rightmost)", _pooling),
    Check("audit-unrolled", "U3", "each U_N is the kernel's own unrolling of T, gate for gate", _unrolled),
    Check("audit-lemmas", "U4", "the certificate's lemmas are exactly the kernel's, with their scopes", _lemmas),
    Check("audit-solvers", "U5", "every lemma is unsat (valid over the reals)", _solvers),
)


def check_audit(doc: dict[str, Any], options: Options) -> Report:
    """Run the audit checks in order; the first failing check ends the run (as ``check_certificate``)."""
    return judge(AuditContext(doc, options), AUDIT_CHECKS,  # type: ignore[arg-type]
                 lambda c: (len(c.lemmas), sum(lemma.uses for lemma in c.lemmas)), audit_theorem)


def audit_theorem(ctx: AuditContext) -> str:
    """The accepted statement in one line (docs/soundness.md, U6)."""
    T = ctx.transformer
    assert T is not None
    lengths = ctx.lengths
    span = (f"{{{lengths[0]}..{lengths[-1]}}}" if lengths == list(range(lengths[0], lengths[-1] + 1))
            and len(lengths) > 2 else "{" + ", ".join(map(str, lengths)) + "}")
    units = sha256_json([ctx.unrolled[n]["sha256"] for n in lengths])
    per_n = sorted({lemma.kind for lemma in ctx.lemmas if lemma.scope != ALL_N})
    all_n = sorted({lemma.kind for lemma in ctx.lemmas if lemma.scope == ALL_N})
    return (f"for every N in {span}, every ordered ring Q ⊆ R ⊆ ℝ and every x ∈ R^(N·{T.dimension}): U_N(x) = T(x) "
            f"for T (sha256 {ctx.doc['hashes']['transformer']}, {counted(len(T.layers), 'layer')}) and its unrollings "
            f"U_N (sha256 of the list {units}); {'/'.join(all_n).upper() or 'no'} lemmas hold for all N, "
            f"{'/'.join(per_n).upper() or 'no'} lemmas were checked per N")
