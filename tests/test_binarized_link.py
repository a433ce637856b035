"""Binarized certificates are linked to the user's circuit (docs/soundness.md, B1-B5).

``certify --binarize`` records the circuit before binarization; ``check CERT --circuit ORIGINAL``
accepts with the theorem about it (for netlists too, unique-hard included).  A certificate
without the record, given the file it was made from, is *not checked*, never rejected; a
different circuit is rejected.  Forged records (every hash consistent, made with the kernel's
own hash) are rejected each by its own named check; a correct but unbalanced tree is accepted.
"""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest
from checking import check
from hypothesis import given, settings
from netlist_helpers import SHARED, needs_shared
from strategies import circuits

from verified_aat.certificates.document import build_certificate, original_section
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.json_format import circuit_structure
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import binarized as bz
from verified_aat.kernel.structure import depths as kernel_depths
from verified_aat.kernel.checks import sha256_json
from verified_aat.kernel.data import STRUCTURE as CIRCUIT_FORMAT
from verified_aat.kernel.defence_compile import evaluate
from verified_aat.kernel.data import load_circuit
from verified_aat.kernel.context import Context
from verified_aat.kernel.report import ACCEPTED, REJECTED, Options
from verified_aat.symbolic.certify import certify

CIRC = """circuit wide
input a b c d
p = mul a b c
q = mul a b c d
s = add p q d
t = sign s
output t p
"""
# gates of C: a b c d = 0..3, p = 4, q = 5, s = 6, t = 7; balanced B (products only):
# 4 = a·b, 5 = 4·c (p), 6 = a·b, 7 = c·d, 8 = 6·7 (q), 9 = add(5, 8, d), 10 = sign 9
BENCH = "INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(y)\nOUTPUT(z)\nt = AND(a, b, c)\ny = NOT(t)\nz = OR(a, t)\n"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def honest() -> dict:
    """A gate-edge certificate of WIDE binarized, with its record of the circuit before binarization."""
    C = parse_circuit_text(CIRC)
    b = binarize(C)
    return build_certificate(certify(b.circuit, get_construction("gate-edge")), include_timings=False,
                             original=original_section(C, b.roots))


def _forged(doc: dict, gates=None, outputs=None, roots=None, rehash: bool = True) -> dict:
    """``doc`` with its original circuit's gates/outputs/roots replaced, the section's hash recomputed
    with the kernel's own function (so only the rules of B stand in the way)."""
    forged = copy.deepcopy(doc)
    sec = forged["original"]
    if gates is not None:
        sec["circuit"]["gates"] = gates
    if outputs is not None:
        sec["circuit"]["outputs"] = outputs
    if roots is not None:
        sec["roots"] = roots
    if rehash:
        sec["sha256"] = sha256_json(sec["circuit"])
    return forged


def _rejected_by(doc: dict, name: str, phrase: str) -> None:
    report = check(doc)
    assert report.outcome == REJECTED, report.reasons
    first = report.rejections[0]
    assert first.check == name, report.reasons
    assert phrase in first.detail, first.detail
    assert f"docs/soundness.md {first.step}" in str(first) and first.step.startswith("B")


def test_the_honest_record_is_accepted_and_the_theorem_names_both_circuits(honest):
    report = check(honest, parse_circuit_text(CIRC))  # --circuit ORIGINAL
    assert report.outcome == ACCEPTED, report.reasons
    assert f"sha256 {honest['original']['sha256'][:12]}" in report.theorem
    assert f"enc_gate-edge(B, x) reads out C(x) for B (sha256 {honest['hashes']['circuit'][:12]}" in report.theorem
    assert "the binarization of C" in report.theorem
    assert check(honest, binarize(parse_circuit_text(CIRC)).circuit).outcome == ACCEPTED  # --circuit B, too
    names = [name for name, _, _ in report.checks]
    assert names[names.index("hashes") + 1:names.index("given-circuit")] == [
        "original", "original-gates", "original-trees", "original-outputs"]


