"""The kernel's check of an all-N audit certificate: U_N = T for every length N ≥ 1 (docs/soundness.md, V1–V7).

An all-N certificate (format ``verified-aat/audit-family-certificate``) embeds T, the uniform family
(the index ranges and gadgets of the unrolling, as data), U_N's measures (size as a polynomial in N,
depth, class) and lemmas that mention no N.  The kernel trusts none of it:

* the family must be :data:`FAMILY`, the description of the kernel's own unroller (:mod:`.unroll`);
  any other family (a changed range, a changed gadget) is a rejection (V2);
* it re-derives the measures from T: the non-constant gate count is a cubic in N (every loop of the
  unroller runs over at most three indices in 0 … N with bodies that do not depend on N), so the
  kernel unrolls at N = 1 … 4, interpolates, and also requires N = 5 to agree; the constants are
  those of U_1 and the reciprocal constants 1/m, −m; the depth is that of U_2 (V3);
* it derives the N-free lemmas itself — COPY and BILINEAR per distinct circuit, GT, the flag-sum
  step, NONE, SELECT, the indicator product and the RECIP step — and the certificate's list must be
  exactly its own (V4); every lemma is decided as S12 (V5).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from .audit_proof import (
    ALL_N,
    AuditContext,
    Lemma,
    _gadget,
    _hashes,
    _pooling,
    _solvers,
    _text,
    read_header,
    reciprocal_lemmas,
    bilinear_lemma,
    copy_lemma,
    gt_lemma,
)
from .agreement import match_lemmas
from .rules import Check, judge, sha256_json
from .data import Bilinear, Circuit, Transformer, counted, load_transformer, within
from .problems import Problem
from .report import Options, Report
from .unroll import Builder, depth, none, select, unroll

FAMILY_FORMAT = "verified-aat/audit-family-certificate"
FAMILY_VERSION = 1
TOP = {"format", "version", "claim", "info", "transformer", "hashes", "family", "measures", "lemmas", "result"}
MAX_GATES_AT_5 = 2_000_000   # U_5 is built to pin the size formula: T must be small enough for that

# The uniform family U_N of kernel/unroll.py (MATH.md §5), with i, j, k positions in 0 … N−1 and
# m in 1 … N.  A range is the half-open [from, to) of its sum's index, minus ``except``; a gadget is
# its gates in order, each [op, arg, …] with an argument a named input, an earlier gate's number, or
# a constant "c:q" (q may mention m).  `audit/family.py` instantiates any family (the engine's,
# or a deliberately changed one) at a given N; the kernel accepts only this one.
FAMILY: dict[str, Any] = {
    "generator": "verified-aat/unroll-v1 (MATH.md §5; kernel/unroll.py)",
    "indices": {"i, j, k": "positions 0 … N−1", "m": "1 … N"},
    "ranges": {
        "argmax": {"index": "k", "from": "0", "to": "N", "except": "j"},   # M_ij = NONE(Σ_k GT(s_ik, −s_ij))
        "count": {"index": "j", "from": "0", "to": "N"},                  # c_i = Σ_j M_ij
        "pool": {"index": "j", "from": "0", "to": "N"},                   # Σ_j M_ij·x_j[c] and Σ_j L_ij·x_j[c]
        "reciprocal": {"index": "m", "from": "1", "to": "N+1"},           # r_i = Σ_m (1/m)·[c_i = m]
        "leftmost": {"index": "k", "from": "0", "to": "j"},               # P_ij = Σ_{k<j} M_ik
        "rightmost": {"index": "k", "from": "j+1", "to": "N"},            # P_ij = Σ_{k>j} M_ik
    },
    "gadgets": {
        "negate": {"inputs": ["s_j"], "gates": [["mul", "c:-1", "s_j"]]},
        "gt": {"inputs": ["s_k", "s_j", "neg_j"],
               "gates": [["add", "s_k", "neg_j"], ["sign", 0], ["mul", 1, 1], ["add", 2, 1], ["mul", "c:1/2", 3]]},
        "none": {"inputs": ["sum"], "gates": [["sign", "sum"], ["mul", "c:-1", 0], ["add", "c:1", 1]]},
        "is_zero": {"inputs": ["v"], "gates": [["sign", "v"], ["mul", 0, 0], ["mul", "c:-1", 1], ["add", "c:1", 2]]},
        "reciprocal_term": {"inputs": ["count"], "constants": ["1/m", "-m"],
                            "gates": [["add", "count", "c:-m"], ["is_zero", 0], ["mul", "c:1/m", 1]]},
        "select": {"inputs": ["mark", "prefix"], "gates": [["is_zero", "prefix"], ["mul", "mark", 0]]},
        "average": {"inputs": ["sum", "reciprocal"], "gates": [["mul", "sum", "reciprocal"]]},
    },
}


# -- lemmas that mention no N ------------------------------------------------------------------

def _NONNEGATIVE(v: str) -> list[str]:
    """v ≥ 0, twice: as an order fact and as sgn(v) ≠ −1 (the form a case t < 0 of a proof object refutes)."""
    return [f"(>= {v} 0.0)", f"(not (= (sgn {v}) (- 1.0)))"]


def flag_sum_lemma() -> Lemma:
    """The step of the induction over the terms of a sum of flags in {0, 1} (its base: the empty add is 0):
    if S ≥ 0 then S + g ≥ 0, and S + g = 0 exactly when S = 0 and g = 0 — said as sign(S + g)."""
    claim = "(= (sgn (+ S g)) (ite (and (= S 0.0) (= g 0.0)) 0.0 1.0))"
    return Lemma("flag-sum", ALL_N, _text("FLAG-SUM step", [], ["S", "g"],
                                          [*_NONNEGATIVE("S"), "(or (= g 0.0) (= g 1.0))"], claim), 0)


def none_lemma() -> Lemma:
    """NONE on a sum S ≥ 0 of flags: 1 + (−1)·sign(S) is 1 exactly when S = 0."""
    b = Builder()
    defs, (m,) = _gadget(b, [none(b, [b.input()])], ["S"])
    return Lemma("none", ALL_N, _text("NONE", defs, ["S"], _NONNEGATIVE("S"), f"(= {m} (ite (= S 0.0) 1.0 0.0))"), 0)


def select_lemma() -> Lemma:
    """SELECT: for a mark m in {0, 1} and a prefix sum P ≥ 0 of marks, m·[P = 0] = [m = 1 and P = 0]."""
    b = Builder()
    prefix, mark = b.input(), b.input()
    defs, (sel,) = _gadget(b, [select(b, [prefix, mark], 1, True)], ["P", "m"])
    claim = f"(= {sel} (ite (and (= m 1.0) (= P 0.0)) 1.0 0.0))"
    return Lemma("select", ALL_N, _text("SELECT", defs, ["P", "m"], [*_NONNEGATIVE("P"), "(or (= m 0.0) (= m 1.0))"],
                                        claim), 0)


def indicator_lemma() -> Lemma:
    """A mark M in {0, 1} times a value x is x when M = 1, else 0 (the terms of the pooled sums)."""
    claim = "(= (* M x) (ite (= M 1.0) x 0.0))"
    return Lemma("indicator", ALL_N, _text("INDICATOR", [], ["M", "x"], ["(or (= M 0.0) (= M 1.0))"], claim), 0)


def derive_family_lemmas(T: Transformer) -> list[Lemma]:
    """The lemmas U_N rests on for every N: per distinct score / activation circuit, then the gadgets."""
    seen: dict[object, Circuit | Bilinear] = {}
    heads = False
    averages = False
    for layer in T.layers:
        for head in layer.heads:
            heads = True
            averages = averages or head.pooling == "average"
            seen.setdefault(("bilinear", head.score.entries) if isinstance(head.score, Bilinear)
                            else ("copy", head.score_key), head.score)
        seen.setdefault(("copy", ("f", layer.key[1])), layer.activation)
    lemmas = [bilinear_lemma(f, T.dimension, 0) if isinstance(f, Bilinear)  # type: ignore[arg-type]
              else copy_lemma(f, f"function {key[1][1]}", 0) for key, f in seen.items()]  # type: ignore[index]
    if heads:
        lemmas += [gt_lemma(0), flag_sum_lemma(), none_lemma(), indicator_lemma()]
        if any(h.pooling != "average" for layer in T.layers for h in layer.heads):
            lemmas.append(select_lemma())
    if averages:
        lemmas += reciprocal_lemmas(0)
    return lemmas


# -- measures ----------------------------------------------------------------------------------

def _interpolate(points: list[tuple[int, int]]) -> list[Fraction]:
    """The coefficients (degree 0 first) of the polynomial of degree < len(points) through them."""
    coeffs = [Fraction(0)] * len(points)
    for a, (xa, ya) in enumerate(points):
        basis = [Fraction(1)]  # Π_{b≠a} (N − x_b)/(x_a − x_b)
        for b, (xb, _) in enumerate(points):
            if b != a:
                shifted = [Fraction(0)] + basis
                basis = [s - xb * c for s, c in zip(shifted, basis + [Fraction(0)])]
                basis = [c / (xa - xb) for c in basis]
        coeffs = [c + ya * t for c, t in zip(coeffs, basis)]
    return coeffs


def derive_measures(T: Transformer) -> dict[str, Any]:
    """Size, depth and class of U_N for every N, from the kernel's unrollings at N = 1 … 5 (V3)."""
    ops, constants, depths, ops_kinds = {}, {}, {}, set()
    for n in range(1, 6):
        b = unroll(T, n)
        values = {g.value for g in b.gates if g.op == "const"}
        constants[n] = values
        ops[n] = len(b.gates) - len(values)
        depths[n] = depth(b)
        ops_kinds |= {(g.op, len(g.args) if g.op == "mul" else 0) for g in b.gates}
    cubic = _interpolate([(n, ops[n]) for n in range(1, 5)])
    predicted = sum(c * 5 ** e for e, c in enumerate(cubic))
    averages = any(h.pooling == "average" for layer in T.layers for h in layer.heads)
    base = constants[1]
    shared = sorted((str(q) for q in base if _reciprocal_index(q)), key=lambda q: (_reciprocal_index(q), q)) \
        if averages else []
    return {"gates_cubic": [str(c) for c in cubic], "gates_at_5": ops[5], "gates_predicted_at_5": str(predicted),
            "constants_at_1": len(base), "reciprocal_constants": averages,
            "reciprocal_constants_already_there": [str(m) for m in shared],
            "constants_at_5": len(constants[5]), "depth": depths[2], "depth_at_1": depths[1],
            "depth_at_3": depths[3], "depth_at_5": depths[5],
            "gate_kinds": sorted(f"{op}/{k}" if op == "mul" else op for op, k in ops_kinds)}


