"""``verified-aat report``: a self-contained HTML report of a certificate or a refutation.

INPUT is a certificate (plain or gzip; the trusted kernel judges it unless ``--no-check``) or
the object ``refute --json`` printed (a file, or ``-`` for standard input).  ``certify`` and
``refute`` write the same report directly with ``--report FILE``; that is the way for a
refuted ``certify --transformer`` run, whose ``--json`` output holds no circuit.
Exit 0 when the report is written (whatever the verdict it shows), 2 for bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

from ..errors import EXIT_OK, InputError

LAYOUTS = ("auto", "graphviz", "python")
from .common import CERTIFICATE_FORMATS  # noqa: E402


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a self-contained HTML report of a certificate or a refutation",
                       description="Write one HTML file (no network needed to view it): verdict, circuit drawing, "
                                   "transformer layout, attention heat-maps, obligations with their lemmas as "
                                   "formulas, the trusted base; for a refutation the counterexample trace and "
                                   "the edited lines of the transformer. INPUT: a certificate, or the output of "
                                   "`refute --json` (- for standard input). Exit 0 written, 2 bad input.")
    p.add_argument("input", metavar="INPUT", help="certificate (.json or .json.gz) or a `refute --json` output")
    p.add_argument("-o", "--output", metavar="HTML", required=True, help="the report file to write")
    add_layout_argument(p)
    p.add_argument("--no-check", action="store_true",
                   help="a certificate: show its own status instead of running the trusted kernel")
    p.add_argument("--solver", choices=("z3", "cvc5", "both"), default="z3", help="the kernel's solver (default z3)")
    p.add_argument("--candidate-link", action="store_true",
                   help="a certificate with a netlist link by candidates (certify --cap N): let the kernel read it, "
                        "as check --candidate-link does (without it the page says not checked)")
    p.set_defaults(func=run)


def add_layout_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layout", choices=LAYOUTS, default="auto",
                        help="circuit drawing: Graphviz dot if installed (auto), dot only, or the pure-Python "
                             "layered layout")


def add_report_argument(parser: argparse.ArgumentParser) -> None:
    """``--report FILE`` (and ``--layout``) for ``certify`` and ``refute``."""
    parser.add_argument("--report", metavar="HTML", help="also write a self-contained HTML report of the outcome "
                                                         "(proved, refuted or unknown)")
    add_layout_argument(parser)


def check_output_path(path: str | None, option: str = "--report") -> None:
    """Refuse a report path in a missing directory before any work."""
    if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise InputError(f"cannot write: no directory {os.path.dirname(path) or '.'} ({option})", path)


def write(source: Any, path: str, quiet: bool = False, **options: Any) -> int:
    """Render ``source`` to ``path``; print one line (to stderr when ``quiet``); return the size."""
    from ..report import write_report

    start, cpu = time.perf_counter(), time.process_time()
    size = write_report(source, path, **options)
    line = (f"report           {path} ({size:,} bytes, {time.perf_counter() - start:.2f} s wall, "
            f"{time.process_time() - cpu:.2f} s CPU)")
    print(line, file=sys.stderr if quiet else sys.stdout)
    return size


def run(args: argparse.Namespace) -> int:
    check_output_path(args.output, "-o")
    source, name = _read(args.input)
    from ..report.theorems import is_theorem_certificate

    from .option_rules import given
    if given(args, "layout") and isinstance(source, dict) and is_theorem_certificate(source):
        raise InputError("--layout draws a circuit; a schematic or audit certificate's page has none (here it would "
                         "do nothing)", "command line")
    for option in ("solver", "no_check", "candidate_link"):
        if given(args, option) and isinstance(source, _RefuteJson):
            raise InputError(f"--{option.replace('_', '-')} goes with a certificate, which the kernel checks; a refute "
                             "result is shown, not checked (here it would do nothing)", "command line")
    if isinstance(source, _RefuteJson):
        from ..report.data import from_refute_json

        source = from_refute_json(source.doc, f"refute --json {name}", file=name, line_of=source.locator.line)
    elif isinstance(source, dict) and not args.no_check and (source.get("format") == "verified-aat/certificate"
                                                           or is_theorem_certificate(source)):
        from ..api import check

        source = _with_kernel(source, check(source, solver=args.solver, candidate_link=args.candidate_link), name)
    write(source, args.output, layout=args.layout)
    return EXIT_OK


def _with_kernel(doc: dict[str, Any], kernel_report: Any, name: str) -> Any:
    from ..report.data import from_certificate
    from ..report.theorems import from_theorem_certificate, is_theorem_certificate

    make = from_theorem_certificate if is_theorem_certificate(doc) else from_certificate
    return make(doc, kernel_report, source=f"certificate {name}, judged by the trusted kernel")


@dataclass(frozen=True)
class _RefuteJson:
    """A ``refute --json`` object and the lines of its keys (for the schema's error messages)."""

    doc: dict[str, Any]
    locator: Any


def _read(path: str) -> tuple[Any, str]:
    """A certificate (by the kernel's reader) or a ``refute --json`` object."""

    from ..kernel import CertificateFileError

    from .common import parse_certificate_bytes

    from ..files import read_named
    name, raw = read_named(path, "report input")
    if raw[:2] != b"\x1f\x8b":
        from ..transformer.jsonfile import parse_json_text
        try:  # the strict reader: nesting, digits, NaN, duplicate keys and lone surrogates are bad input
            doc, locator = parse_json_text(raw.decode("utf-8"), name)
        except UnicodeDecodeError as exc:  # the line of the first byte that is not UTF-8, as read_json_file says it
            raise InputError("not a certificate or a refute --json result: not UTF-8 text (binary junk?)", name,
                             raw.count(b"\n", 0, exc.start) + 1) from None
        if isinstance(doc, dict) and doc.get("command") in ("refute", "certify"):
            if doc.get("command") == "certify":
                raise InputError("a `certify --json` result holds no circuit or transformer: run `certify ... "
                                 "--report HTML` instead", name)
            return _RefuteJson(doc, locator), name
        if not isinstance(doc, dict) or doc.get("format") not in CERTIFICATE_FORMATS:
            raise InputError("not a certificate (format verified-aat/certificate, schematic-certificate or "
                             "audit-certificate) or a refute --json result", name)
    try:
        return parse_certificate_bytes(raw, name), name
    except CertificateFileError as exc:
        raise InputError(str(exc).split(": ", 1)[-1], name) from None