def _gates(doc: dict) -> list:
    return copy.deepcopy(doc["original"]["circuit"]["gates"])


@pytest.mark.parametrize("case", ["wrong operand", "wrong fan-in", "extra operand", "sum for product",
                                  "product for sum", "root below its tree", "root is an operand"])
def test_a_record_whose_n_ary_gate_differs_from_its_tree_is_rejected_by_original_trees(honest, case):
    gates = _gates(honest)
    roots = list(honest["original"]["roots"])
    phrase = "tree under B's gate"
    if case == "wrong operand":
        gates[4] = ["mul", [0, 1, 3]]            # p = a·b·d, the tree is a·b·c
    elif case == "wrong fan-in":
        gates[5] = ["mul", [0, 1, 2]]            # q = a·b·c, the tree is a·b·c·d
    elif case == "extra operand":
        gates[4] = ["mul", [0, 1, 2, 2]]
    elif case == "sum for product":
        gates[5] = ["add", [0, 1, 2, 3]]         # the tree is a product
        phrase = "not a tree of add gates"
    elif case == "product for sum":
        gates[6] = ["mul", [4, 5, 3]]
        phrase = "not a tree of mul gates"
    elif case == "root below its tree":
        roots[4] = 4                             # a·b: c is missing
    else:
        gates.append(["add", [6]])               # s' = add(s), true, but its "tree" is s's own root: no tree
        roots.append(roots[6])
        phrase = "one of its operands"
    _rejected_by(_forged(honest, gates, roots=roots), "original-trees", phrase)


def test_a_record_with_a_gate_that_b_lacks_is_rejected_by_original_gates(honest):
    gates, roots = _gates(honest), list(honest["original"]["roots"])
    _rejected_by(_forged(honest, gates + [["const", "7"]], roots=roots + [10]), "original-gates", "no equal gate in B")
    gates[7] = ["sign", [4]]                     # sign(p): B has sign(s) only
    _rejected_by(_forged(honest, gates), "original-gates", "no equal gate in B")
    gates = _gates(honest)
    _rejected_by(_forged(honest, gates, roots=[1, 0] + roots[2:]), "original-gates", "(input)")


def test_a_record_deeper_than_the_certified_circuit_is_rejected_by_original_trees(honest):
    """B2 holds by B3 and B4: a sum whose root is its operand's root (here every one of a chain) is refused."""
    gates, roots = _gates(honest), list(honest["original"]["roots"])
    for k in range(12):                          # a chain of one-operand sums, every one "equal to" a
        gates.append(["add", [0 if k == 0 else len(gates) - 1]])
        roots.append(0)
    _rejected_by(_forged(honest, gates, roots=roots), "original-trees", "one of its operands")


def test_a_record_with_other_outputs_is_rejected_by_original_outputs(honest):
    _rejected_by(_forged(honest, outputs=[7, 5]), "original-outputs", "is not B's output 1")


@pytest.mark.parametrize("case", ["hash", "root out of range", "outputs", "unknown key", "format"])
def test_a_malformed_record_is_rejected_by_original(honest, case):
    doc = copy.deepcopy(honest)
    sec = doc["original"]
    if case == "hash":
        sec["circuit"]["gates"][4] = ["mul", [0, 1, 3]]  # edited, hash not recomputed
        phrase = "the section says"
    elif case == "root out of range":
        sec["roots"][4] = 11
        phrase = "$.original.roots[4]"
    elif case == "outputs":
        doc = _forged(honest, outputs=[7])
        phrase = "4 inputs and 1 output, the certified one 4 and 2"
    elif case == "unknown key":
        sec["depth"] = 3
        phrase = "unknown key 'depth'"
    else:
        sec["circuit"]["format"] = "something-else"
        sec["sha256"] = sha256_json(sec["circuit"])
        phrase = CIRCUIT_FORMAT
    _rejected_by(doc, "original", phrase)


