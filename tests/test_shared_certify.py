"""certify then check, with the netlist link, for every netlist in ../shared/circuits (both arithmetizations).

The two large Bristol circuits (FP-add, FP-mul: 37k and 96k gates) are linked in
test_netlist_link.py; certifying them is a benchmark (benchmarks/scale.py), not a test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verified_aat.api import certificate
from verified_aat.certificates.document import dumps_certificate
from verified_aat.circuits.io import load_circuit
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import Options, check_certificate
from verified_aat.symbolic.certify import certify

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "circuits"
FILES = sorted(SHARED.glob("*/*.b*")) + [SHARED / "bristol" / f"{name}.txt" for name in ("adder64", "neg64", "zero_equal")] \
    if SHARED.exists() else []


@pytest.mark.skipif(not FILES, reason="../shared/circuits is not beside the repository")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_shared_netlist_is_certified_and_checked_down_to_the_netlist(path, mode):
    circuit = load_circuit(str(path), mode)
    result = certify(circuit, get_construction("gate-edge"), refute=False)
    assert result.status == "proved", result.problems
    doc = json.loads(dumps_certificate(certificate(result, circuit=circuit)))
    assert doc["netlist"]["file"] == path.name and doc["netlist"]["mode"] == mode
    report = check_certificate(doc, Options(netlist=(path.name, path.read_bytes())))
    assert report.accepted, report.reasons
    what = "Boolean function" if mode == "threshold" else "gate-wise multilinear extension"
    assert f"C equals the {what} of netlist {path.name!r}" in report.theorem
