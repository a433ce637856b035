"""The netlist link: the importer's trace lets the kernel prove that C equals the netlist.

Every shared netlist (ISCAS, EPFL, Bristol Fashion), in both arithmetizations and with the
linear and the depth-aware (cap) construction, is accepted by ``link_report``; forged
sections (a changed coefficient, a changed gate, swapped outputs, a false annotation, an
annotation over a higher gate, an input on the wrong gate, a lemma that needs the {0,1}
hypotheses, a different netlist file, an edited Bristol gate, MAND pairing, EQ constant or
bit order, a changed constant in C) are rejected with a reason that names the rule.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import random
import shutil
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest

from netlist_helpers import FULL_ADDER, GREATER, SHARED, TABLE, needs_shared
from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.link_section import netlist_section
from verified_aat.kernel.data import Malformed, load_circuit
from verified_aat.kernel.netlist_link import link_report
from verified_aat.kernel.netlist_steps import step_report
from verified_aat.kernel.context import Context
from verified_aat.kernel.report import Options

pytestmark = pytest.mark.usefixtures("candidate_link")  # the link by candidates (netlist_link.py): its tests

C17 = SHARED / "iscas85" / "c17.bench"
KERNEL = Path(__file__).resolve().parent.parent / "verified_aat" / "kernel"


BRISTOL = sorted(p.relative_to(SHARED).as_posix() for p in (SHARED / "bristol").glob("*.txt")
                 if not p.name.startswith("LICENSE")) if SHARED.is_dir() else []


@lru_cache(maxsize=None)
def imported(rel: str, mode: str, cap: int | None = None) -> Circuit:
    return import_netlist(str(SHARED / rel), mode, cap, steps=False)  # the link by candidates: its own tests


def section_of(rel: str, mode: str, cap: int | None = None) -> dict:
    section = netlist_section(imported(rel, mode, cap))
    assert section is not None
    return copy.deepcopy(section)


def run(circuit: Circuit, section: dict | None, given: tuple[str, bytes] | None = None) -> tuple[list[str], str, Context]:
    doc = {} if section is None else {"netlist": section}
    ctx = Context(doc, Options(netlist=given))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    try:  # the link the section is: by binary steps (the linear construction's default) or by candidates
        problems, theorem = step_report(ctx) if "steps" in (section or {}) else link_report(ctx)[:2]
    except Malformed as exc:  # a malformed field, the netlist's text too: rules.run_checks makes it the rejection
        problems, theorem = [str(exc)], ""
    return [getattr(p, "detail", p) for p in problems], theorem, ctx  # each problem as one line


def rejected(circuit: Circuit, section: dict, *words: str, given: tuple[str, bytes] | None = None) -> str:
    problems, theorem, _ = run(circuit, section, given)
    assert problems and not theorem
    assert any(all(w in p for w in words) for p in problems), problems
    return problems[0]


def with_text(section: dict, text: str) -> dict:
    """The section with another netlist text and its matching sha256."""
    section["text"] = text
    section["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return section


# -- every shared netlist ------------------------------------------------------------------

# the depth-aware construction (cap) on all but the large Bristol circuits, where it falls back
# to the linear one (the same circuit)
LINKED = [(rel, cap) for rel in sorted(TABLE) + BRISTOL for cap in (None, 16)
          if cap is None or not rel.startswith("bristol/FP-")]


@needs_shared
@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("rel, cap", LINKED)
def test_every_shared_netlist_is_linked(rel: str, mode: str, cap: int | None) -> None:
    path = SHARED / rel
    circuit = imported(rel, mode, cap)
    section = netlist_section(circuit)
    assert section is not None
    fmt = "bristol" if path.suffix == ".txt" else path.suffix[1:]
    assert section["file"] == path.name and section["format"] == fmt and section["mode"] == mode
    assert section["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert section["text"] == path.read_text()
    problems, theorem, ctx = run(circuit, section, (path.name, path.read_bytes()))
    assert problems == [] and ctx.unchecked == []
    domain = f"{{0,1}}^{circuit.n_inputs}" if mode == "threshold" else f"all of R^{circuit.n_inputs}"
    assert theorem.startswith("C equals the") and f"netlist {path.name!r} (sha256 {section['sha256'][:16]}" in theorem
    assert theorem.endswith(domain)


@needs_shared
def test_sections_are_byte_identical_and_name_no_path(tmp_path: Path) -> None:
    for rel, mode in [("iscas85/c432.bench", "threshold"), ("epfl/ctrl.blif", "exact")]:
        copy_path = tmp_path / Path(rel).name
        shutil.copyfile(SHARED / rel, copy_path)
        a = json.dumps(netlist_section(import_netlist(str(SHARED / rel), mode)), sort_keys=True)
        b = json.dumps(netlist_section(import_netlist(str(copy_path), mode)), sort_keys=True)
        assert a == b and str(tmp_path) not in b and str(SHARED) not in a


def _random_netlist(rng: random.Random) -> tuple[str, str]:
    """A small random .bench (every gate type) or single-cube BLIF text with reconvergence."""
    n_in = rng.randint(1, 5)
    signals = [f"i{k}" for k in range(n_in)]
    body = []
    blif = rng.random() < 0.5
    for k in range(rng.randint(1, 14)):
        arity = rng.randint(0 if blif else 1, 4)
        args = [rng.choice(signals) for _ in range(arity)]
        if blif:
            row = "".join(rng.choice("01-") for _ in args)
            body.append(f".names {' '.join(args + [f'g{k}'])}\n" + (f"{row} " if args else "") + rng.choice("01"))
        else:
            op = rng.choice(["AND", "NAND", "OR", "NOR", "XOR", "XNOR"] + ["NOT", "BUFF"] * (arity == 1))
            body.append(f"g{k} = {op}({', '.join(args)})")
        signals.append(f"g{k}")
    outputs = [rng.choice(signals) for _ in range(rng.randint(1, 3))]
    if blif:
        head = [".model r", ".inputs " + " ".join(signals[:n_in]), ".outputs " + " ".join(outputs)]
        return "\n".join(head + body + [".end"]) + "\n", "blif"
    return "\n".join([f"INPUT({x})" for x in signals[:n_in]] + [f"OUTPUT({o})" for o in outputs] + body) + "\n", "bench"


def test_random_small_netlists_are_linked(tmp_path: Path) -> None:
    rng = random.Random(2026)
    for k in range(40):
        text, fmt = _random_netlist(rng)
        path = tmp_path / f"r{k}.{fmt}"
        path.write_text(text)
        for mode in ("exact", "threshold"):
            circuit = import_netlist(str(path), mode)
            problems, theorem, ctx = run(circuit, netlist_section(circuit), (path.name, text.encode()))
            assert problems == [] and ctx.unchecked == [] and path.name in theorem, (text, mode, problems)


def test_no_section() -> None:
    circuit = imported("iscas85/c17.bench", "exact")
    assert run(circuit, None)[:2] == ([], "")
    problems = run(circuit, None, ("c17.bench", C17.read_bytes()))[0]
    assert problems and "carries no netlist link" in problems[0]


# -- forgeries -------------------------------------------------------------------------------

@needs_shared
def test_a_changed_coefficient_is_rejected() -> None:
    for mode in ("exact", "threshold"):
        section = section_of("iscas85/c17.bench", mode)
        form = section["signals"]["16"][0][0]
        form[1][-1][1] = str(-int(form[1][-1][1]) * 2)
        rejected(imported("iscas85/c17.bench", mode), section, "candidate 0 of signal '16'", "does not hold")


@needs_shared
def test_a_changed_gate_with_matching_hash_is_rejected() -> None:
    for mode in ("exact", "threshold"):
        section = section_of("iscas85/c17.bench", mode)
        with_text(section, section["text"].replace("19 = NAND(11, 7)", "19 = AND(11, 7)"))
        rejected(imported("iscas85/c17.bench", mode), section, "signal '19' (AND)", "does not hold")


@needs_shared
def test_swapped_outputs_are_rejected() -> None:
    for mode in ("exact", "threshold"):
        section = section_of("iscas85/c17.bench", mode)
        text = section["text"].replace("OUTPUT(22)\nOUTPUT(23)", "OUTPUT(23)\nOUTPUT(22)")
        assert text != section["text"]
        rejected(imported("iscas85/c17.bench", mode), with_text(section, text), "output 0 ('23')", "does not hold")
    section = section_of("epfl/dec.blif", "exact")
    section["outputs"][3], section["outputs"][4] = section["outputs"][4], section["outputs"][3]
    if section["outputs"][3] == section["outputs"][4]:  # one candidate each: swap the netlist's outputs
        lines = section["text"].split("\n")
        k = next(i for i, line in enumerate(lines) if line.startswith(".outputs"))
        names = lines[k].split()
        names[4], names[5] = names[5], names[4]
        lines[k] = " ".join(names)
        with_text(section, "\n".join(lines))
    rejected(imported("epfl/dec.blif", "exact"), section, "output 3", "does not hold")


# annotations come from the depth-aware construction (cap=N); the linear one needs none
@needs_shared
def test_a_false_annotation_is_rejected() -> None:
    section = section_of("iscas85/c17.bench", "exact", 16)
    gate, form, _ = section["annotations"][0]
    form[1][0][1] = "-2" if form[1][0][1] != "-2" else "-3"
    rejected(imported("iscas85/c17.bench", "exact", 16), section, f"annotation of gate {gate}", "does not hold")


@needs_shared
def test_an_annotation_over_a_higher_gate_is_rejected() -> None:
    section = section_of("iscas85/c17.bench", "exact", 16)
    gate, form, _ = section["annotations"][0]
    form[1].append([gate + 1, "1"])  # still a well-formed form: gates increasing, in range
    rejected(imported("iscas85/c17.bench", "exact", 16), section, f"annotation of gate {gate}", "lower gates only")
    section = section_of("iscas85/c17.bench", "exact", 16)
    section["annotations"][0][1][1] = [[section["annotations"][0][0], "1"]]  # t = t
    rejected(imported("iscas85/c17.bench", "exact", 16), section, "lower gates only")


@needs_shared
def test_an_input_on_the_wrong_gate_is_rejected() -> None:
    circuit = imported("iscas85/c17.bench", "exact")
    section = section_of("iscas85/c17.bench", "exact")
    section["signals"]["1"] = [[["0", [[circuit.input_gates[1], "1"]]], []]]
    rejected(circuit, section, "netlist input 0 must have exactly the one candidate 1·g0")
    section = section_of("iscas85/c17.bench", "exact")
    section["signals"]["2"][0][0][0] = "1"  # 1 + x_1
    rejected(circuit, section, "netlist input 1")


def _forged_candidate(mode: str, extra: str) -> tuple[Circuit, dict]:
    """c17 with one more candidate for signal 10 = NAND(1, 3): F + (1 − sign((g−g²)²)) ("off",
    which equals F exactly when g ∉ {0,1}) or F + 7(g − g²) ("on", which equals F on {0,1});
    g is input 1's gate, the operand form of signal 10's first argument."""
    circuit = imported("iscas85/c17.bench", mode)
    section = section_of("iscas85/c17.bench", mode)
    g = circuit.input_gates[0]
    n = len(circuit.gates) + len(section["shadow"])
    section["shadow"] += [["mul", [g, g]], ["const", "-1"], ["mul", [n + 1, n]], ["add", [g, n + 2]],
                          ["mul", [n + 3, n + 3]], ["sign", [n + 4]]]
    (const, terms), origin = section["signals"]["10"][0]
    if extra == "off":
        forged = [str(int(const) + 1), terms + [[n + 5, "-1"]]]
    else:
        forged = [const, terms + [[n + 3, "7"]]]
    section["signals"]["10"].append([forged, origin])
    return circuit, section


@needs_shared
def test_threshold_lemmas_use_exactly_the_hypotheses_in_0_1() -> None:
    def forged(mode: str, extra: str) -> tuple[Circuit, dict, str]:
        circuit, section = _forged_candidate(mode, extra)
        return circuit, section, f"candidate {len(section['signals']['10']) - 1} of signal '10'"

    # holds for every operand value off {0,1}, fails on {0,1}: rejected
    circuit, section, which = forged("threshold", "off")
    rejected(circuit, section, which, "counterexample", "F_i ∈ {0,1}")
    # holds on {0,1} only: accepted in threshold mode (the hypotheses are used) ...
    circuit, section, which = forged("threshold", "on")
    problems, theorem, _ = run(circuit, section)
    assert problems == [] and "{0,1}^5" in theorem
    # ... and rejected in exact mode, which has no hypotheses
    circuit, section, which = forged("exact", "on")
    rejected(circuit, section, which, "not a polynomial identity")
    circuit, section, which = forged("exact", "off")
    rejected(circuit, section, which, "a sign occurs in exact mode")


@needs_shared
def test_a_different_netlist_file_is_rejected(tmp_path: Path) -> None:
    circuit = imported("iscas85/c17.bench", "threshold")
    section = section_of("iscas85/c17.bench", "threshold")
    other = C17.read_bytes().replace(b"# c17", b"# c17 (edited)")
    rejected(circuit, section, "the given netlist c17.bench", "is not the certificate's embedded netlist",
             given=("c17.bench", other))
    section["text"] = section["text"].replace("NAND(1, 3)", "NAND(3, 1)")  # hash not updated
    rejected(circuit, section, "does not have the stated sha256")


@needs_shared
def test_malformed_sections_are_rejected_naming_the_place() -> None:
    circuit = imported("iscas85/c17.bench", "exact")
    section = section_of("iscas85/c17.bench", "exact")
    section["file"] = str(C17)
    rejected(circuit, section, "$.netlist.file", "base name")
    section = section_of("iscas85/c17.bench", "exact")
    with_text(section, section["text"] + "24 = DFF(23)\n")
    rejected(circuit, section, "$.netlist.text", "line 22", "does not know")
    section = section_of("iscas85/c17.bench", "exact")
    with_text(section, section["text"].replace("10 = NAND(1, 3)", "10 = NAND(1, 22)"))
    rejected(circuit, section, "combinational cycle")
    section = section_of("iscas85/c17.bench", "exact")
    with_text(section, section["text"].replace("OUTPUT(23)\n", ""))
    rejected(circuit, section, "the netlist has 5 inputs and 1 output, C has 5 and 2")
    section = section_of("iscas85/c17.bench", "exact")
    section["shadow"].append(["mul", [0, len(circuit.gates) + len(section["shadow"])]])
    rejected(circuit, section, "$.netlist.shadow", "earlier shadow gates")


@needs_shared
def test_blif_forgery_and_lemma_counts() -> None:
    circuit = imported("epfl/ctrl.blif", "threshold")
    section = section_of("epfl/ctrl.blif", "threshold")
    problems, _, stats = link_report(_context(circuit, section))
    assert problems == [] and 0 < stats["distinct"] <= stats["lemmas"]
    row = next(line for line in section["text"].split("\n") if line in ("10 1", "01 1"))  # a·(1−b) or (1−a)·b
    flipped = section["text"].replace(f"\n{row}\n", f"\n{row[1]}{row[0]} 1\n", 1)
    assert flipped != section["text"]
    rejected(circuit, with_text(section, flipped), "(CUBE)", "does not hold")


def _bristol(tmp_path: Path, text: str, mode: str) -> tuple[Circuit, dict]:
    path = tmp_path / "hand.txt"
    path.write_text(text)
    circuit = import_netlist(str(path), mode)
    section = copy.deepcopy(netlist_section(circuit))
    assert run(circuit, section, ("hand.txt", text.encode()))[0] == []
    return circuit, section


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_bristol_forgeries_are_rejected(tmp_path: Path, mode: str) -> None:
    circuit, section = _bristol(tmp_path, FULL_ADDER, mode)
    # the carry's XOR read as an AND (hash updated)
    rejected(circuit, with_text(copy.deepcopy(section), FULL_ADDER.replace("2 1 4 5 8 XOR", "2 1 4 5 8 AND")),
             "signal 'out1_b0' (AND)", "does not hold")
    # MAND pairs (a, t), (b, c) instead of (a, b), (t, c)
    rejected(circuit, with_text(copy.deepcopy(section), FULL_ADDER.replace("4 2 0 3 1 2 4 5", "4 2 0 1 3 2 4 5")),
             "(AND)", "does not hold")
    # an MAND with the halves in the wrong order for the kernel's reading is refused outright
    rejected(circuit, with_text(copy.deepcopy(section), FULL_ADDER.replace("4 2 0 3 1 2 4 5", "4 3 0 3 1 2 4 5")),
             "$.netlist.text", "does not know")
    circuit, section = _bristol(tmp_path, GREATER, mode)
    rejected(circuit, with_text(copy.deepcopy(section), GREATER.replace("1 1 1 15 EQ", "1 1 0 15 EQ")),
             "signal 'w15' (CONST0)", "does not hold")


@needs_shared
def test_bristol_bit_order_and_a_changed_constant_are_rejected() -> None:
    import dataclasses
    rel = "bristol/adder64.txt"
    section = section_of(rel, "exact")
    section["signals"]["out0_b1"], section["signals"]["out0_b2"] = \
        section["signals"]["out0_b2"], section["signals"]["out0_b1"]
    rejected(imported(rel, "exact"), section, "signal 'out0_b1'", "does not hold")
    circuit = imported(rel, "exact")
    k = next(i for i, g in enumerate(circuit.gates) if g.value == -2)  # XOR's a + b − 2ab
    gates = list(circuit.gates)
    gates[k] = dataclasses.replace(gates[k], value=Fraction(-3))
    forged = dataclasses.replace(circuit, gates=tuple(gates))
    rejected(forged, section_of(rel, "exact"), "(XOR)", "does not hold")


def _context(circuit: Circuit, section: dict) -> Context:
    ctx = Context({"netlist": section}, Options())
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    return ctx


def test_the_link_modules_stay_inside_the_kernel() -> None:
    for name in ("netlist_link.py", "netlist_parse.py"):
        tree = ast.parse((KERNEL / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1 or node.module in ("__future__", "fractions", "typing", "dataclasses"), name
            elif isinstance(node, ast.Import):
                assert all(a.name in ("hashlib", "heapq", "itertools", "math", "re") for a in node.names), name


# -- end to end ------------------------------------------------------------------------------

@needs_shared
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_certify_then_check_against_the_netlist(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str) -> None:
    from verified_aat.cli.main import main

    cert = tmp_path / "c17.cert.json"
    assert main(["certify", str(C17), "-c", "gate-edge", "--mode", mode, "-o", str(cert)]) == 0
    assert json.loads(cert.read_text())["netlist"]["file"] == "c17.bench"
    capsys.readouterr()
    assert main(["check", str(cert), "--circuit", str(C17), "--candidate-link"]) == 0
    out = capsys.readouterr().out
    theorem = next(line for line in out.splitlines() if line.startswith("theorem"))
    what = "Boolean function" if mode == "threshold" else "gate-wise multilinear extension"
    assert f"C equals the {what}" in theorem and "netlist 'c17.bench'" in theorem
    assert main(["check", str(cert), "--circuit", str(SHARED / "iscas85" / "c432.bench"), "--candidate-link"]) == 1
    capsys.readouterr()
    # bad input by the engine's parser is exit 2 with the file named, as for every command that reads it (the
    # kernel's leaner reader took an empty file, or one with only comments, for a well-formed netlist: exit 1)
    for name, text, words in [("empty.bench", "", "empty netlist"), ("comments.bench", "# c17\n\n", "empty netlist"),
                              ("empty.blif", "", "empty netlist"),
                              ("undefined.bench", "INPUT(a)\nOUTPUT(b)\nb = AND(a, c)\n", "'c'")]:
        (tmp_path / name).write_text(text)
        assert main(["check", str(cert), "--circuit", str(tmp_path / name)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith(f"verified-aat: {tmp_path / name}") and words in err and "Traceback" not in err, err


@needs_shared
def test_the_api_certificate_carries_the_link() -> None:
    import verified_aat as va
    from verified_aat.kernel import check_certificate

    circuit = va.load_circuit(str(C17), "threshold")
    doc = va.certificate(va.certify(circuit, "gate-edge"), timings=False)
    assert doc["netlist"] == netlist_section(circuit)
    # the kernel takes the plain JSON object (as read from a file), not the API's Certificate subclass
    report = check_certificate(dict(doc), Options(netlist=("c17.bench", C17.read_bytes()), candidate_link=True))
    assert report.accepted and "netlist 'c17.bench'" in report.theorem


BLIF_AND = ".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n"


@pytest.mark.parametrize("name, text", [("c.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NAND(a, b)\n"),
                                        ("c.blif", BLIF_AND), ("c.bristol", FULL_ADDER)])
def test_a_byte_order_mark_is_read_as_text_editors_write_it(tmp_path: Path, name: str, text: str) -> None:
    """A netlist saved with a UTF-8 byte-order mark reads as without it, in the engine and the kernel (as .circ
    files do): the embedded text keeps the file's bytes, so ``check --circuit FILE`` still matches them."""
    plain, marked = tmp_path / name, tmp_path / f"bom-{name}"
    plain.write_text(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    for mode in ("exact", "threshold"):
        with_mark = import_netlist(str(marked), mode, None)
        assert with_mark.gates == import_netlist(str(plain), mode, None).gates
        section = netlist_section(with_mark)
        assert section is not None and section["text"].startswith("\ufeff")
        problems, theorem, _ = run(with_mark, section, (marked.name, marked.read_bytes()))
        assert problems == [] and theorem, problems
        problems, _, _ = run(with_mark, section, (plain.name, plain.read_bytes()))
        assert problems and "not the certificate's embedded netlist" in problems[0]


def test_the_link_has_one_work_bound_for_all_its_lemmas(tmp_path: Path) -> None:
    """Each lemma had a bound (100,000 nodes), the link none: a chain of 99,999 shadow sums t = t' + 0, equal to x0,
    named as the candidate of every other BUFF of a 40-gate chain made each lemma expand the whole chain (100 BUFFs:
    22 s, accepted; 2,000 would be about 450 s). Past LINK_WORK steps, and 64 a netlist gate, the rest are not stated:
    not checked, never a rejection (the lemmas are true)."""
    n = 40
    path = tmp_path / "buffers.bench"
    path.write_text("INPUT(x0)\nOUTPUT(b39)\n" + "".join(f"b{k} = BUFF({'x0' if k == 0 else f'b{k - 1}'})\n"
                                                         for k in range(n)))
    circuit = import_netlist(str(path), "exact")
    section = netlist_section(circuit)
    size = circuit.size
    section["shadow"] = [["const", "0"]] + [["add", [size - 1 if i == 0 else size + i, size]] for i in range(99_999)]
    top = size + 99_999
    for k in range(n):
        section["signals"][f"b{k}"] = [[["0", [[top if k % 2 == 0 else size - 1, "1"]]], [0]]]
    problems, theorem, ctx = run(circuit, section)
    assert not problems and theorem  # every stated lemma holds ...
    assert any("the expansions passed 10002560 steps" in u for u in ctx.unchecked)  # ... but not all were stated
