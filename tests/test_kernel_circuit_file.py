"""``check --circuit FILE`` for the text and JSON formats goes through the kernel's own reader.

The kernel reduces the file to the canonical structure a certificate embeds (kernel/circuit_file.py);
the engine's parser runs first only to report bad input.  These tests show the two readers agree on
every file the engine reads (hypothesis, with definitions out of order and inline literals), and that a
lying engine parser cannot make the kernel accept a certificate for a file that holds another circuit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verified_aat as va
from verified_aat.circuits.ir import circuit_sha256
from verified_aat.circuits.json_format import dumps_circuit, parse_circuit_json
from verified_aat.circuits.text_format import parse_circuit_text, print_circuit
from verified_aat.cli.main import main
from verified_aat.kernel.circuit_file import read_circuit, sha256_json
from verified_aat.kernel.data import NotChecked

from strategies import circuits

SPECS = Path(__file__).resolve().parent.parent / "specs" / "circuits"


def structure(data: bytes, fmt: str) -> dict:
    """The kernel's canonical structure of a circuit file."""
    return read_circuit(data, fmt)[0]


def _shuffled_text(text: str, seed: int) -> str:
    """The same circuit with some constants written inline (``mul -1 x``) and its definition lines in
    another order (forward references)."""
    rng = random.Random(seed)
    lines = text.splitlines()
    for line in list(lines):
        name, _, rest = line.partition(" = const ")
        if rest and rng.random() < 0.5:  # every use of this constant becomes an inline literal
            lines.remove(line)
            swap = {name: rest.split("#")[0].strip()}
            lines = [" ".join(_inline(t, swap) for t in other.split()) for other in lines]
    definitions = [n for n, line in enumerate(lines) if "=" in line.split("#")[0] and not line.startswith("output")]
    moved = [lines[n] for n in definitions]
    rng.shuffle(moved)
    for n, line in zip(definitions, moved):
        lines[n] = line
    return "\n".join(lines) + "\n"


def _inline(token: str, swap: dict[str, str]) -> str:
    label, eq, target = token.partition("=")
    return f"{label}={swap.get(target, target)}" if eq and target else swap.get(token, token)


@settings(max_examples=150, deadline=None)
@given(circuits(), st.integers(0, 10**6))
def test_the_kernel_reads_a_text_file_as_the_engine_does(circuit, seed) -> None:
    text = _shuffled_text(print_circuit(circuit), seed)
    engine = parse_circuit_text(text)
    assert sha256_json(structure(text.encode(), "text")) == circuit_sha256(engine)


@settings(max_examples=150, deadline=None)
@given(circuits(), st.integers(0, 10**6))
def test_the_kernel_reads_a_json_file_as_the_engine_does(circuit, seed) -> None:
    doc = json.loads(dumps_circuit(circuit))
    random.Random(seed).shuffle(doc["gates"])
    data = json.dumps(doc)
    engine = parse_circuit_json(data)
    assert sha256_json(structure(data.encode(), "json")) == circuit_sha256(engine)


def test_inline_literals_are_one_constant_per_value_before_their_first_use() -> None:
    text = "input x y\nh = add 1/2 g 0.5 -2\ng = mul -1 x y   # a forward reference\noutput h z=g 3\n"
    engine = parse_circuit_text(text)
    kernel = structure(text.encode(), "text")
    assert sha256_json(kernel) == circuit_sha256(engine)
    assert kernel["gates"][:3] == [["input", 0], ["input", 1], ["const", "1/2"]]
    assert [g for g in kernel["gates"] if g[0] == "const"] == [["const", "1/2"], ["const", "-1"], ["const", "-2"],
                                                               ["const", "3"]]


@pytest.mark.parametrize("text", ["input x\ng = mul x\noutput g\n", "input x\ng = add x y\noutput g\n",
                                  "input x\ng = add h\nh = add g\noutput g\n", "input x\ninput x\noutput x\n",
                                  "input x\ng = frob x\noutput g\n", "input x\ndomain reals\noutput x\n"])
