"""``verified-aat construction``: show a built-in's document, check a construction document."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("construction", help="show or check construction documents (verified-aat/construction JSON)",
                       description="A construction as a JSON document (docs/construction-format.md). `show NAME` "
                                   "prints a built-in's document; `check FILE` validates one (exit 0 with a "
                                   "one-line summary, or one file:line error and exit 2). A document is used "
                                   "with `-c FILE.json` by compile, certify, run, refute and audit.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print a built-in construction's document")
    show.add_argument("name", metavar="NAME")
    show.set_defaults(func=run_show)
    check = actions.add_parser("check", help="validate a construction document")
    check.add_argument("file", metavar="FILE")
    check.set_defaults(func=run_check)
    p.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    """The shipped document, byte for byte."""
    from ..constructions.document import builtin_document_path
    from ..constructions.registry import CONSTRUCTIONS

    if args.name not in CONSTRUCTIONS:
        raise InputError(f"unknown construction {args.name!r}; known: {', '.join(sorted(CONSTRUCTIONS))}", "NAME")
    path = builtin_document_path(args.name)
    sys.stdout.flush()
    sys.stdout.buffer.write(path.read_bytes())
    sys.stdout.buffer.flush()
    return 0


def run_check(args: argparse.Namespace) -> int:
    from ..constructions.document import load_document

    doc = load_document(args.file)
    groups = ", ".join(g.role for g in doc.groups)
    print(f"{args.file}: construction {doc.name}: {len(doc.coordinates)} coordinates ({', '.join(doc.coordinates)}); "
          f"positions: {groups}; read-out {doc.readout[0]}.{doc.coordinates[doc.readout[1]]}; "
          f"{doc.layers_text()} layers")
    return 0


def refuse_report_with_document(args: argparse.Namespace) -> None:
    """``--report`` draws a built-in's layout; with ``-c FILE.json`` it is refused before any work (exit 2)."""
    from ..constructions.registry import CONSTRUCTIONS

    value = str(getattr(args, "construction", None) or "")
    if getattr(args, "report", None) and value.endswith(".json") and value not in CONSTRUCTIONS:
        raise InputError("does not yet draw a construction document's layout; leave out --report with -c FILE.json",
                         "--report")
