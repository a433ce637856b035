"""Red team round 15: the netlist link in all four formats, with forged sections made consistent.

Two attacks whose theorem is false (checked here by evaluating C and the netlist on all of {0,1}^n):

- *transplant*: the netlist edited in one gate (an inverted operand, AND <-> XOR), and the section the engine
  makes for the edited netlist's own circuit C' moved onto C, C' copied gate for gate into shadow gates: every
  annotation and candidate lemma is true (about the copy), only the output lemmas (c) C.out_j = C'.out_j are false.
  Rejected in both modes, with Z3 and with a solver that answers unsat to everything (S12d finds the model).
- *point flip*: C's output 0 replaced by out + d - 2·out·d with d = 1 - sign(sum_i (x_i - b_i)^2), which differs
  from the netlist at the one point b of {0,1}^n. In threshold mode the output lemma (c) is left to the solvers:
  Z3 rejects it, --no-solver-trust leaves it not checked. A lying solver's unsat gets it accepted (45 of 80 such
  forgeries, all 28 with more than 7 inputs: S12d's seeded points do not hit one point among 2^n); the verdict then
  names the lemma in its trust line, which is what this test pins (docs/soundness.md S12d, its limit).
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.link_section import netlist_section
from verified_aat.kernel import solvers
from verified_aat.kernel.context import Context
from verified_aat.kernel.data import Malformed, load_circuit
from verified_aat.kernel.netlist_link import link_report
from verified_aat.kernel.report import Options

pytestmark = pytest.mark.usefixtures("candidate_link")  # the link by candidates (netlist_link.py): its tests


def _netlist(rng: random.Random, n: int, size: int) -> list[tuple[str, int, int, int, int]]:
    """Random gates (op, a, inverted a, b, inverted b) over the inputs and earlier gates; the last is the output."""
    return [(rng.choice(["AND", "XOR"]), *(v for _ in range(2) for v in (rng.randrange(n + k), rng.randrange(2))))
            for k in range(size)]


def _value(n: int, gates: list, x: tuple[int, ...]) -> int:  # our own evaluation of the netlist
    v = list(x)
    for op, a, ia, b, ib in gates:
        v.append((v[a] ^ ia) & (v[b] ^ ib) if op == "AND" else v[a] ^ ia ^ v[b] ^ ib)
    return v[-1]


def _text(fmt: str, n: int, gates: list) -> str:
    name = [f"x{i}" for i in range(n)] + [f"g{k}" for k in range(len(gates))]
    if fmt == "bench":
        lines = [f"INPUT(x{i})" for i in range(n)] + ["OUTPUT(o)"]
        for k, (op, a, ia, b, ib) in enumerate(gates):
            args = [f"n{k}_{j}" if inv else name[s] for j, (s, inv) in enumerate(((a, ia), (b, ib)))]
            lines += [f"n{k}_{j} = NOT({name[s]})" for j, (s, inv) in enumerate(((a, ia), (b, ib))) if inv]
            lines.append(f"g{k} = {op}({args[0]}, {args[1]})")
        return "\n".join(lines + [f"o = BUFF(g{len(gates) - 1})"]) + "\n"
    if fmt == "blif":
        lines = [".model r", ".inputs " + " ".join(name[:n]), ".outputs o"]
        for k, (op, a, ia, b, ib) in enumerate(gates):
            lines.append(f".names {name[a]} {name[b]} g{k}")
            lines += [f"{1 - ia}{1 - ib} 1"] if op == "AND" else [f"{ia}{1 - ib} 1", f"{1 - ia}{ib} 1"]
        return "\n".join(lines + [f".names g{len(gates) - 1} o", "1 1", ".end"]) + "\n"
    if fmt == "aiger":  # an XOR as three ANDs
        lit, ands = [2 * (i + 1) for i in range(n)], []

        def new(p: int, q: int) -> int:
            ands.append((2 * (n + 1 + len(ands)), p, q))
            return ands[-1][0]
        for op, a, ia, b, ib in gates:
            p, q = lit[a] ^ ia, lit[b] ^ ib
            lit.append(new(p, q) if op == "AND" else new(new(p, q ^ 1) ^ 1, new(p ^ 1, q) ^ 1) ^ 1)
        return "\n".join([f"aag {n + len(ands)} {n} 0 1 {len(ands)}", *map(str, lit[:n]), str(lit[-1]),
                          *(f"{x} {y} {z}" for x, y, z in ands)]) + "\n"
    lines, wire = [], list(range(n))  # Bristol Fashion: n one-bit inputs, one one-bit output
    for op, a, ia, b, ib in gates:
        ends = []
        for s, inv in ((a, ia), (b, ib)):
            if inv:
                lines.append(f"1 1 {wire[s]} {n + len(lines)} INV")
            ends.append(n + len(lines) - 1 if inv else wire[s])
        lines.append(f"2 1 {ends[0]} {ends[1]} {n + len(lines)} {op}")
        wire.append(n + len(lines) - 1)
    lines.append(f"1 1 {wire[-1]} {n + len(lines)} EQW")
    return f"{len(lines)} {n + len(lines)}\n{n} {' '.join(['1'] * n)}\n1 1\n\n" + "\n".join(lines) + "\n"


EXT = {"bench": ".bench", "blif": ".blif", "aiger": ".aag", "bristol": ".txt"}


def _imported(tmp: Path, fmt: str, mode: str, n: int, gates: list) -> tuple[dict, dict]:
    path = tmp / f"{fmt}{len(list(tmp.iterdir()))}{EXT[fmt]}"
    path.write_text(_text(fmt, n, gates))
    circuit = import_netlist(str(path), mode, None)
    return json.loads(canonical_circuit_bytes(circuit)), netlist_section(circuit)


def _verdict(circuit: dict, section: dict, lying: bool = False, trust: bool = True) -> tuple[str, Context]:
    real = dict(solvers.SOLVERS)
    if lying:
        solvers.SOLVERS.update({name: (lambda text, timeout_ms: solvers.UNSAT) for name in real})
    ctx = Context({"netlist": section}, Options(solver_trust=trust))
    ctx.circuit = load_circuit(circuit, "$.circuit", extra_keys={"format", "version", "domain"})
    try:
        problems, theorem, _ = link_report(ctx)
    except Malformed:
        return "rejected", ctx
    finally:
        solvers.SOLVERS.update(real)
    return ("rejected" if problems else "not checked" if ctx.unchecked else "accepted"), ctx


def _evaluate(circuit: dict, x: tuple[int, ...]) -> Fraction:  # our own evaluation of C's output 0
    v: list[Fraction] = []
    for op, arg in circuit["gates"]:
        if op in ("input", "const"):
            v.append(Fraction(x[arg] if op == "input" else arg))
        elif op == "sign":
            v.append(Fraction((v[arg[0]] > 0) - (v[arg[0]] < 0)))
        elif op == "add":
            v.append(sum((v[a] for a in arg), Fraction(0)))
        else:
            v.append(Fraction(1))
            for a in arg:
                v[-1] *= v[a]
    return v[circuit["outputs"][0]]


def _shifted(section: dict, start: int, by: int) -> dict:
    """The section with every gate number from ``start`` on moved up by ``by`` (the shadow gates behind C)."""
    s = json.loads(json.dumps(section))
    move = lambda g: g + by if g >= start else g  # noqa: E731
    form = lambda f: [f[0], [[move(g), c] for g, c in f[1]]]  # noqa: E731
    s["shadow"] = [e if e[0] == "const" else [e[0], [move(a) for a in e[1]]] for e in s["shadow"]]
    s["annotations"] = [[move(t), form(f), [move(g) for g in cut]] for t, f, cut in s["annotations"]]
    s["signals"] = {k: [[form(f), o] for f, o in v] for k, v in s["signals"].items()}
    return s


def _transplant(circuit: dict, other: dict, section: dict) -> dict:
    """``section`` (made for ``other``) on ``circuit``: other's gates copied after circuit's as shadow gates."""
    start, copy_of = len(circuit["gates"]), {}
    inputs = {arg: g for g, (op, arg) in enumerate(circuit["gates"]) if op == "input"}
    shadow: list = []
    for g, (op, arg) in enumerate(other["gates"] + section["shadow"]):
        if op == "input":
            copy_of[g] = inputs[arg]
            continue
        copy_of[g] = start + len(shadow)
        shadow.append([op, arg] if op == "const" else [op, [copy_of[a] for a in arg]])
    form = lambda f: [f[0], sorted([copy_of[g], c] for g, c in f[1])]  # noqa: E731
    return dict(section, shadow=shadow, signals={k: [[form(f), o] for f, o in v] for k, v in section["signals"].items()},
                annotations=sorted([copy_of[t], form(f), sorted(copy_of[g] for g in cut)]
                                   for t, f, cut in section["annotations"]))


@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("fmt", sorted(EXT))
def test_a_section_moved_from_an_edited_netlist_is_rejected(tmp_path: Path, fmt: str, mode: str) -> None:
    rng, tried = random.Random(f"{fmt} {mode}"), 0
    while tried < 3:
        n = rng.randint(3, 6)
        gates = _netlist(rng, n, rng.randint(4, 9))
        edited = list(gates)
        k = rng.randrange(len(gates))
        op, a, ia, b, ib = gates[k]
        edited[k] = rng.choice([("XOR" if op == "AND" else "AND", a, ia, b, ib), (op, a, 1 - ia, b, ib)])
        points = list(itertools.product((0, 1), repeat=n))
        if all(_value(n, gates, x) == _value(n, edited, x) for x in points):
            continue
        tried += 1
        circuit, _ = _imported(tmp_path, fmt, mode, n, gates)
        other, section = _imported(tmp_path, fmt, mode, n, edited)
        assert any(_evaluate(circuit, x) != _value(n, edited, x) for x in points)  # the theorem is false
        forged = _transplant(circuit, other, section)
        assert _verdict(other, section)[0] == "accepted"  # the section is honest about its own circuit
        assert _verdict(circuit, forged)[0] == "rejected"
        assert _verdict(circuit, forged, lying=True)[0] == "rejected"


@pytest.mark.parametrize("fmt", sorted(EXT))
def test_a_point_flip_is_rejected_by_z3_not_checked_without_trust_and_named_when_a_solver_lies(tmp_path: Path,
                                                                                               fmt: str) -> None:
    rng = random.Random(fmt)
    n = 9
    gates = _netlist(rng, n, 8)
    circuit, section = _imported(tmp_path, fmt, "threshold", n, gates)
    b = [rng.randrange(2) for _ in range(n)]
    g = circuit["gates"]
    start = len(g)

    def new(gate: list) -> int:
        g.append(gate)
        return len(g) - 1
    one, minus = new(["const", "1"]), new(["const", "-1"])
    inputs = {arg: k for k, (op, arg) in enumerate(g) if op == "input"}
    squares = []
    for i, bit in enumerate(b):
        d = new(["add", [inputs[i], minus]]) if bit else inputs[i]
        squares.append(new(["mul", [d, d]]))
    delta = new(["add", [one, new(["mul", [minus, new(["sign", [new(["add", squares])]])]])]])
    out = circuit["outputs"][0]
    circuit["outputs"][0] = new(["add", [out, delta, new(["mul", [new(["const", "-2"]), new(["mul", [out, delta]])]])]])
    forged = _shifted(section, start, len(g) - start)
    wrong = [x for x in itertools.product((0, 1), repeat=n) if _evaluate(circuit, x) != _value(n, gates, x)]
    assert wrong == [tuple(b)]  # the theorem is false, at b alone
    assert _verdict(circuit, forged)[0] == "rejected"
    assert _verdict(circuit, forged, trust=False)[0] == "not checked"
    outcome, ctx = _verdict(circuit, forged, lying=True)
    assert outcome != "accepted" or any("netlist-link lemma" in entry for entry in ctx.solver_only)