def _left_deep(shared: bool, wrong: bool = False):
    """WIDE's B with left-deep product trees (q over p's tree when ``shared``); ``wrong``: q = p·c, not p·d."""
    b = CircuitBuilder("wide")
    a, bb, c, d = b.inputs("abcd")
    p = b.mul(b.mul(a, bb), c)
    q = b.mul(p, c if wrong else d) if shared else b.mul(b.mul(b.mul(bb, a), d), c)
    t = b.sign(b.add(p, q, d))
    b.output(t)
    b.output(p)
    B = b.build()
    roots = [0, 1, 2, 3, p, q, t - 1, t]
    return B, roots


@pytest.mark.parametrize("shared", [False, True])
def test_a_correct_unbalanced_tree_is_accepted_in_any_operand_order(shared):
    B, roots = _left_deep(shared)
    doc = build_certificate(certify(B, get_construction("gate-edge")), include_timings=False,
                            original=original_section(parse_circuit_text(CIRC), tuple(roots)))
    report = check(doc, parse_circuit_text(CIRC))
    assert report.outcome == ACCEPTED, report.reasons


def test_a_wrong_unbalanced_tree_is_rejected():
    B, roots = _left_deep(True, wrong=True)
    doc = build_certificate(certify(B, get_construction("gate-edge")), include_timings=False,
                            original=original_section(parse_circuit_text(CIRC), tuple(roots)))
    _rejected_by(doc, "original-trees", "lacks [3]")


# -- the kernel's B checks on random circuits -------------------------------------------------------

def _b_checks(C, B, roots) -> tuple[list[str], Context]:
    structure = {"format": CIRCUIT_FORMAT, "version": 1, "domain": "rationals", **circuit_structure(C)}
    ctx = Context({"original": {"circuit": structure, "sha256": sha256_json(structure), "roots": list(roots)}},
                  Options())
    ctx.circuit = load_circuit(circuit_structure(B), "$.circuit")
    problems = bz.load_original(ctx)
    for run, args in ((bz.gate_failures, ()), (bz.gate_failures, (True,)), (bz.output_failures, ())):
        problems = problems or run(ctx, *args)
    return problems, ctx


@settings(max_examples=80, deadline=None)
@given(circuits(max_gates=14, max_inputs=3))
def test_the_honest_binarization_of_any_circuit_passes_and_an_accepted_mutation_is_still_equal(circuit):
    for sums in (False, True):
        result = binarize(circuit, sums=sums)
        problems, ctx = _b_checks(circuit, result.circuit, result.roots)
        assert problems == [] and ctx.unchecked == [], problems
        rng = random.Random(len(circuit.gates) * 2 + sums)
        roots = list(result.roots)
        if not roots:
            continue
        g = rng.randrange(len(roots))
        roots[g] = rng.randrange(len(result.circuit.gates))  # a forged hint: accepted only if still true
        problems, ctx = _b_checks(circuit, result.circuit, roots)
        if not problems:
            x = [Fraction(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(circuit.n_inputs)]
            vc, vb = evaluate(ctx.original, x), evaluate(ctx.circuit, x)
            assert all(vc[k] == vb[roots[k]] for k in range(len(roots)))
        if not problems:  # B2 (no check of its own) follows from B3 and B4: every root as deep in B as its gate in C
            dc, db = kernel_depths(ctx.original), kernel_depths(ctx.circuit)
            assert all(db[roots[k]] >= dc[k] for k in range(len(roots))) and max(dc) <= max(db)


# -- the command line -------------------------------------------------------------------------------

def _without(path, *keys: str) -> None:
    doc = json.loads(path.read_text())
    for key in keys:
        doc.pop(key, None)
    path.write_text(json.dumps(doc))


def test_check_circuit_original_is_accepted_an_old_certificate_is_not_checked_another_is_rejected(tmp_path, capsys):
    src, other, cert = tmp_path / "wide.circ", tmp_path / "other.circ", tmp_path / "wide.cert"
    src.write_text(CIRC)
    other.write_text(CIRC.replace("q = mul a b c d", "q = mul a b d d"))
    assert _cli(capsys, "certify", str(src), "--binarize", "-o", str(cert), "--no-timings")[0] == 0
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(src))
    assert code == 0 and "result       ACCEPTED" in out and "the binarization of C" in out, out + err
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(other))
    assert code == 1 and "[given-circuit]" in out and "REJECTED" in out
    _without(cert, "original")                   # as certificates were written before the record existed
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(src))
    assert code == 3 and "this certificate is about the binarized circuit" in out and "REJECTED" not in out
    assert "Traceback" not in err
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(other))
    assert code == 1 and "[given-circuit]" in out