def _reciprocal_index(q: Any) -> int:
    """m ≥ 2 when q is 1/m or −m (a constant RECIP creates at N ≥ m), else 0."""
    q = Fraction(q)
    if q.numerator == 1 and q.denominator >= 2:
        return q.denominator
    return -q.numerator if q.denominator == 1 and q <= -2 else 0


def constants_at(measures: dict[str, Any], n: int) -> int:
    """|constants of U_N|: those of U_1, plus 1/m and −m for 2 ≤ m ≤ N unless U_1 has them already."""
    if not measures["reciprocal_constants"]:
        return measures["constants_at_1"]
    absorbed = sum(1 for q in measures["reciprocal_constants_already_there"] if _reciprocal_index(q) <= n)
    return measures["constants_at_1"] + 2 * max(0, n - 1) - absorbed


# -- the checks --------------------------------------------------------------------------------

def _document(ctx: AuditContext) -> list[str]:
    read_header(ctx, TOP, FAMILY_FORMAT, FAMILY_VERSION, "all-N audit")
    return []


def too_large(T: Transformer) -> str | None:
    """Why the kernel refuses to build U_1 … U_5 for T (the bound is computed from T alone), or None."""
    at5 = sum(sum(25 * (36 + T.dimension + _size(h.score)) for h in layer.heads) + 5 * _size(layer.activation)
              for layer in T.layers)
    return None if at5 <= MAX_GATES_AT_5 else (f"U_5 would have about {at5} gates, past the kernel's "
                                               f"{MAX_GATES_AT_5} for all-N certificates")