def test_a_file_the_kernel_cannot_read_is_not_checked(text: str) -> None:
    with pytest.raises(NotChecked):
        structure(text.encode(), "text")


JSON_CIRCUIT = (b'{"format": "verified-aat/circuit", "version": 1, "inputs": ["x"], "gates": [{"name": "x", "op": '
                b'"input"}, {"name": "y", "op": "add", "args": ["x", "x"]}], "outputs": ["y"]}')


@pytest.mark.parametrize("edit", [(b'"outputs": ["y"]}', b'"outputs": ["y"], "outputs": ["x"]}'),  # a key twice
                                  (b'"version": 1', b'"version": 1, "note": NaN')])  # not JSON: NaN
def test_a_json_file_with_a_key_twice_or_nan_is_not_checked(edit: tuple[bytes, bytes]) -> None:
    """Read as the kernel reads a certificate: a reader keeping the first "outputs" would see another circuit
    (round 10: the kernel's JSON reader kept the last, silently)."""
    assert structure(JSON_CIRCUIT, "json")["outputs"] == [1]
    with pytest.raises(NotChecked):
        structure(JSON_CIRCUIT.replace(*edit), "json")


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    circuit = va.load_circuit(str(SPECS / "inner_product_3.circ"))
    result = va.certify(circuit, "gate-edge")
    assert result.status == "proved"
    return dict(va.certificate(result, timings=False)), tmp_path_factory.mktemp("cert")


def test_a_lying_engine_parser_cannot_link_another_file(certified, monkeypatch: pytest.MonkeyPatch) -> None:
    doc, _ = certified
    honest = va.load_circuit(str(SPECS / "inner_product_3.circ"))
    assert va.check(doc, str(SPECS / "inner_product_3.circ")).accepted
    other = SPECS / "sign_of_sum.circ"
    assert va.check(doc, str(other)).outcome == "rejected"
    import verified_aat.circuits.text_format as text_format
    monkeypatch.setattr(text_format, "parse_circuit_text", lambda *a, **k: honest)  # the engine lies
    report = va.check(doc, str(other))
    assert report.outcome == "rejected" and report.rejections[0].check == "given-circuit"


def test_check_reads_json_and_text_files_through_the_kernel(certified, capsys: pytest.CaptureFixture[str]) -> None:
    doc, tmp = certified
    cert = tmp / "ip.cert.json"
    cert.write_text(json.dumps(doc))
    same = tmp / "ip.json"
    same.write_text(dumps_circuit(va.load_circuit(str(SPECS / "inner_product_3.circ"))))
    assert main(["check", str(cert), "--circuit", str(same)]) == 0
    assert main(["check", str(cert), "--circuit", str(SPECS / "sign_of_sum.circ")]) == 1
    assert "[given-circuit]" in capsys.readouterr().out
    huge = tmp / "huge.circ"
    huge.write_text(f"input x0 x1 x2 x3 x4 x5\nc = const {'7' * 3000}\ng = add x0 c\noutput g\n")
    assert main(["check", str(cert), "--circuit", str(huge)]) == 3  # the kernel's digit limit: not checked
    assert "does not read the given circuit file" in capsys.readouterr().out


@pytest.mark.parametrize("text, why", [
    ("input x\nc = const 0{zeros}1\ny = add x c\noutput y\n", "operation or number the kernel does not read"),
    ("input x\ny = add x 1/0{zeros}2\noutput y\n", "a literal spelled past the kernel's 2,000 characters")])
def test_a_number_spelled_past_the_kernels_digits_is_not_checked_and_says_so(text: str, why: str) -> None:
    """The engine reads the value (1, 1/2), which the certificate's structure holds in a few characters; the kernel
    reads a numeral of at most 2,000 characters, so ``check --circuit FILE`` is not checked, naming the number."""
    text = text.replace("{zeros}", "0" * 2500)
    assert [g.value for g in parse_circuit_text(text).gates if g.value is not None] in ([1], [0.5])
    with pytest.raises(NotChecked, match=why):
        structure(text.encode(), "text")
