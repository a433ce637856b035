"""The certify pipeline: untrusted stages hand typed data along, and the trusted kernel has the last word.

Like Tracr's ``compiling.py`` and CompCert's validators: compile → derive → decide (the engine,
``symbolic/certify.py``), the refutation search on failure (``refutation/search.py``, a counterexample
only after an exact replay), the certificate (``certificates/document.py``), then the kernel's check
(``kernel/``).  A certificate the kernel does not accept is never handed out, and the result then says
*unknown*, with the kernel's reasons: the engine's *proved* is only a proposal.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .circuits.ir import Circuit
from .constructions.base import Construction
from .status import Status
from .symbolic.certify import CertifyResult
from .symbolic.certify import certify as engine_certify
from .transformer.model import Transformer

Progress = Callable[[str, int, int], None]


def certify(circuit: Circuit, construction: Construction, depth_bound: int | None = None,
            transformer: Transformer | None = None, *, timeout_ms: int = 10_000, jobs: int = 1,
            refute: bool = True, kernel: bool = True, progress: Progress | None = None,
            sections: Callable[[CertifyResult], dict[str, Any]] | None = None,
            include_timings: bool = True, cluster: str | None = None) -> CertifyResult:
    """Certify that ``transformer`` (default the construction's T_K) simulates ``circuit``; with ``kernel``,
    end with the kernel's verdict (``result.kernel``, ``result.theorem``, ``result.certificate``).
    ``sections(result)``: extra certificate sections (``netlist``, ``original``) once the proof is known;
    ``cluster``: derive large encodings on a Dask cluster (``local:N``, ``tcp://HOST:PORT``; ``jobs`` ≥ 2
    without one: a local cluster of ``jobs`` workers), in both the engine and the kernel."""
    from .shards import sharding
    with sharding(cluster, jobs) as shards:
        return _certify(circuit, construction, depth_bound, transformer, timeout_ms, jobs, refute, kernel,
                        progress, sections, include_timings, shards)


def _certify(circuit: Circuit, construction: Construction, depth_bound: int | None,
             transformer: Transformer | None, timeout_ms: int, jobs: int, refute: bool, kernel: bool,
             progress: Progress | None, sections: Callable[[CertifyResult], dict[str, Any]] | None,
             include_timings: bool, shards: Any) -> CertifyResult:
    import time

    from .certificates.document import build_certificate, certificate_bytes

    result = engine_certify(circuit, construction, depth_bound, transformer, timeout_ms, jobs, refute=refute,
                            progress=progress, shards=shards)                   # untrusted: a proposal
    if result.status != Status.PROVED:
        return result
    doc = build_certificate(result, include_timings=include_timings, **(sections(result) if sections else {}))
    if not kernel:
        result.certificate = doc
        result.kernel = "not checked by the kernel"
        return result
    from .kernel import check_certificate
    from .kernel.report import Options
    t0 = time.perf_counter()  # the engine's own certificate: cap mode's link by candidates is read, and certify says so
    report = check_certificate(json.loads(certificate_bytes(doc)), Options(timeout_ms=timeout_ms, jobs=max(1, jobs),
                                                                         shards=shards, candidate_link=True))
    result.seconds["kernel"] = time.perf_counter() - t0
    result.kernel, result.kernel_report = report.outcome, report
    if report.accepted:
        result.certificate, result.theorem = doc, report.theorem
    else:  # the engine's proof is not the kernel's: unknown, and no certificate
        result.status = Status.UNKNOWN
        result.problems.extend(f"the trusted kernel did not accept the certificate: {r}" for r in report.reasons[:4])
    return result
