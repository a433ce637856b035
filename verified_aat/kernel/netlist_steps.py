"""The netlist link by binary steps (docs/soundness.md N′): every netlist signal is one literal c + b·w over a gate
w of C; a gate's literal is built from its operands' by the steps the section states, each proved by a local
identity over at most two wires, or in threshold mode by one sign form."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .context import Context
from .data import Gate, as_dict, as_int, need
from .netlist_form import NGate
from .netlist_parse import open_section
from .problems import Problem
from .sparse_poly import Poly, add, mul

STEP = {"AND": (0, 0, 0, 1), "OR": (0, 1, 1, -1), "XOR": (0, 1, 1, -2)}  # p0 + p1·x + p2·y + p3·x·y
FOLD = {"AND": "AND", "NAND": "AND", "CUBE": "AND", "BUFF": "AND", "NOT": "AND", "CONST1": "AND", "OR": "OR",
        "NOR": "OR", "CONST0": "OR", "XOR": "XOR", "XNOR": "XOR"}  # a constant: a fold of no operand, f's unit
ONE: Poly = {(): 1}


def step_report(ctx: Context) -> tuple[list[Problem | str], str]:
    """(problems, theorem sentence) for a section with ``steps``; a false step is a rejection at its path."""
    C = ctx.original if ctx.original is not None else ctx.circuit  # with a record of C before binarization (B)
    opened = open_section(ctx.doc["netlist"], C, ctx.options.netlist, {"steps"})
    if isinstance(opened, Problem):
        return [opened], ""
    (sec, net), gates, work = opened, list(C.gates), [-4 * len(opened[0]["text"])]  # covers' work past 4 a byte
    threshold = sec["mode"] == "threshold"
    steps = as_dict(sec["steps"], "$.netlist.steps", set(), {g.name for g in net.gates})
    lits: dict[str, Poly] = {s: {(g,): 1} for s, g in zip(net.inputs, C.input_gates)}
    for gate in (g for g in net.gates if g.name in steps):  # a gate without steps is no signal's operand, no output
        need(all(a in lits for a in gate.args), f"$.netlist.steps[{gate.name!r}]", "an operand has no steps")
        lits[gate.name] = _gate(gate, [lits[a] for a in gate.args], steps[gate.name], gates, threshold,
                                f"$.netlist.steps[{gate.name!r}]", work)
    for j, (s, out) in enumerate(zip(net.outputs, C.outputs)):
        need(s in lits and _expand(out, gates, _wires([lits[s]]), f"output {j}") == lits[s], f"$.netlist output {j}",
             "C's output {j} is not signal {s!r}'s literal (or it has no steps)", j=j, s=s)
    what = "the Boolean function" if threshold else "the gate-wise multilinear extension"
    on = f"{{0,1}}^{C.n_inputs}" if threshold else f"all of R^{C.n_inputs}"
    return [], f"C equals {what} of netlist {sec['file']!r} (sha256 {sec['sha256']}) on {on}"


def _gate(gate: NGate, xs: list[Poly], entry: Any, gates: list[Gate], threshold: bool, where: str, work: list[int]) -> Poly:
    """The gate's literal from its operands' literals ``xs``, by its fold, sign form or cover."""
    op = gate.op
    if op == "COVER":
        from .netlist_cover import cover  # BLIF only; it folds and reads literals as here
        return cover(gate, xs, entry, where, lambda ys, e, at: _fold(STEP["AND"], ys, e, gates, at),
                     lambda raw, at, roots: _literal(raw, at, gates, _wires(roots)), work)
    if op == "CUBE":
        xs = [x if lit == "1" else _not(x) for lit, x in zip(gate.cube, xs) if lit != "-"]
    if type(entry) is list and entry and entry[0] == "sign":
        need(threshold and op in ("AND", "NAND", "OR", "NOR", "CUBE") and len(entry) == 2, where,
             "a sign form is for an AND, NAND, OR, NOR or cube in threshold mode: [\"sign\", literal]")
        r = _sign(op not in ("OR", "NOR"), xs, entry[1], gates, where + "[1]")
    else:
        r = _fold(STEP[FOLD[op]], xs, entry, gates, where)
    return _not(r) if op in ("NAND", "NOR", "XNOR", "NOT") or (op == "CUBE" and gate.polarity == 0) else r


def _fold(f: tuple[int, int, int, int], xs: list[Poly], entry: Any, gates: list[Gate], where: str) -> Poly:
    """The root of a tree of binary steps f that reads each operand and each step's result exactly once but the
    last: [i, j, literal] appends f(L[i], L[j]) to L = xs, proved by expanding the literal's wire down to the two
    operands' wires.  f is associative and commutative as a polynomial, so the root is f of all of ``xs``."""
    need(type(entry) is list and len(entry) == max(len(xs) - 1, 0), where,
         "a fold of {k} operands takes {n} steps [i, j, literal]", k=len(xs), n=max(len(xs) - 1, 0))
    L, used = list(xs), set()
    for n, step in enumerate(entry):
        at = f"{where}[{n}]"
        need(type(step) is list and len(step) == 3, at, "expected [i, j, literal]")
        i, j = as_int(step[0], at + "[0]", 0, len(L) - 1), as_int(step[1], at + "[1]", 0, len(L) - 1)
        need(i != j and i not in used and j not in used, at, "operand {i} or {j} is read twice", i=i, j=j)
        used |= {i, j}
        p0, p1, p2, p3 = f
        lit, value = _literal(step[2], at + "[2]", gates, _wires([L[i], L[j]]))
        need(value == add(add(add({(): p0} if p0 else {}, L[i], p1), L[j], p2), mul(L[i], L[j]), p3), at,
             "the step's literal is not f(L[{i}], L[{j}])", i=i, j=j)
        L.append(lit)
    return L[-1] if L else ONE if f == STEP["AND"] else {}  # no operand: f's unit


