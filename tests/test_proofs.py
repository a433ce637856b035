"""proofs/: a certificate for every spec circuit and construction that applies,
each accepted by the independent checker against the spec file itself."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from verified_aat.certificates.document import build_certificate, dumps_certificate
from checking import check as check_certificate, load_certificate
from verified_aat.circuits.io import load_circuit
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.symbolic.certify import certify

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("make_proofs", ROOT / "proofs" / "make_proofs.py")
make_proofs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_proofs)  # type: ignore[union-attr]
PLAN = make_proofs.planned()


def test_every_applicable_pair_has_a_certificate_and_nothing_else_is_there():
    wanted = {target for _, _, target in PLAN}
    present = set(ROOT.glob("proofs/*/*.cert.json"))
    assert wanted == present
    assert len({circuit for circuit, _, _ in PLAN}) >= 15


@pytest.mark.parametrize("circuit_path,construction,cert", PLAN,
                         ids=[f"{c}-{p.stem}" for p, c, _ in PLAN])
def test_certificate_is_accepted_against_the_spec_file(circuit_path, construction, cert):
    doc = load_certificate(str(cert))
    assert doc["construction"] == construction
    report = check_certificate(doc, load_circuit(str(circuit_path)))
    assert report.accepted, report.reasons


@pytest.mark.parametrize("index", [0, len(PLAN) // 2, len(PLAN) - 1])
def test_regenerating_a_certificate_gives_the_same_bytes(index):
    circuit_path, construction, cert = PLAN[index]
    result = certify(load_circuit(str(circuit_path)), CONSTRUCTIONS[construction])
    assert dumps_certificate(build_certificate(result, include_timings=False)) == cert.read_text()


def test_a_proof_checks_with_cvc5_too():
    circuit_path, _, cert = next(p for p in PLAN if p[0].stem == "mixed_depth6")
    report = check_certificate(json.loads(cert.read_text()), load_circuit(str(circuit_path)), solvers=("cvc5",))
    assert report.accepted, report.reasons
