"""``verified-aat show``: a certificate as people read it.

Certificates are written compact (no indentation, optionally gzip-compressed) so that
they stay small at 10⁶ gates; ``show`` prints the same document indented, one
section, a size summary, or one lemma's SMT-LIB text as it is sent to the solver.
Reading never judges: ``check`` does that.  Exit 0, or 2 for an unreadable file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import EXIT_OK, InputError
from ..wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="print a certificate (plain or .gz) indented, by section, or one lemma",
                       description="Print CERT as indented JSON (certificates are stored compact). "
                                   "Exit 0, or 2 if the file is not a certificate.")
    p.add_argument("certificate", metavar="CERT")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--summary", action="store_true",
                      help="one line per top-level section: its compact size and how many entries it has")
    what.add_argument("--section", metavar="KEY", help="print only this top-level section")
    what.add_argument("--lemma", metavar="ID", help="print the SMT-LIB text of the lemma whose id starts with ID")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .common import read_certificate_argument

    doc = read_certificate_argument(args.certificate)  # a CertificateFileError is main()'s: one line, exit 2
    if args.summary:
        for key in sorted(doc):
            print(f"{key:<14} {_size(doc[key]):>12,} bytes  {_count(doc[key])}")
        return EXIT_OK
    if args.lemma is not None:
        return _print_lemma(args, doc)
    if args.section is not None:
        if args.section not in doc:  # an InputError: one line, whatever the name holds
            raise InputError(f"--section: no section '{args.section}' (there are: {', '.join(sorted(doc))})",
                             args.certificate)
        doc = doc[args.section]
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return EXIT_OK


def _print_lemma(args: argparse.Namespace, doc: dict[str, Any]) -> int:
    lemmas = doc.get("lemmas")
    found = [lemma for lemma in lemmas if isinstance(lemma, dict) and str(lemma.get("id", "")).startswith(args.lemma)] \
        if isinstance(lemmas, list) and args.lemma else []
    if len(found) != 1:
        problem = "no lemma" if not found else plural(len(found), "lemma")
        raise InputError(f"--lemma: {problem} with an id starting with '{args.lemma}'", args.certificate)
    lemma = found[0]
    print(f"; lemma {lemma.get('id')}  kind {lemma.get('kind')}  uses {lemma.get('uses')}  "
          f"closed by {lemma.get('engine')}; expected: unsat")
    sys.stdout.write(str(lemma.get("smt2", "")))
    return EXIT_OK


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _count(value: Any) -> str:
    if isinstance(value, list):
        return plural(len(value), "entry", "entries")
    if isinstance(value, dict):
        return plural(len(value), "key")
    return ""
