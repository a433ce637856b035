"""Certification and checking: proofs, refutations, unknowns, tampering, determinism."""

from __future__ import annotations

import json
import pytest
from hypothesis import given, settings

import mutants
from strategies import circuits
from verified_aat.certificates.document import build_certificate, dumps_certificate, export_smt
from checking import check as check_certificate
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.text_format import print_circuit
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic import certify as certify_module
from verified_aat.symbolic.certify import certify
from verified_aat.symbolic.discharge import UNKNOWN, LemmaVerdict
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import save_transformer


def _doc(result, timings=False):
    return json.loads(dumps_certificate(build_certificate(result, include_timings=timings)))


@pytest.fixture(scope="module")
def proved():
    result = certify(mutants.probe_circuit(), get_construction("gate-edge"))
    assert result.status == "proved", result.problems
    return result


# -- proofs ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only", "edge-k"])
def test_probe_circuit_is_proved_and_the_certificate_is_accepted(name):  # noqa: D103
    circuit = mutants.probe_fnc_circuit() if name == "unique-hard" else mutants.probe_circuit()
    result = certify(circuit, get_construction(name))
    assert result.status == "proved" and not result.problems
    assert all(v.status == "proved" for v in result.verdicts.values())
    report = check_certificate(_doc(result), solvers=("z3", "cvc5"))
    assert report.accepted, report.reasons
    assert report.lemmas == len(result.derivation.lemmas)


@settings(max_examples=25, deadline=None)
@given(circuits(max_gates=10, max_inputs=3))
def test_random_circuits_are_proved_and_checked(circuit):
    circuit = binarize(circuit).circuit
    result = certify(circuit, get_construction("gate-edge"), refute=False)
    assert result.status == "proved", result.problems
    assert check_certificate(_doc(result)).accepted


def test_local_obligations_are_shared_across_gates_of_one_shape():
    from verified_aat.circuits.families import build_family

    small = certify(build_family("inner-product", 20), get_construction("gate-edge"))
    large = certify(build_family("inner-product", 200), get_construction("gate-edge"))
    assert small.status == large.status == "proved"
    # ten times the gates, the same number of distinct lemmas (shapes)
    assert len(large.derivation.lemmas) == len(small.derivation.lemmas)
    assert sum(large.derivation.kinds.values()) > 9 * sum(small.derivation.kinds.values())


def test_certificates_are_byte_identical_without_timings(proved):
    again = certify(mutants.probe_circuit(), get_construction("gate-edge"))
    first = dumps_certificate(build_certificate(proved, include_timings=False))
    assert first == dumps_certificate(build_certificate(again, include_timings=False))
    assert "timings" in build_certificate(proved) and "timings" not in json.loads(first)


def test_exported_lemmas_are_unsat_for_z3(proved, tmp_path):
    import z3

    files = export_smt(_doc(proved), tmp_path)
    assert len(files) == len(proved.derivation.lemmas)
    for path in files:
        solver = z3.Solver()
        solver.from_string(path.read_text())
        assert solver.check() == z3.unsat


# -- soundness: wrong constructions are refuted, harmless ones proved ------------------

@pytest.mark.parametrize("mutant", mutants.WRONG, ids=lambda m: m.__name__)
def test_wrong_construction_is_refuted_with_a_replayed_witness(mutant):
    construction = mutant()
    circuit = mutants.probe_fnc_circuit() if construction.name == "unique-hard" else mutants.probe_circuit()
    result = certify(circuit, construction)
    assert result.status == "refuted", result.problems
    witness = result.counterexample
    # replay independently of the refutation code
    compiled = construction.compile(circuit)
    outputs = run_exact(compiled.transformer, compiled.encoding.instantiate(list(witness.inputs))).outputs
    replayed = tuple(compiled.encoding.read(outputs))
    assert replayed == witness.actual
    assert tuple(evaluate(circuit, list(witness.inputs))) == witness.expected != replayed
    assert "MISMATCH" in witness.report() or "differs" in witness.report()


@pytest.mark.parametrize("mutant", mutants.HARMLESS, ids=lambda m: m.__name__)
def test_harmless_change_is_proved(mutant):
    result = certify(mutants.probe_circuit(), mutant())
    assert result.status == "proved", result.problems
    assert check_certificate(_doc(result)).accepted