def _transformer(ctx: AuditContext) -> list[str]:
    T = ctx.transformer = load_transformer(ctx.doc["transformer"])
    problem = too_large(T)
    within(problem is None, "$.transformer", str(problem))  # a size limit: *not checked*, never a rejection
    return []


def _size(f: Circuit | Bilinear) -> int:
    return 2 * len(f.entries) + 1 if isinstance(f, Bilinear) else sum(max(1, len(g.args)) for g in f.gates)


def _family(ctx: AuditContext) -> list[str]:
    given = ctx.doc["family"]
    if json.dumps(given, sort_keys=True) == json.dumps(FAMILY, sort_keys=True):
        return []
    if type(given) is not dict:
        return ["$.family: expected the family object"]
    parts = [f"{part}.{name}" for part in ("ranges", "gadgets") for name in sorted(FAMILY[part])
             if type(given.get(part)) is not dict or given[part].get(name) != FAMILY[part][name]]
    extra = sorted(set(given) - set(FAMILY))
    return [Problem("$.family is not the kernel's unrolling: it differs at {at:80} (the kernel proves only its own "
                    "uniform family, kernel/unroll.py)", {"at": ", ".join(parts or extra) or "its header"})]


def _measures(ctx: AuditContext) -> list[str]:
    mine = ctx.measures = derive_measures(ctx.transformer)  # type: ignore[arg-type]
    problems = []
    if Fraction(mine["gates_predicted_at_5"]) != mine["gates_at_5"]:
        problems.append(f"U_5 has {mine['gates_at_5']} non-constant gates, not the cubic's "
                        f"{mine['gates_predicted_at_5']}: the size is not a cubic in N (a kernel bug)")
    if constants_at(mine, 5) != mine["constants_at_5"]:
        problems.append(f"U_5 has {mine['constants_at_5']} constants, not {constants_at(mine, 5)} (a kernel bug)")
    if not (mine["depth_at_1"] <= mine["depth"] == mine["depth_at_3"] == mine["depth_at_5"]):
        problems.append(f"the depth of U_N depends on N: {mine['depth_at_1']}, {mine['depth']}, {mine['depth_at_3']}, "
                        f"{mine['depth_at_5']} at N = 1, 2, 3, 5 (a kernel bug)")
    if set(mine["gate_kinds"]) - {"input", "const", "add", "sign", "mul/2"}:
        problems.append(f"U_N has gates outside FSAC⁰[sign]: {mine['gate_kinds']}")
    given = ctx.doc["measures"]
    if json.dumps(given, sort_keys=True) != json.dumps(mine, sort_keys=True):
        keys = sorted(k for k in mine if type(given) is not dict or given.get(k) != mine[k])
        problems.append(Problem("$.measures differ from the kernel's at {at:80} (kernel: cubic {gates_cubic}, depth "
                                "{depth})", {**mine, "at": ", ".join(keys) or "extra keys"}))
    return problems


