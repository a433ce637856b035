"""``certify --every-k``: the construction's every-K theorem instantiated at the circuit, in one certificate.

The schematic certificate with the circuit embedded (``instance``) is checked by ``check CERT`` alone: P1–P9, then
P10 on the embedded circuit (``data.load_structure``, as S1 reads a per-circuit certificate's circuit).  Cross-checked
against the per-circuit route: the same circuit hash and the same K.  Forged sections are rejected, a circuit the
theorem does not cover is *not checked*, and options of the per-circuit route are bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import verified_aat as va
from mutants import EdgeKSlotIgnored
from strategies import circuits
from verified_aat.circuits.ir import Kind, circuit_sha256
from verified_aat.circuits.measures import depth
from verified_aat.cli.main import main
from verified_aat.kernel import Options, check_certificate
from verified_aat.schematic.prove import schematic_builtins

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs" / "circuits"


def _kernel(doc: dict, **options):  # type: ignore[no-untyped-def]
    return check_certificate(json.loads(json.dumps(doc)), Options(solver_trust=False, **options))


@pytest.fixture(scope="module")
def mixed() -> dict:
    result = va.certify(va.load_circuit(str(SPECS / "mixed_depth6.circ")), "gate-edge", every_k=True)
    assert result.status == "proved" and result.kernel == "accepted", result.problems
    return dict(va.certificate(result))


@pytest.mark.parametrize("construction", schematic_builtins())
def test_every_builtin_certifies_at_a_circuit_as_the_per_circuit_route_does(construction: str) -> None:
    circuit = va.family("inner-product", 2 if construction.startswith("unique-hard") else 3)
    if construction.startswith("unique-hard") or construction == "gate-edge-dot":
        circuit = va.parse_circuit("input x y\ns = add x y\np = mul s y\nq = sign p\noutput q s", name="small")
    result = va.certify(circuit, construction, every_k=True)
    assert result.status == "proved" and result.kernel == "accepted", result.problems
    per_circuit = va.certify(circuit, construction)
    assert per_circuit.status == "proved" and per_circuit.kernel == "accepted"
    K = per_circuit.depth_bound
    assert f"the given circuit C (sha256 {per_circuit.certificate['hashes']['circuit']}," in result.theorem
    assert f"(K = {K}) on enc_{construction}(C, x) reads out C(x)" in result.theorem
    assert _kernel(va.certificate(result)).accepted  # no solver on the path to ACCEPTED


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuits(max_gates=12))
def test_the_instance_is_the_circuit_at_its_depth(circuit) -> None:  # type: ignore[no-untyped-def]
    if any(g.kind is Kind.MUL and len(g.args) != 2 for g in circuit.gates):  # outside gate-edge's class
        with pytest.raises(va.InputError):
            va.certify(circuit, "gate-edge", every_k=True)
        return
    result = va.certify(circuit, "gate-edge", every_k=True)
    assert result.status == "proved", result.problems
    assert f"C (sha256 {circuit_sha256(circuit)}, {circuit.size} gate" in result.theorem  # gate, gates
    assert f"(K = {max(1, depth(circuit))}) on enc_gate-edge" in result.theorem


def test_check_alone_and_with_the_circuit_file(mixed: dict, tmp_path: Path) -> None:
    cert = tmp_path / "m.json"
    cert.write_text(json.dumps(mixed))
    assert main(["check", str(cert), "--no-solver-trust"]) == 0
    assert main(["check", str(cert), "--circuit", str(SPECS / "mixed_depth6.circ")]) == 0
    assert main(["check", str(cert), "--circuit", str(SPECS / "sign_of_sum.circ")]) == 1  # another circuit


def test_a_forged_instance_is_rejected(mixed: dict) -> None:
    bad_gate = copy.deepcopy(mixed)
    bad_gate["instance"]["circuit"]["gates"][-1] = ["add", [len(bad_gate["instance"]["circuit"]["gates"])]]
    other_format = copy.deepcopy(mixed)
    other_format["instance"]["circuit"]["format"] = "verified-aat/circuit"
    extra_key = copy.deepcopy(mixed)
    extra_key["instance"]["sha256"] = "0" * 64
    for doc in (bad_gate, other_format, extra_key):
        report = _kernel(doc)
        assert report.outcome == "rejected" and report.rejections[0].check == "schematic-instance", report.reasons
    per_circuit = dict(va.certificate(va.certify(va.family("relu", 2), "gate-edge")))
    per_circuit["instance"] = mixed["instance"]
    assert _kernel(per_circuit).outcome == "rejected"  # a per-circuit certificate has no instance section


def test_the_theorem_names_the_embedded_circuit_not_the_info(mixed: dict) -> None:
    edited = copy.deepcopy(mixed)
    edited["instance"]["circuit"]["gates"].append(["add", []])
    edited["instance"]["circuit"]["outputs"].append(len(edited["instance"]["circuit"]["gates"]) - 1)
    report = _kernel(edited)
    assert report.accepted and mixed["info"]["circuit"]["sha256"] not in report.theorem  # another circuit, named


def test_a_circuit_the_theorem_does_not_cover_is_not_checked(mixed: dict) -> None:
    outside = copy.deepcopy(mixed)
    outside["instance"]["circuit"]["gates"].append(["mul", [0, 0, 0]])  # gate-edge: mul fan-in 2 only
    report = _kernel(outside)
    assert report.outcome == "not-checked" and "not in the class" in report.unchecked[0]
    fixed = va.prove_construction("gate-edge", depth_bound=2).certificate
    deep = {**copy.deepcopy(fixed), "instance": mixed["instance"]}  # depth 6 > K = 2
    report = _kernel(deep)
    assert report.outcome == "not-checked" and "covers depth ≤ 2" in report.unchecked[0]


def test_a_wrong_transformer_is_not_certified_by_every_k(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    spec = tmp_path / "T.json"
    from verified_aat.transformer.spec import save_transformer
    save_transformer(EdgeKSlotIgnored().transformer(depth(va.family("relu", 2))), str(spec))
    code = main(["certify", "--family", "relu", "--n", "2", "-c", "edge-k", "--every-k", "-t", str(spec),
                 "-o", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 3 and "result           unknown" in out and not (tmp_path / "c.json").exists()
    assert "certify without --every-k" in out


@pytest.mark.parametrize("extra", [["--binarize"], ["-K", "9"], ["--export-smt", "d"], ["--cluster", "local:2"]])
def test_options_of_the_per_circuit_route_are_bad_input(extra: list[str], capsys: pytest.CaptureFixture) -> None:
    assert main(["certify", str(SPECS / "mixed_depth6.circ"), "--every-k", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs the per-circuit route" in err[0]


def test_a_netlist_is_bad_input(capsys: pytest.CaptureFixture) -> None:
    assert main(["certify", str(ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"), "--every-k"]) == 2
    assert "netlist" in capsys.readouterr().err


def test_json_stdout_and_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    circuit = str(SPECS / "relu_via_sign.circ")
    assert main(["certify", circuit, "--every-k", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "proved" and doc["route"] == "every-k" and doc["kernel"]["outcome"] == "ACCEPTED"
    assert main(["certify", circuit, "--every-k", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["instance"]["circuit"]["format"] == "verified-aat/circuit-structure"
    assert "result           proved" in captured.err
    assert main(["certify", circuit, "--every-k", "--report", str(tmp_path / "r.html")]) == 0
    assert "every K" in (tmp_path / "r.html").read_text()


def test_the_api_refuses_a_depth_bound() -> None:
    with pytest.raises(va.InputError):
        va.certify(va.family("relu", 2), every_k=True, depth_bound=3)


def test_certify_points_at_every_k_for_a_large_circuit(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture) -> None:
    from verified_aat.cli import certify_cmd
    circuit = str(SPECS / "relu_via_sign.circ")
    assert main(["certify", circuit]) == 0 and "--every-k" not in capsys.readouterr().out
    monkeypatch.setattr(certify_cmd, "EVERY_K_HINT", 1)
    assert main(["certify", circuit]) == 0 and "`certify --every-k` states the same theorem" in capsys.readouterr().out
    c17 = str(ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench")
    assert main(["certify", c17]) == 0 and "--every-k" not in capsys.readouterr().out  # a netlist: not that route


def test_the_shipped_instance_certificate_is_accepted_and_regenerates() -> None:
    """proofs/constructions/gate-edge.at-mixed_depth6.every-K.json (proofs/make_schematic_proofs.py): accepted with
    no solver, its theorem naming the circuit as the per-circuit certificate of the same file does, byte-identical
    when made again."""
    from verified_aat.certificates.document import dumps_certificate
    shipped = ROOT / "proofs" / "constructions" / "gate-edge.at-mixed_depth6.every-K.json"
    doc = json.loads(shipped.read_text())
    report = _kernel(doc)
    per_circuit = json.loads((ROOT / "proofs" / "gate-edge" / "mixed_depth6.cert.json").read_text())
    assert report.accepted and f"C (sha256 {per_circuit['hashes']['circuit']}," in report.theorem
    again = va.certify(va.load_circuit(str(SPECS / "mixed_depth6.circ")), "gate-edge", every_k=True)
    assert dumps_certificate(dict(va.certificate(again, timings=False))) == shipped.read_text()
