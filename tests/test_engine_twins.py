"""The engine's twins of kernel code are other code, and the kernel catches them when they go wrong
(issue 21 item 2; docs/soundness.md, "Engine twins").

The engine derives the encoding digest and the obligations' lemma texts itself, from its own encoding,
claims and argmax sets; the kernel derives both again from the certificate with its own code and
requires them equal.  A bug in the engine's copy therefore never yields an accepted certificate: each
test breaks one engine twin, and certify's kernel check rejects by the check that compares it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import verified_aat.api as va
from verified_aat.certificates import document
from verified_aat.symbolic import obligations

ROOT = Path(__file__).resolve().parent.parent
CIRCUIT = ROOT / "specs" / "circuits" / "mixed_depth6.circ"


def _digest_off_by_one_row(real):  # type: ignore[no-untyped-def]
    def twin(encoding):  # type: ignore[no-untyped-def]
        rows = list(encoding.rows)
        rows[-1] = tuple(rows[-1][:-1]) + (rows[-1][-1] + 1,)
        return real(type(encoding)(encoding.construction, encoding.coordinates, tuple(rows), encoding.input_slots,
                                   encoding.readout, encoding.roles, encoding.n_inputs))
    return twin


def _renderer_adds_an_assertion(real):  # type: ignore[no-untyped-def]
    def twin(self, shape):  # type: ignore[no-untyped-def]
        return real(self, shape).replace("(check-sat)", "(assert (= 0.0 0.0))\n(check-sat)")
    return twin


@pytest.mark.parametrize("twin", ["encoding digest", "obligation renderer"])
def test_a_broken_engine_twin_is_rejected_by_the_kernel(twin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    circuit = va.load_circuit(str(CIRCUIT))
    assert va.certify(circuit).kernel == "accepted"  # the twins as they are agree
    if twin == "encoding digest":
        monkeypatch.setattr(document, "encoding_digest", _digest_off_by_one_row(document.encoding_digest))
    else:
        monkeypatch.setattr(obligations.ObligationDeriver, "render",
                            _renderer_adds_an_assertion(obligations.ObligationDeriver.render))
    result = va.certify(circuit)
    assert result.kernel == "rejected" and result.status == "unknown" and result.certificate is None
    check = {"encoding digest": "encoding", "obligation renderer": "lemma"}[twin]
    rejections = [str(r) for r in result.kernel_report.rejections]
    assert any(check in r for r in rejections), rejections