def test_a_certificate_that_binarizing_does_not_change_is_byte_identical_and_has_no_record(tmp_path, capsys):
    src = tmp_path / "binary.circ"
    src.write_text("circuit binary\ninput a b\np = mul a b\ns = add p a b\noutput s\n")
    plain, bin_ = tmp_path / "plain.cert", tmp_path / "bin.cert"
    assert _cli(capsys, "certify", str(src), "-o", str(plain), "--no-timings")[0] == 0
    assert _cli(capsys, "certify", str(src), "--binarize", "-o", str(bin_), "--no-timings")[0] == 0
    assert plain.read_bytes() == bin_.read_bytes() and "original" not in json.loads(plain.read_text())


def test_unique_hard_of_a_netlist_needs_binarize_and_then_links_to_the_netlist(tmp_path, capsys):
    net, other, cert = tmp_path / "and3.bench", tmp_path / "or3.bench", tmp_path / "and3.cert"
    net.write_text(BENCH)
    other.write_text(BENCH.replace("AND(a, b, c)", "OR(a, b, c)"))
    assert _cli(capsys, "certify", str(net), "-c", "unique-hard", "-o", str(cert))[0] == 2  # fan-in 3 sums
    assert _cli(capsys, "certify", str(net), "-c", "unique-hard", "--binarize", "-o", str(cert),
                "--no-timings")[0] == 0
    doc = json.loads(cert.read_text())
    assert "original" in doc and "netlist" in doc
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(net))
    assert code == 0 and "C equals the gate-wise multilinear extension of netlist 'and3.bench'" in out, out + err
    assert "the binarization of C" in out
    code, out, _ = _cli(capsys, "check", str(cert), "--circuit", str(other))
    assert code == 1 and "[netlist]" in out
    _without(cert, "original", "netlist")        # an old --binarize certificate of a netlist
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", str(net))
    assert code == 3 and "this certificate is about the binarized circuit" in out and "REJECTED" not in out
    code, out, _ = _cli(capsys, "check", str(cert), "--circuit", str(other))
    assert code == 1 and "carries no netlist link" in out


def test_a_forged_netlist_link_in_a_binarized_certificate_is_rejected(tmp_path, capsys):
    net, cert = tmp_path / "and3.bench", tmp_path / "and3.cert"
    net.write_text(BENCH)
    assert _cli(capsys, "certify", str(net), "-c", "unique-hard", "--binarize", "-o", str(cert),
                "--no-timings")[0] == 0
    doc = json.loads(cert.read_text())
    last = doc["netlist"]["steps"]["t"][-1][2]  # t = AND(a, b, c): its last step's literal c + b·w, c flipped
    last[0] = 1 - last[0]
    report = check(doc)
    assert report.outcome == REJECTED and report.rejections[0].check == "netlist", report.reasons


@needs_shared
def test_c17_unique_hard_binarized_links_to_c17(tmp_path, capsys):
    cert = tmp_path / "c17.cert"
    c17 = str(SHARED / "iscas85" / "c17.bench")
    assert _cli(capsys, "certify", c17, "-c", "unique-hard", "--binarize", "-o", str(cert), "--no-timings")[0] == 0
    code, out, err = _cli(capsys, "check", str(cert), "--circuit", c17, "--json")
    result = json.loads(out)
    assert code == 0 and result["status"] == "accepted" and "netlist 'c17.bench'" in result["theorem"], out + err
    assert [c["name"] for c in result["checks"]].count("original-trees") == 1
    assert result["theorem"].count("binarization of C") == 1