def _sign(conj: bool, xs: list[Poly], raw: Any, gates: list[Gate], where: str) -> Poly:
    """conj + b·w with w = sign(A) and b·A a positive multiple of S = Σ xs − k (AND) or Σ xs (OR): on 0/1 values
    1 + sign(S) is their AND and sign(S) their OR (docs/soundness.md N′); a constant: S is one, conj + sign(S)."""
    s: Poly = {} if not conj else {(): -len(xs)}
    for x in xs:
        add(s, x)
    lit, _ = _literal(raw, where, gates, None)
    w, b = next(((m[0], v) for m, v in lit.items() if m), (None, 0))
    if w is None:
        k = conj + (s.get((), 0) > 0) - (s.get((), 0) < 0)
        need(set(s) <= {()} and lit == ({(): k} if k else {}), where, "the sign form's constant is not conj + sign(S)")
        return lit
    need(gates[w].op == "sign" and lit.get((), 0) == conj, where, "expected [{c}, ±1, a sign gate]", c=int(conj))
    t = add({}, _expand(gates[w].args[0], gates, _wires(xs), where), b)
    ratios = {Fraction(s[m]) / t[m] for m in s if m in t}
    need(s.keys() == t.keys() and len(ratios) <= 1 and all(r > 0 for r in ratios), where,
         "the sign gate's argument times b is not a positive multiple of the operands' sum{less}", less=" − k" * conj)
    return lit


def _literal(raw: Any, where: str, gates: list[Gate], leaves: set[int] | None) -> tuple[Poly, Poly | None]:
    """A literal [c] or [c, b, w] (c ∈ {0, 1}, b = ±1, w a gate): c + b·w, and c + b·(w expanded over ``leaves``)."""
    need(type(raw) is list and len(raw) in (1, 3), where, "expected a literal [c] or [c, b, w]")
    c: Poly = {(): 1} if as_int(raw[0], where + "[0]", 0, 1) else {}
    if len(raw) == 1:
        return c, c
    need(raw[1] in (1, -1) and type(raw[1]) is int, where + "[1]", "b must be 1 or -1")
    w = as_int(raw[2], where + "[2]", 0, len(gates) - 1)
    return add(dict(c), {(w,): 1}, raw[1]), None if leaves is None else add(dict(c), _expand(w, gates, leaves, where), raw[1])


def _expand(root: int, gates: list[Gate], leaves: set[int], where: str) -> Poly:
    """The polynomial of gate ``root`` over the wires ``leaves``: const, add and mul gates are expanded, within
    16 + 4·|leaves| arguments read and degree 2; any other gate on the way is a rejection."""
    memo: dict[int, Poly] = {}
    budget = [16 + 4 * len(leaves)]

    def of(g: int) -> Poly:
        if g in leaves:
            return {(g,): 1}
        if g not in memo:
            op, args, value, _ = gates[g]
            budget[0] -= 1 + len(args)
            need(budget[0] >= 0 and op in ("const", "add", "mul"), where,
                 "gate {g} does not expand to the operands' wires {leaves} within the bound", g=root, leaves=sorted(leaves))
            out: Poly = ({(): value} if value else {}) if op == "const" else {} if op == "add" else ONE
            for a in args:  # a product's term pairs count against the bound too (a forged sign's two wide sums)
                x, budget[0] = of(a), budget[0] - (0 if op == "add" else len(out) * len(of(a)) // 2)  # 1·1: free
                out = add(out, x) if op == "add" else mul(out, x) if budget[0] >= 0 else {}
                need(op == "add" or budget[0] >= 0 and all(len(m) <= 2 for m in out), where,
                     "gate {g} expands past degree 2 or the bound", g=root)
            memo[g] = out
        return memo[g]
    return of(root)


def _wires(xs: list[Poly]) -> set[int]:
    return {g for x in xs for m in x for g in m}


def _not(x: Poly) -> Poly:
    return add({(): 1}, x, -1)
