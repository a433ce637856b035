"""A user script over the README's Python API, checked by ``mypy --strict`` (tests/test_typing.py).

Certifies the bundled depth-6 circuit and a family member, has the trusted kernel check each
certificate, certifies the circuit again by the every-K theorem, and runs the compiled transformer exactly.  From the checkout, after
``pip install -e .``::

    python examples/typed_api_use.py
    python -m mypy --strict examples/typed_api_use.py
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import verified_aat as va

MIXED_DEPTH6 = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "mixed_depth6.circ"


def certify_and_check(circuit: va.Circuit, construction: str = "gate-edge") -> va.Verdict:
    """Prove that ``construction`` simulates ``circuit`` on every input, then re-check the proof."""
    result = va.certify(circuit, construction, timeout=5)   # result.status: va.Status.PROVED / REFUTED / UNKNOWN
    if result.status is not va.Status.PROVED:
        raise SystemExit(f"{circuit.name}: {result.status}")
    report = va.check(va.certificate(result))                # the trusted kernel: report.outcome, report.theorem
    print(f"{report.outcome}: {report.theorem}")
    return report.outcome


def main() -> None:
    circuit = va.load_circuit(str(MIXED_DEPTH6), mode="exact")
    majority = va.family("majority", 5)
    verdicts = [certify_and_check(circuit), certify_and_check(majority)]
    assert verdicts == [va.Verdict.ACCEPTED, va.Verdict.ACCEPTED]
    every_k = va.certify(circuit, "gate-edge", every_k=True)  # the every-K proof instantiated at the circuit
    assert every_k.status is va.Status.PROVED and every_k.depth == 6
    assert va.check(va.certificate(every_k)).outcome is va.Verdict.ACCEPTED
    x: list[Fraction | int] = [Fraction(i, 3) - 1 for i in range(circuit.n_inputs)]
    outputs = va.simulate(circuit, x)                      # exact run of the compiled transformer
    assert outputs == va.evaluate(circuit, x)
    print(f"T(enc(C, {[str(v) for v in x]})) = {[str(v) for v in outputs]}")


if __name__ == "__main__":
    main()
