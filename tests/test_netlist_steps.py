"""The netlist link by binary steps (``kernel/netlist_steps.py``, ``kernel/netlist_cover.py``;
``circuits/step_section.py`` writes it): honest sections of ISCAS, Bristol, AIGER and BLIF netlists (covers too) are
accepted in both modes; forged ones are rejected — a wrong gate type in the netlist text, a step's literal off by
one, a tree that reads an operand twice or drops one, a sign form whose sum is off by one (wrong k), a sign form in
exact mode, a wire that does not expand to its step's operands, swapped outputs, cubes that meet or miss a row.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from functools import lru_cache
from pathlib import Path

import pytest

from netlist_helpers import FULL_ADDER, SHARED, needs_shared
from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.link_section import netlist_section
from verified_aat.kernel.context import Context
from verified_aat.kernel.data import Gate, Malformed, load_circuit
from verified_aat.kernel.netlist_steps import step_report
from verified_aat.kernel.report import Options

ROOT = Path(__file__).resolve().parent.parent
C17, C432 = SHARED / "iscas85" / "c17.bench", SHARED / "iscas85" / "c432.bench"
COVER = """.model cov
.inputs a b c d
.outputs y z u v w
.names a b c y
1-1 1
11- 1
0-0 1
.names a b c d z
1--1 0
-11- 0
.names a b u
00 1
.names a b v
00 0
.names y z d w
1-1 1
-00 1
111 1
.end
"""
WIDE = "INPUT(a)\nINPUT(b)\nINPUT(c)\nINPUT(d)\nINPUT(e)\nOUTPUT(g)\nOUTPUT(h)\ng = AND(a, b, c, d, e)\nh = XOR(a, b, c, d)\n"
DEAD = "INPUT(a)\nINPUT(b)\nOUTPUT(g)\ng = NAND(a, b)\nx = XOR(a, b)\n"  # x is read by no output: it has no steps


@lru_cache(maxsize=None)
def _imported(path: str, mode: str) -> Circuit:
    return import_netlist(path, mode, steps=True)


def imported(tmp: Path | None, name: str, text: str | None, mode: str) -> tuple[Circuit, dict]:
    """The circuit and a copy of its step section, for a shared file (``text`` None) or the given text."""
    if text is not None:
        assert tmp is not None
        (tmp / name).write_text(text)
        circuit = import_netlist(str(tmp / name), mode, steps=True)
    else:
        circuit = _imported(name, mode)
    section = netlist_section(circuit)
    assert section is not None and "steps" in section
    return circuit, copy.deepcopy(section)


def run(circuit: Circuit, section: dict, edit=None) -> tuple[list[str], str]:
    ctx = Context({"netlist": section}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    if edit is not None:
        ctx.circuit = edit(ctx.circuit)
    try:
        problems, theorem = step_report(ctx)
    except Malformed as exc:  # a false step is a rejection at its path (rules.run_checks)
        return [str(exc)], ""
    return [getattr(p, "detail", p) for p in problems], theorem


def accepted(circuit: Circuit, section: dict) -> str:
    problems, theorem = run(circuit, section)
    assert not problems and theorem, problems
    return theorem


def rejected(circuit: Circuit, section: dict, *words: str, edit=None) -> str:
    problems, theorem = run(circuit, section, edit)
    assert problems and not theorem
    assert any(all(w in p for w in words) for p in problems), problems
    return problems[0]


def with_text(section: dict, text: str) -> dict:
    section["text"], section["sha256"] = text, hashlib.sha256(text.encode()).hexdigest()
    return section


# -- honest sections ----------------------------------------------------------------------------------------

@needs_shared
@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("path", [C17, C432])
def test_iscas_accepted(path: Path, mode: str) -> None:
    circuit, section = imported(None, str(path), None, mode)
    theorem = accepted(circuit, section)
    assert ("Boolean function" if mode == "threshold" else "multilinear extension") in theorem
    if mode == "threshold" and path == C432:
        assert any(entry[:1] == ["sign"] for entry in section["steps"].values())  # sign forms are checked


SHARED_NETLISTS = sorted(str(p.relative_to(SHARED)) for p in SHARED.rglob("*") if p.is_file() and p.suffix in (
    ".bench", ".blif", ".txt", ".aag", ".aig") and not p.name.startswith(("LICENSE", "README"))) if SHARED.is_dir() else []


@needs_shared
@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("name", SHARED_NETLISTS)
def test_every_shared_netlist_is_linked_by_steps(name: str, mode: str) -> None:
    """The default link on every netlist in ../shared/circuits (FP-mul's honest steps once passed the expansion
    bound when a product's trivial term pair was charged to it)."""
    circuit, section = imported(None, str(SHARED / name), None, mode)
    assert "steps" in section and accepted(circuit, section)


@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("name,text", [("cover.blif", COVER), ("wide.bench", WIDE), ("dead.bench", DEAD),
                                       ("adder.txt", FULL_ADDER)])
def test_small_netlists_accepted(tmp_path: Path, name: str, text: str, mode: str) -> None:
    circuit, section = imported(tmp_path, name, text, mode)
    accepted(circuit, section)
    if name == "dead.bench":  # x, which no output reads, has no steps and C none of its gates (no shadow gates)
        assert "shadow" not in section and "x" not in section["steps"] and circuit.size == 2 + 1 + 4
        del section["steps"]["g"]  # g is an output: it may not lose its steps
        assert "no steps" in rejected(circuit, section)
    if name == "cover.blif":
        assert sum(entry[:1] == ["cover"] for entry in section["steps"].values()) == 3


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_aiger_accepted(mode: str) -> None:
    for name in ("c17.aag", "ctrl.aig"):
        accepted(*imported(None, str(ROOT / "tests" / "data" / name), None, mode))


def test_the_kernel_checks_a_step_section_in_a_certificate(tmp_path: Path) -> None:
    """checks._netlist enters the step link for a section with steps (docs/soundness.md N′)."""
    source = (ROOT / "verified_aat" / "kernel" / "checks.py").read_text()
    assert '"steps" in raw' in source and "from .netlist_steps import step_report" in source


# -- forged sections ----------------------------------------------------------------------------------------

@needs_shared
def test_a_wrong_gate_type_in_the_text_is_rejected(tmp_path: Path) -> None:
    """c17 with one NAND read as NOR: the honest steps are not NOR's; and the steps the engine derives for the
    edited text are about another circuit, not C."""
    circuit, section = imported(None, str(C17), None, "exact")
    text = section["text"]
    edited = text.replace("22 = NAND(10, 16)", "22 = NOR(10, 16)")
    assert edited != text
    rejected(circuit, with_text(copy.deepcopy(section), edited), "steps['22']")
    _, forged = imported(tmp_path, "c17.bench", edited, "exact")  # steps re-derived for the edited text
    rejected(circuit, forged)


@needs_shared
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_a_step_literal_off_by_one_is_rejected(mode: str) -> None:
    circuit, section = imported(None, str(C432), None, mode)
    name, entry = next((s, e) for s, e in section["steps"].items() if e and e[0] != "sign" and len(e[0][2]) == 3)
    for change in ("c", "b", "w"):
        forged = copy.deepcopy(section)
        lit = forged["steps"][name][0][2]
        if change == "c":
            lit[0] = 1 - lit[0]
        elif change == "b":
            lit[1] = -lit[1]
        else:
            lit[2] += 1
        rejected(circuit, forged, f"steps[{name!r}][0]")


def test_a_tree_that_reads_an_operand_twice_or_drops_one_is_rejected(tmp_path: Path) -> None:
    circuit, section = imported(tmp_path, "wide.bench", WIDE, "exact")
    steps = section["steps"]["h"]  # XOR of 4: three steps over L = [a, b, c, d, s4, s5, s6]
    assert len(steps) == 3
    twice = copy.deepcopy(section)
    twice["steps"]["h"][0][1] = twice["steps"]["h"][0][0]  # XOR(x, x)
    rejected(circuit, twice, "read twice")
    again = copy.deepcopy(section)
    first = again["steps"]["h"][0]
    again["steps"]["h"][1][:2] = [first[0], 4]  # an operand the first step read, with that step's result
    rejected(circuit, again, "read twice")
    dropped = copy.deepcopy(section)
    del dropped["steps"]["h"][-1]  # XOR of three of the four: two steps
    rejected(circuit, dropped, "takes 3 steps")
    short = copy.deepcopy(section)
    short["steps"]["g"] = short["steps"]["g"][:1]
    rejected(circuit, short, "takes 4 steps")


def test_a_sign_form_with_the_wrong_k_is_rejected(tmp_path: Path) -> None:
    """AND(a, …, e) = 1 + sign(a + … + e − 5): C's constant −5 made −4 (Σx − 4, true for k = 4 only)."""
    circuit, section = imported(tmp_path, "wide.bench", WIDE, "threshold")
    entry = section["steps"]["g"]
    assert entry[0] == "sign", entry
    accepted(circuit, section)

    def off_by_one(C):
        gates = list(C.gates)
        w = entry[1][2]
        total = gates[gates[w].args[0]]
        consts = [a for a in total.args if gates[a].op == "const"]
        assert len(consts) == 1 and abs(gates[consts[0]].value) == 5
        gates[consts[0]] = Gate("const", value=gates[consts[0]].value * 4 // 5)
        return dataclasses.replace(C, gates=tuple(gates))
    rejected(circuit, section, "positive multiple", edit=off_by_one)
    # the same sign form for a netlist gate of four operands
    text = WIDE.replace("g = AND(a, b, c, d, e)", "g = AND(a, b, c, d)")
    rejected(circuit, with_text(copy.deepcopy(section), text), "steps['g']")


def test_a_sign_form_in_exact_mode_or_for_an_xor_is_rejected(tmp_path: Path) -> None:
    circuit, section = imported(tmp_path, "wide.bench", WIDE, "threshold")
    exact = copy.deepcopy(section)
    exact["mode"] = "exact"
    rejected(circuit, exact, "in threshold mode")
    xor = copy.deepcopy(section)
    xor["steps"]["h"] = copy.deepcopy(section["steps"]["g"])
    rejected(circuit, xor, "in threshold mode")


def test_a_wire_that_does_not_expand_to_its_operands_is_rejected(tmp_path: Path) -> None:
    circuit, section = imported(tmp_path, "wide.bench", WIDE, "exact")
    forged = copy.deepcopy(section)
    forged["steps"]["h"][1][2] = copy.deepcopy(section["steps"]["h"][0][2])  # step 1 claims step 0's wire
    rejected(circuit, forged, "steps['h'][1]")


def test_swapped_outputs_are_rejected(tmp_path: Path) -> None:
    circuit, section = imported(tmp_path, "wide.bench", WIDE, "exact")
    text = WIDE.replace("OUTPUT(g)\nOUTPUT(h)", "OUTPUT(h)\nOUTPUT(g)")
    rejected(circuit, with_text(section, text), "output 0")


def test_a_forged_cover_is_rejected(tmp_path: Path) -> None:
    circuit, section = imported(tmp_path, "cover.blif", COVER, "exact")
    assert section["steps"]["y"][0] == "cover"
    missing = copy.deepcopy(section)
    del missing["steps"]["y"][1][-1], missing["steps"]["y"][2][-1]
    rejected(circuit, missing, "do not cover")
    meet = copy.deepcopy(section)
    meet["steps"]["y"][1][0] = "-" * 3  # the whole cube: it meets the others
    rejected(circuit, meet, "two cubes meet")
    outside = copy.deepcopy(section)
    outside["steps"]["y"][1].append("0-1")  # disjoint from the others, but no row holds it
    outside["steps"]["y"][2].append([[0, 1, [0, 1, 0]]])
    rejected(circuit, outside, "not inside a row")
    text = COVER.replace("0-0 1\n", "")  # the text's cover loses a row: the engine's cubes are not inside its rows
    rejected(circuit, with_text(copy.deepcopy(section), text), "steps['y']", "not inside a row")


# -- random netlists -----------------------------------------------------------------------------------------

from test_netlist_shifts import linked_only_if_equal, wide_netlists  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def covers(draw) -> str:
    """A random BLIF netlist of covers (1 to 5 rows, on-set or off-set) over 2 to 6 inputs."""
    n = draw(st.integers(2, 6))
    signals = [f"i{k}" for k in range(n)]
    blocks = []
    for g in range(draw(st.integers(1, 6))):
        k = draw(st.integers(1, 4))
        args = draw(st.lists(st.sampled_from(signals), min_size=k, max_size=k))
        rows = draw(st.lists(st.text("01-", min_size=k, max_size=k), min_size=1, max_size=5))
        out = draw(st.sampled_from("01"))
        blocks.append(f".names {' '.join(args)} g{g}\n" + "".join(f"{r} {out}\n" for r in rows))
        signals.append(f"g{g}")
    outputs = draw(st.lists(st.sampled_from(signals[n:]), min_size=1, max_size=3, unique=True))
    return (f".model r\n.inputs {' '.join(signals[:n])}\n.outputs {' '.join(outputs)}\n" + "".join(blocks)
            + ".end\n")


@settings(max_examples=60, deadline=None)
@given(st.one_of(wide_netlists().map(lambda t: ("wide.bench", t)), covers().map(lambda t: ("r.blif", t))),
       st.sampled_from(["exact", "threshold"]))
def test_random_netlists_are_linked_by_steps(named: tuple[str, str], mode: str) -> None:
    """Wide gates with repeated operands (x·x, x ⊕ x, sign forms of constants) and covers, both modes."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        accepted(*imported(Path(tmp), *named, mode))


@settings(max_examples=80, deadline=None)
@given(wide_netlists(), st.sampled_from(["exact", "threshold"]), st.data())
def test_a_mutated_circuit_is_linked_only_if_it_computes_the_netlist(text: str, mode: str, data) -> None:
    """The honest step section against C with one gate changed is accepted only if the changed C still computes
    the netlist: on {0,1}^n, and in exact mode also at rational points."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        circuit, section = imported(Path(tmp), "wide.bench", text, mode)
    linked_only_if_equal(circuit, section, mode, data, text, lambda ctx: step_report(ctx)[0])


def test_the_step_modules_stay_inside_the_kernel() -> None:
    import ast
    for name in ("netlist_steps.py", "netlist_cover.py", "netlist_parse.py"):
        tree = ast.parse((ROOT / "verified_aat" / "kernel" / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1 or node.module in ("__future__", "fractions", "typing", "dataclasses"), name
            elif isinstance(node, ast.Import):
                assert all(a.name in ("hashlib", "re") for a in node.names), name


def test_a_forged_sign_argument_cannot_make_the_expansion_quadratic() -> None:
    """A sign form's argument is expanded over all its operands' wires (k of them, a bound of 16 + 4k arguments):
    a forged argument, the product of two sums over 3,000 wires, had 9·10⁶ term pairs multiplied (and a sum's k terms
    were checked for degree after each of its k arguments); now a product's term pairs count against the bound."""
    from verified_aat.kernel.data import Gate, Malformed
    from verified_aat.kernel.netlist_steps import _expand
    n = 3000
    gates = [Gate("input", index=i) for i in range(n)] + [Gate("add", tuple(range(n)))] * 2 + [Gate("mul", (n, n + 1))]
    assert len(_expand(n, gates, set(range(n)), "$")) == n  # one wide sum: within the bound, and linear
    with pytest.raises(Malformed, match="past degree 2 or the bound"):
        _expand(n + 2, gates, set(range(n)), "$")
