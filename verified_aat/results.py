"""Typed wrappers the API hands out around values the kernel and the certificate writer make.

The trusted kernel stays as it is (its :class:`~verified_aat.kernel.Report` has a plain string
outcome, and the kernel imports nothing from here): :class:`CheckReport` is the same report
with the outcome as a :class:`~verified_aat.status.Verdict` and a short ``repr``.
:class:`Certificate` is the certificate document, a ``dict`` (so ``json.dump`` and every
function taking a document accept it) that prints as one line instead of megabytes of JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from .kernel import Options, Report, check_certificate
from .status import Verdict


@dataclass(repr=False)
class CheckReport(Report):
    """The trusted kernel's report; ``outcome`` is a :class:`Verdict` (equal to its string)."""

    if TYPE_CHECKING:  # for type checkers only: the field stays the kernel's, from_kernel sets a Verdict
        outcome: Verdict = Verdict.REJECTED

    @classmethod
    def from_kernel(cls, report: Report) -> "CheckReport":
        """The same report, its outcome typed."""
        values = {f.name: getattr(report, f.name) for f in fields(report)}
        values["outcome"] = Verdict(report.outcome)
        return cls(**values)

    @property
    def verdict(self) -> Verdict:
        return Verdict(self.outcome)

    def __repr__(self) -> str:
        from .display import report_repr
        return report_repr(self)

    def _repr_html_(self) -> str:
        """Verdict, theorem, counts and reasons as a table for Jupyter."""
        from .display import report_html
        return report_html(self)


def kernel_check(doc: dict[str, Any], options: Options | None = None) -> CheckReport:
    """The trusted kernel's verdict on a certificate document (``options``: the kernel's defaults,
    z3 and 20 s per lemma, when None); what :func:`verified_aat.api.check` returns."""
    return CheckReport.from_kernel(check_certificate(dict(doc), options or Options()))


def transformer_is_own(doc: dict[str, Any]) -> bool | None:
    """Whether a certificate's transformer is its construction's own T_K for some K, judged by the kernel's
    readers alone (its construction document and its term comparison, ``kernel/document_transformer.own_depth``),
    so ``check`` needs no engine for its ``transformer`` line.  Informational: the verdict never rests on it
    (a certificate that *claims* ``info.transformer: own`` has the claim checked by the kernel, S2).  None:
    the kernel cannot read the construction or the transformer."""
    from .kernel.data import Malformed, NotChecked, load_transformer
    from .kernel.document_transformer import own_depth
    from .kernel.layouts import construction_of
    try:
        construction = construction_of(doc.get("construction"), doc.get("construction_document"))
        transformer = load_transformer(doc.get("transformer"))
    except (Malformed, NotChecked, RecursionError, MemoryError):
        return None
    return own_depth(construction.data, transformer) is not None


class Certificate(dict[str, Any]):
    """A certificate document (format ``verified-aat-certificate``) with a one-line ``repr``."""

    def __repr__(self) -> str:
        from .display import certificate_repr
        return certificate_repr(self)

    def _repr_html_(self) -> str:
        """Construction, circuit, lemma count and claim as a table for Jupyter."""
        from .display import certificate_html
        return certificate_html(self)