def test_unknown_is_never_reported_as_proved(monkeypatch):
    def undecided(texts, timeout_ms, jobs=1, progress=None):
        return [LemmaVerdict(UNKNOWN, "z3", 0.0, reason="timeout") for _ in texts]

    monkeypatch.setattr(certify_module, "discharge_all", undecided)
    result = certify(mutants.probe_circuit(), get_construction("gate-edge"))
    assert result.status == "unknown"
    assert any("unknown" in p for p in result.problems)


# -- tampering -------------------------------------------------------------------------

def _rejected(doc, **kwargs):
    report = check_certificate(doc, **kwargs)
    assert not report.accepted
    return " | ".join(report.reasons)


def test_edited_lemma_is_rejected(proved):
    doc = _doc(proved)
    lemma = next(l for l in doc["lemmas"] if l["kind"] == "local-step:mul")
    lemma["smt2"] = lemma["smt2"].replace("2.0", "3.0", 1)
    assert "text differs" in _rejected(doc)


def test_edited_lemma_with_recomputed_id_is_rejected(proved):
    import hashlib

    doc = _doc(proved)
    lemma = next(l for l in doc["lemmas"] if l["kind"] == "local-step:add")
    lemma["smt2"] = lemma["smt2"].replace("(check-sat)", "(assert false)\n(check-sat)")
    lemma["id"] = hashlib.sha256(lemma["smt2"].encode()).hexdigest()
    reasons = _rejected(doc)
    assert "not an obligation" in reasons and "missing" in reasons


def test_changed_hash_is_rejected(proved):
    doc = _doc(proved)
    doc["hashes"]["transformer"] = "0" * 64
    assert "[hashes]" in _rejected(doc)


def test_swapped_circuit_is_rejected(proved):
    from verified_aat.circuits.families import build_family

    assert "[given-circuit]" in _rejected(_doc(proved), circuit=build_family("inner-product", 2))


def test_swapped_embedded_circuit_is_rejected(proved):
    other = certify(mutants.probe_fnc_circuit(), get_construction("gate-edge"))
    doc = _doc(proved)
    doc["circuit"] = _doc(other)["circuit"]
    assert "[hashes]" in _rejected(doc)


def test_dropped_obligation_is_rejected(proved):
    doc = _doc(proved)
    doc["lemmas"] = [l for l in doc["lemmas"] if l["kind"] != "local-step:sign"]
    assert "missing" in _rejected(doc)


def test_status_flipped_by_hand_is_rejected():
    result = certify(mutants.probe_circuit(), mutants.SquareOfMean(), refute=False)
    assert result.status == "unknown"
    doc = _doc(result)
    doc["result"] = {"status": "proved"}
    assert "[defence]" in _rejected(doc)
    assert "is false" in _rejected(doc, defence_budget=0)


def test_changed_transformer_with_consistent_hash_is_rejected(proved):
    from verified_aat.certificates.kernel_form import sha256_json, transformer_form

    doc = _doc(proved)
    wrong = mutants.MissingRescaling().transformer(proved.depth_bound)
    doc["transformer"] = transformer_form(wrong)
    doc["hashes"]["transformer"] = sha256_json(doc["transformer"])
    assert "missing" in _rejected(doc)


def test_tampered_attention_sets_are_rejected(proved):
    doc = _doc(proved)
    doc["derived"]["attention"][0]["sets"]["digest"] = "f" * 64
    assert "[obligations]" in _rejected(doc)


# -- command line -------------------------------------------------------------------------

def test_certify_and_check_commands(tmp_path, capsys):
    src = tmp_path / "probe.circ"
    src.write_text(print_circuit(mutants.probe_circuit()))
    cert = tmp_path / "probe.cert.json"
    assert main(["certify", str(src), "-o", str(cert), "--export-smt", str(tmp_path / "smt")]) == 0
    out = capsys.readouterr().out
    assert "result           proved" in out and "local-step:mul" in out
    assert main(["check", str(cert), "--circuit", str(src), "--solver", "both"]) == 0
    assert "ACCEPTED" in capsys.readouterr().out
    other = tmp_path / "other.circ"
    other.write_text("input x\ny = mul x x\noutput y\n")
    assert main(["check", str(cert), "--circuit", str(other)]) == 1
    assert "[given-circuit]" in capsys.readouterr().out


