"""P10: a schematic (every-K) certificate instantiated at a given circuit — `check CERT --circuit FILE`.

The kernel checks the schematic certificate, reads the file with its own reader, tests the class and takes
the depth; the theorem then names the circuit by the same structure hash a per-circuit certificate gives it,
at K = its depth.  Cross-checked here against the per-circuit route (proofs/): same hash, same K."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mutants import EdgeKSlotIgnored
from verified_aat import api
from verified_aat.circuits.io import load_circuit
from verified_aat.cli.main import main
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.circuit_file import read_circuit
from verified_aat.schematic import prove_construction

ROOT = Path(__file__).resolve().parent.parent
PROOFS = ROOT / "proofs"
SPECS = ROOT / "specs" / "circuits"
CASES = [(construction, circuit) for construction in ["gate-edge", "edge-only", "unique-hard"]
         for circuit in ["relu_via_sign", "mixed_depth6", "no_inputs", "repeated_outputs"]
         if (PROOFS / construction / f"{circuit}.cert.json").exists()]


def structure(data: bytes, fmt: str) -> dict:
    """The kernel's canonical structure of a circuit file."""
    return read_circuit(data, fmt)[0]


def _schematic(construction: str) -> dict:
    return json.loads((PROOFS / "constructions" / f"{construction}.every-K.schematic.json").read_text())


def _instance(doc: dict, path: Path, fmt: str = "text"):  # type: ignore[no-untyped-def]
    return check_certificate(json.loads(json.dumps(doc)), Options(circuit_file=(path.name, path.read_bytes(), fmt)))


@pytest.mark.parametrize("construction,circuit", CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_the_instance_names_the_circuit_as_its_per_circuit_certificate_does(construction: str, circuit: str) -> None:
    report = _instance(_schematic(construction), SPECS / f"{circuit}.circ")
    assert report.accepted, report.reasons
    per_circuit = json.loads((PROOFS / construction / f"{circuit}.cert.json").read_text())
    assert f"the given circuit C (sha256 {per_circuit['hashes']['circuit']}," in report.theorem
    K = per_circuit["info"]["depth_bound"]  # the per-circuit route certified the construction's own T_K
    assert f"(K = {K}) on enc_{construction}(C, x) reads out C(x)" in report.theorem


def test_a_circuit_outside_the_class_is_not_checked() -> None:
    report = _instance(_schematic("gate-edge"), SPECS / "fac0_unbounded_product.circ")
    assert report.outcome == "not-checked" and "not in the class" in report.unchecked[0] and report.theorem == ""


def test_a_fixed_k_theorem_does_not_cover_a_deeper_circuit() -> None:
    result = prove_construction("gate-edge", 2)
    assert result.status == "proved"
    shallow, deep = SPECS / "sign_of_sum.circ", SPECS / "mixed_depth6.circ"
    accepted = _instance(result.certificate, shallow)
    assert accepted.accepted and "(K = 2)" in accepted.theorem, accepted.reasons
    report = _instance(result.certificate, deep)
    assert report.outcome == "not-checked" and "covers depth ≤ 2" in report.unchecked[0]


def test_a_wrong_transformers_schematic_certificate_is_still_rejected_at_a_circuit() -> None:
    result = prove_construction("edge-k", None, EdgeKSlotIgnored().transformer(1))
    assert result.status != "proved"
    doc = json.loads(json.dumps(_schematic("edge-k")))
    from verified_aat.certificates.kernel_form import sha256_json, transformer_form
    doc["transformer"] = transformer_form(EdgeKSlotIgnored().transformer(1))
    doc["hashes"]["transformer"] = sha256_json(doc["transformer"])
    doc.get("info", {}).pop("transformer", None)
    report = _instance(doc, SPECS / "relu_via_sign.circ")
    assert not report.accepted and report.theorem == ""


def test_the_reader_is_the_kernels_own_and_the_json_form_gives_the_same_instance(tmp_path: Path) -> None:
    from verified_aat.circuits.json_format import circuit_to_json
    C = load_circuit(str(SPECS / "mixed_depth6.circ"))
    as_json = tmp_path / "mixed_depth6.json"
    as_json.write_text(json.dumps(circuit_to_json(C)))
    text = _instance(_schematic("gate-edge"), SPECS / "mixed_depth6.circ")
    other = _instance(_schematic("gate-edge"), as_json, "json")
    assert text.accepted and other.accepted and text.theorem == other.theorem
    assert structure(as_json.read_bytes(), "json") == structure((SPECS / "mixed_depth6.circ").read_bytes(), "text")


def test_the_cli_and_the_api(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cert = PROOFS / "constructions" / "gate-edge.every-K.schematic.json"
    assert main(["check", str(cert), "--circuit", str(SPECS / "relu_via_sign.circ")]) == 0
    assert "for the given circuit C" in capsys.readouterr().out
    assert main(["check", str(cert), "--circuit", str(SPECS / "fac0_unbounded_product.circ")]) == 3
    capsys.readouterr()
    bench = tmp_path / "c.bench"
    bench.write_text("INPUT(a)\nOUTPUT(b)\nb = NOT(a)\n")
    assert main(["check", str(cert), "--circuit", str(bench)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "instantiated at an arithmetic circuit" in err[0]
    report = api.check(str(cert), load_circuit(str(SPECS / "relu_via_sign.circ")))
    assert report.accepted and "T_4 (K = 4)" in report.theorem
    audit = PROOFS / "audit" / "mixed_pooling.every-N.audit.json"
    assert main(["check", str(audit), "--circuit", str(SPECS / "relu_via_sign.circ")]) == 2


@pytest.mark.parametrize("text,where", [("circuit bad\ninput x\ng = mul x\noutput g\n", "bad.circ:3:"),
                                        ("circuit bad\ninput x\ng = add x y\noutput g\n", "bad.circ:3:"),
                                        ("", "bad.circ"), ("# only a comment\n", "bad.circ"),
                                        ("circuit c\ninput x\ng = add x\n", "bad.circ"),
                                        ("circuit c\ndomain boolean\ndomain rationals\ninput x\noutput x\n", "bad.circ"),
                                        ("circuit bad\ninput x\ng = add x\nh = add g h\noutput h\n", "bad.circ")])
def test_a_file_the_kernel_cannot_read_is_bad_input_in_one_line(text: str, where: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The command's parser reads the file first, as for a per-circuit certificate: bad input is file:line
    (exit 2) on every route — an empty file, one with no outputs or a repeated header too (red team)."""
    bad = tmp_path / "bad.circ"
    bad.write_text(text)
    cert = PROOFS / "constructions" / "gate-edge.every-K.schematic.json"
    assert main(["check", str(cert), "--circuit", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and where in err[0] and "Traceback" not in err[0]


def test_a_json_circuit_with_two_readings_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Repeated keys: last-key-wins and first-key-wins readings are two circuits; refused, never named."""
    doc = ('{"format": "verified-aat/circuit", "version": 1, "inputs": ["x", "y"], "gates": [{"name": "x", "op": '
           '"input"}, {"name": "y", "op": "input"}, {"name": "p", "op": "mul", "args": ["x", "y"], "args": ["x", "x"]}],'
           ' "outputs": ["p"]}')
    (tmp_path / "c.json").write_text(doc)
    cert = PROOFS / "constructions" / "gate-edge.every-K.schematic.json"
    assert main(["check", str(cert), "--circuit", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "duplicate key 'args'" in err[0]
