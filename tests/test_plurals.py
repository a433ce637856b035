"""Counts read as English: '1 output', '1 layer', '2 outputs' (``wording.plural`` in the engine, ``data.counted`` in
the kernel, which imports nothing of the engine).  The kernel's theorem said 'C (sha256 …, 3 gates, 1 outputs)' for
every one-output circuit and 'T (sha256 …, 1 layers)' for an edge-k T_1; messages said 'takes 1 inputs', '1 gates
rewritten', 'the other 1 inputs = 0'."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verified_aat.circuits.evaluate import evaluate
from verified_aat.cli.main import main
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.constructions.binarize import binarize, describe_binarized
from verified_aat.kernel.data import counted
from verified_aat.wording import plural

ONE = "circuit one\ninput x\ng = add x x\noutput g\n"  # 2 gates, 1 output, depth 1
BAD = re.compile(r"\b1 (inputs|outputs|gates|layers|heads|lemmas|positions|values|edges|circuits|samples)\b")


@pytest.mark.parametrize("n, word", [(0, "0 outputs"), (1, "1 output"), (2, "2 outputs")])
def test_both_helpers(n: int, word: str) -> None:
    assert counted(n, "output") == word == plural(n, "output")


def test_the_kernel_s_theorem_for_one_output_and_one_layer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, cert = tmp_path / "one.circ", tmp_path / "one.cert.json"
    source.write_text(ONE)
    assert main(["certify", str(source), "-c", "edge-k", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--no-solver-trust"]) == 0
    out = capsys.readouterr().out
    theorem = next(line for line in out.splitlines() if line.startswith("theorem"))
    assert ", 1 layer) on enc_edge-k" in theorem and "2 gates, 1 output)" in theorem, theorem
    assert not BAD.search(out), out


def test_engine_messages() -> None:
    circuit = parse_circuit_text(ONE)
    with pytest.raises(ValueError, match="takes 1 input, got 2"):
        evaluate(circuit, [1, 2])
    wide = parse_circuit_text("circuit w\ninput x\ninput y\ninput z\ng = mul x y z\noutput g\n")
    assert describe_binarized(binarize(wide)).startswith("binarized: 1 gate rewritten,")


# The kernel's rejection texts and the engine's messages whose count can be 1 (they said 'declares 1 inputs and
# 1 outputs', 'mul cannot take 1 arguments', 'bad cover row for 1 input(s)', 'all 1 lemmas decided', ...).

def test_kernel_rejection_texts() -> None:
    from verified_aat.kernel import aiger_parse, netlist_blif, netlist_cands
    from verified_aat.kernel.data import Circuit, Gate, Malformed, load_transformer
    from verified_aat.kernel.defence import _shown
    with pytest.raises(Malformed, match="declares 1 input and 1 output, the circuit has 2 and 1"):
        aiger_parse.read(b"aag 1 1 0 1 0\n2\n2\n", expect=(2, 1))
    with pytest.raises(Malformed, match="bad cover row for 1 input: "):
        netlist_blif.read_blif(".model m\n.inputs a\n.outputs y\n.names a y\n11 1\n.end\n")
    one = Circuit((Gate("input", index=0),), (0,), 1, (0,))
    with pytest.raises(Malformed, match="mul cannot take 1 argument$"):
        netlist_cands._shadow([["mul", [0]]], one)
    with pytest.raises(Malformed, match="an activation must take 1 input and give 1 output$"):
        load_transformer({"coordinates": ["v"], "functions": [{"gates": [["input", 0], ["input", 1]], "outputs": [0]}],
                          "layers": [{"heads": [], "activation": 0}]})
    assert _shown((4,)) == "{4} (1 member)" and _shown((1, 2, 3)) == "{1, …, 3} (3 members)"


def test_kernel_trust_line_and_reasons() -> None:
    from verified_aat.kernel.problems import SHOWN, Rejection
    from verified_aat.kernel.report import Report
    assert Report(lemmas=1, kernel_decided=1).trust.startswith("1 lemma decided by the kernel itself")
    assert Report(lemmas=3, kernel_decided=3).trust.startswith("all 3 lemmas decided by the kernel itself")
    trust = Report(lemmas=1, kernel_decided=0, solver_only=["L0 (z3)"]).trust
    assert trust.startswith("0 of 1 lemma decided") and "; 1 rests on a solver's unsat alone: L0 (z3)" in trust, trust
    trust = Report(lemmas=2, kernel_decided=0, solver_only=["L0 (z3)", "L1 (z3)"]).trust
    assert "0 of 2 lemmas decided" in trust and "; 2 rest on a solver's unsat alone" in trust, trust
    rejected = Report(rejections=[Rejection("m", check="c", step="S1", rule="r")] * (SHOWN + 1))
    assert rejected.reasons[-1] == "… and 1 more rejection"


def test_engine_counts_that_can_be_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blif = tmp_path / "one.blif"
    blif.write_text(".model m\n.inputs a\n.outputs y\n.names a y\n11 1\n.end\n")
    assert main(["info", str(blif)]) == 2
    err = capsys.readouterr().err
    assert "for 1 input" in err and "input(s)" not in err, err
    bristol = tmp_path / "one.bristol"
    bristol.write_text("1 1\n1 1\n1 1\n\n1 1 0 3 INV\n")
    assert main(["info", str(bristol), "--format", "bristol"]) == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith("do not fit in 1 wire"), err


def test_engine_argument_count_and_the_construction_specs() -> None:
    from verified_aat.circuits.netlists import parse_bench
    from verified_aat.constructions.describe import describe
    from verified_aat.constructions.registry import CONSTRUCTIONS
    from verified_aat.errors import InputError
    with pytest.raises(InputError, match="CONST1 cannot take 1 argument$"):
        parse_bench("INPUT(a)\nOUTPUT(y)\ny = CONST1(a)\n", "bad.bench")
    text = describe(CONSTRUCTIONS["edge-only"])
    assert "1 head per layer" in text and "settles 1 layer earlier" in text and "(s)" not in text
