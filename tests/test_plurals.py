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