def _lemmas(ctx: AuditContext) -> list[Problem]:
    """V4 (``agreement.py``, which can only reject), as U4."""
    ctx.lemmas = derive_family_lemmas(ctx.transformer)  # type: ignore[arg-type]
    return match_lemmas(ctx.doc["lemmas"], {x.id: {"id": x.id, "kind": x.kind, "smt2": x.text} for x in ctx.lemmas},
                        {"id", "kind", "smt2"}, {"proof"}, ctx.proofs, 100_000)


FAMILY_CHECKS: tuple[Check, ...] = (
    Check("family-document", "V1", "an all-N audit certificate of version 1 that claims a proof", _document),
    Check("family-transformer", "V1", "the embedded transformer is well-formed and small enough", _transformer),
    Check("family-hashes", "V1", "the transformer hash is that of the embedded transformer", _hashes),
    Check("family-pooling", "V1", "every head pools exactly (average, leftmost or rightmost)", _pooling),
    Check("family-generator", "V2", "the uniform family is the kernel's unrolling, range for range", _family),
    Check("family-measures", "V3", "size, depth and class of U_N are the kernel's, for every N", _measures),
    Check("family-lemmas", "V4", "the certificate's lemmas are exactly the kernel's N-free lemmas", _lemmas),
    Check("family-solvers", "V5", "every lemma is valid over the reals", _solvers),
)


def check_audit_family(doc: dict[str, Any], options: Options) -> Report:
    """Run the all-N checks in order; the first failing check ends the run."""
    return judge(AuditContext(doc, options), FAMILY_CHECKS,  # type: ignore[arg-type]
                 lambda c: (len(c.lemmas), len(c.lemmas)), family_theorem)


def size_text(measures: dict[str, Any]) -> str:
    """gates(N) as a polynomial, e.g. ``5N³ + 12N² + 3N + 7``, constants included (for N past the shared ones)."""
    cubic = [Fraction(c) for c in measures["gates_cubic"]]
    if measures["reciprocal_constants"]:
        cubic[1] += 2
        cubic[0] += measures["constants_at_1"] - 2 - len(measures["reciprocal_constants_already_there"])
    else:
        cubic[0] += measures["constants_at_1"]
    terms = [(c, e) for e, c in reversed(list(enumerate(cubic))) if c]
    text = " + ".join(f"{c}{['', 'N', 'N²', 'N³'][e]}" if e and c != 1 else (['', 'N', 'N²', 'N³'][e] or str(c))
                      for c, e in terms).replace("+ -", "− ")
    return text or "0"


def family_theorem(ctx: AuditContext) -> str:
    """The accepted statement in one line (docs/soundness.md, V6)."""
    T = ctx.transformer
    assert T is not None
    m = ctx.measures
    shared = m["reciprocal_constants_already_there"]
    from_n = f" for N ≥ {max(map(_reciprocal_index, shared))}" if shared else ""
    return (f"for every N ≥ 1, every ordered ring Q ⊆ R ⊆ ℝ and every x ∈ R^(N·{T.dimension}): U_N(x) = T(x) "
            f"for T (sha256 {ctx.doc['hashes']['transformer']}, {counted(len(T.layers), 'layer')}) and its uniform "
            f"unrolling U_N (family sha256 {sha256_json(FAMILY)}); U_N is an FSAC⁰[sign] circuit (unbounded "
            f"add, binary mul, sign) of depth {m['depth']} for every N ≥ 2 (≤ {m['depth']} at N = 1) and "
            f"size {size_text(m)}{from_n}; {counted(len(ctx.lemmas), 'lemma')}, none of which mentions N")