def test_certify_command_refutes_an_edited_transformer(tmp_path, capsys):
    src = tmp_path / "probe.circ"
    src.write_text(print_circuit(mutants.probe_circuit()))
    spec = tmp_path / "wrong.json"
    save_transformer(mutants.SignOfZeroIsOne().transformer(5), spec)
    cert = tmp_path / "never.json"
    assert main(["certify", str(src), "--transformer", str(spec), "-o", str(cert)]) == 1
    out = capsys.readouterr().out
    assert "counterexample" in out and "MISMATCH" in out
    assert not cert.exists()


def test_certify_command_exit_3_on_unknown(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(certify_module, "discharge_all",
                        lambda texts, *a, **k: [LemmaVerdict(UNKNOWN, "z3", 0.0, reason="timeout") for _ in texts])
    src = tmp_path / "probe.circ"
    src.write_text(print_circuit(mutants.probe_circuit()))
    assert main(["certify", str(src), "--no-refute"]) == 3
    assert "result           unknown" in capsys.readouterr().out


def test_check_rejects_garbage_with_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\x01junk")
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0]


def test_encoding_must_be_the_constructions_encoding(proved):
    doc = _doc(proved)
    doc["hashes"]["encoding"] = "0" * 64
    assert "enc(C) as the kernel builds it" in _rejected(doc)


def test_check_says_whether_the_transformer_is_the_constructions_own():
    from verified_aat.certificates.document import is_constructions_own

    own = _doc(certify(mutants.probe_circuit(), get_construction("gate-edge")))
    edited = _doc(certify(mutants.probe_circuit(), mutants.SignOfDoubleMean()))
    assert check_certificate(own).accepted and check_certificate(edited).accepted
    assert is_constructions_own(own) is True and is_constructions_own(edited) is False
    own["info"]["depth_bound"] = 10 ** 9  # informational: never builds a huge T_K
    assert is_constructions_own(own) is False


def test_transformer_of_another_construction_is_bad_input(tmp_path, capsys):
    src = tmp_path / "probe.circ"
    src.write_text(print_circuit(mutants.probe_circuit()))
    spec = tmp_path / "uh.json"
    save_transformer(get_construction("unique-hard").transformer(5), spec)
    assert main(["certify", str(src), "--transformer", str(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "coordinates" in err[0]


def test_irrational_witness_refutes_the_reals_but_not_the_rationals():
    result = certify(mutants.sign_circuit(), mutants.WrongOnlyAtRootTwo())
    assert result.status == "unknown" and result.counterexample is None
    assert any("irrational witness" in p and "over Q the claim is unknown" in p for p in result.problems)
    assert any("root-obj" in p for p in result.problems)


def test_z3_finds_a_rational_witness_the_random_search_misses(monkeypatch):
    from verified_aat.refutation import search

    monkeypatch.setattr(search, "_candidates", lambda n, models, seed=0: iter(()))
    result = certify(mutants.probe_circuit(), mutants.SignOfZeroIsOne())
    assert result.status == "refuted"
    assert tuple(evaluate(mutants.probe_circuit(), list(result.counterexample.inputs))) != \
        result.counterexample.actual


def test_softmax_transformers_are_refused_by_certify_and_check(proved):
    from dataclasses import replace

    from verified_aat.errors import InputError
    from verified_aat.transformer.model import Pooling
    from verified_aat.certificates.kernel_form import sha256_json, transformer_form

    t = get_construction("gate-edge").transformer(proved.depth_bound)
    soft = replace(t, layers=tuple(replace(l, heads=tuple(replace(h, pooling=Pooling.SOFTMAX) for h in l.heads))
                                   for l in t.layers))
    with pytest.raises(InputError, match="softmax"):
        certify(mutants.probe_circuit(), get_construction("gate-edge"), transformer=soft)
    doc = _doc(proved)
    doc["transformer"] = transformer_form(soft)
    doc["hashes"]["transformer"] = sha256_json(doc["transformer"])
    assert "softmax" in _rejected(doc)


def test_parallel_discharge_gives_the_same_certificate():
    circuit = mutants.probe_circuit()
    serial = certify(circuit, get_construction("gate-edge"), jobs=1)
    parallel = certify(circuit, get_construction("gate-edge"), jobs=2)
    assert len(serial.derivation.lemmas) >= 8  # enough lemmas for the process pool to be used
    assert dumps_certificate(build_certificate(serial, include_timings=False)) == \
        dumps_certificate(build_certificate(parallel, include_timings=False))
