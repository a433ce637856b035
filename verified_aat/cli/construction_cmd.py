"""``verified-aat construction``: show a built-in's document, check a construction document."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..wording import plural


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
    from .streams import write_bytes
    write_bytes(path.read_bytes())
    return 0


def run_check(args: argparse.Namespace) -> int:
    from ..constructions.document import parse_document
    from ..files import shown
    from ..transformer.jsonfile import read_json_file

    data, locator = read_json_file(args.file, "construction document")
    file = shown(args.file)
    doc = parse_document(data, file, locator)
    groups = ", ".join(g.role for g in doc.groups)
    print(f"{file}: construction {doc.name}: {plural(len(doc.coordinates), 'coordinate')} ({', '.join(doc.coordinates)}); "
          f"positions: {groups}; read-out {doc.readout[0]}.{doc.coordinates[doc.readout[1]]}; "
          f"{doc.layers_text()} layers; {_kernel_reading(file, data, locator)}")
    return 0


def _kernel_reading(file: str, data: object, locator) -> str:  # type: ignore[no-untyped-def]
    """What the trusted kernel makes of the document: its reader must accept it (else exit 2), and it
    says which every-K induction applies (docs/soundness.md S2, P2)."""
    import re

    from ..kernel.data import Malformed, NotChecked
    from ..kernel.layouts import read_construction
    from ..kernel.problems import render
    from ..kernel.schematic_edges import EdgeScheme
    from ..kernel.schematic_scheme import EarlySchedule, encoding_problems, scheme_of

    try:
        scheme = scheme_of(read_construction(data, "$"))
        problems = encoding_problems(scheme)
    except Malformed as exc:
        path = tuple(int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]$]+", exc.path))
        raise InputError(f"the kernel's reader refuses it: {render(exc.message, exc.data)}", file,
                         locator.line(path)) from None
    except (NotChecked, EarlySchedule) as exc:  # an early schedule may fit another layering: certify decides
        return f"every K: no induction of the kernel applies ({exc})"
    if problems:
        return f"every K: not provable as it stands ({problems[0]})"
    return f"every K: the {'edge' if isinstance(scheme, EdgeScheme) else 'gate-edge'} induction applies"
