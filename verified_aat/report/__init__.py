"""Self-contained HTML reports of certificates, certify results and refutations.

>>> import verified_aat as va
>>> from verified_aat.report import render_html
>>> page = render_html(va.certify(va.family("inner-product", 2), "gate-edge"))
>>> page.startswith("<!DOCTYPE html>")
True

One file, no network at view time: inline CSS and SVG, PNG heat-maps as data URIs, lemmas as
MathML.  ``layout="python"`` forces the pure-Python circuit layout (the fallback when Graphviz's
``dot`` is missing).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from .data import ReportData, from_certificate, from_certify_result, from_refutation, from_refute_json
from .theorems import TheoremData, from_theorem_certificate, is_theorem_certificate

__all__ = ["render_html", "report_data", "write_report", "ReportData", "TheoremData"]


def report_data(source: Any, *, transformer_path: str | None = None, check: bool = False,
                model_path: str | None = None, construction: str = "gate-edge") -> ReportData | TheoremData:
    """What the page shows, from a CertifyResult, a certificate dict (per-circuit, schematic or audit),
    a ``refute --json`` dict, or a Refutation (then ``model_path`` names the edited transformer file)."""
    from ..refutation.refute import Refutation
    from ..symbolic.certify import CertifyResult

    if isinstance(source, (ReportData, TheoremData)):
        return source
    if isinstance(source, CertifyResult):
        return from_certify_result(source, transformer_path)
    if isinstance(source, Refutation):
        if model_path is None:
            raise InputError("a Refutation's report needs model_path, the edited transformer file")
        return from_refutation(source, model_path, construction)
    if isinstance(source, dict) and source.get("format") == "verified-aat/certificate":
        kernel = None
        if check:
            from ..results import kernel_check
            kernel = kernel_check(source)
        return from_certificate(source, kernel)
    if is_theorem_certificate(source):
        kernel = None
        if check:
            from ..results import kernel_check
            kernel = kernel_check(source)
        return from_theorem_certificate(source, kernel)
    if isinstance(source, dict) and source.get("command") == "refute":
        return from_refute_json(source)
    if isinstance(source, dict) and source.get("command") == "certify":
        raise InputError("a `certify --json` result holds no circuit or transformer: run `certify ... --report "
                         "R.html` instead")
    raise InputError(f"cannot report on a {type(source).__name__}: give a certify result, a certificate, "
                     f"a refute --json object or a Refutation")


def render_html(source: Any, *, layout: str = "auto", transformer_path: str | None = None, check: bool = False,
                model_path: str | None = None, construction: str = "gate-edge") -> str:
    """The report as one self-contained HTML document (see :func:`report_data` for ``source``)."""
    from .html import render_page

    if layout not in ("auto", "graphviz", "python"):
        raise InputError(f"layout must be auto, graphviz or python, got {layout!r}")
    data = report_data(source, transformer_path=transformer_path, check=check, model_path=model_path,
                       construction=construction)
    if isinstance(data, TheoremData):
        from .theorems import render_theorem_page
        return render_theorem_page(data)
    return render_page(data, layout)


def write_report(source: Any, path: str, **options: Any) -> int:
    """Render and write atomically; returns the file's size in bytes."""
    from ..files import write_atomically

    page = render_html(source, **options).encode("utf-8")
    write_atomically(path, page)
    return len(page)
