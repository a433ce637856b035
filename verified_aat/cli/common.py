"""Helpers shared by subcommands: choosing a circuit (file or family) and printing values."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from ..circuits.io import FORMATS, MODES, load_circuit
from ..circuits.ir import Circuit, Domain
from ..errors import InputError
from .option_rules import integer

CERTIFICATE_FORMATS = ("verified-aat/certificate", "verified-aat/schematic-certificate",
                       "verified-aat/audit-certificate", "verified-aat/audit-family-certificate")
"""The ``format`` of the four kinds of certificate (per circuit, schematic, audit per N, audit for every N)."""

ARGUMENTS = "command line"
"""The ``file`` part of errors about the command line itself."""


def add_circuit_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``CIRCUIT`` (optional positional), ``--format``, ``--family NAME --n N``, ``--mode`` and ``--cap``."""
    parser.add_argument("circuit", nargs="?", metavar="CIRCUIT",
                        help="circuit file: .circ/.txt (text), .json, or a netlist .bench/.blif/.bristol "
                             "(a .txt file that starts with a Bristol Fashion header is read as one)")
    parser.add_argument("--format", choices=FORMATS, default=None, dest="circuit_format",
                        help="read CIRCUIT in this format whatever its extension, e.g. --format bristol for "
                             "a Bristol Fashion .txt file")
    group = parser.add_argument_group("built-in families (instead of CIRCUIT)")
    group.add_argument("--family", metavar="NAME", help="a built-in circuit family, e.g. inner-product")
    group.add_argument("--n", type=integer, metavar="N", help="input length for --family")
    parser.add_argument("--mode", choices=MODES, default="exact",
                        help="arithmetization of a netlist: exact (gate-wise: each gate its polynomial, e.g. NAND "
                             "1-ab, composed as wired; equal to the netlist on {0,1}^n, defined on all of Q^n, not "
                             "the multilinear extension) or threshold (sign gates, {0,1}^n only); default exact")
    parser.add_argument("--cap", type=integer, default=None, metavar="N",
                        help="netlists: the depth-aware arithmetization, expanding products of up to N terms "
                             "(shallower, can be larger; falls back to the linear one beyond 4x its size bound), "
                             "whose certificate links the netlist by candidates, which `check` reads only with "
                             "--candidate-link; default: the linear arithmetization (at most 4 gates per 2-input gate)")
    parser.add_argument("--drop-dead", action="store_true",
                        help="netlists: drop gates that no output depends on before checking the netlist "
                             "(e.g. an undefined net that feeds only dead logic)")


def circuit_from_args(args: argparse.Namespace) -> Circuit:
    """The circuit named by the arguments of :func:`add_circuit_argument`."""
    path = getattr(args, "circuit", None)
    family = getattr(args, "family", None)
    n = getattr(args, "n", None)
    if path is not None and family is not None:
        raise InputError("give either a CIRCUIT file or --family, not both", ARGUMENTS)
    if family is None:
        if n is not None:
            raise InputError("--n needs --family NAME", ARGUMENTS)
        if path is None:
            raise InputError("no circuit: give a CIRCUIT file or --family NAME --n N", ARGUMENTS)
        cap = getattr(args, "cap", None)
        if cap is not None and cap < 1:
            raise InputError(f"must be >= 1, got {cap}", "--cap")
        _netlist_options_only_for_netlists(args)
        return load_circuit(path, getattr(args, "mode", None), getattr(args, "circuit_format", None), cap,
                            getattr(args, "drop_dead", False))
    if getattr(args, "circuit_format", None) is not None:
        raise InputError("--format applies to a CIRCUIT file, not to --family", ARGUMENTS)
    if n is None:
        raise InputError(f"--family {family} needs --n N (the input length)", ARGUMENTS)
    # n below the family's least (0 for sum, 1 for most, 3 for unbounded-product): build_family names that least
    from ..circuits.families import build_family  # written separately; imported lazily
    try:
        return build_family(family, n)
    except InputError as exc:
        raise exc.located("--family") from None


def arithmetized_here(args: argparse.Namespace) -> bool | None:
    """Whether CIRCUIT is a netlist file that this run arithmetizes (a .circ or .json file is a circuit already);
    None when that is not known before reading (standard input) or there is no file (--family)."""
    from ..circuits.io import STDIN, file_format
    path = getattr(args, "circuit", None)
    if path in (None, STDIN):
        return None
    return file_format(path, getattr(args, "circuit_format", None)) not in ("text", "json")


def _netlist_options_only_for_netlists(args: argparse.Namespace) -> None:
    """--mode, --cap and --drop-dead arithmetize a netlist: on a .circ or .json circuit they would do nothing."""
    from .option_rules import given, option_name
    written = [dest for dest in ("mode", "cap", "drop_dead") if given(args, dest)]
    if written and arithmetized_here(args) is False:
        raise InputError(f"{option_name(written[0])} arithmetizes a netlist; this circuit file is one already "
                         "(here it would do nothing)", ARGUMENTS)


def domain_sentence(circuit: Circuit) -> str:
    """On which inputs the circuit computes what it is meant to (netlist or function)."""
    arith = circuit.provenance.arithmetization if circuit.provenance else None
    if arith == "exact":
        return ("exact arithmetization: gate-wise (each gate its polynomial) on all of Q^n, equal to the netlist "
                "on {0,1}^n; not the multilinear extension")
    if arith == "threshold":
        return "threshold arithmetization: it matches the netlist on {0,1}^n only"
    if circuit.domain is Domain.BOOLEAN:
        return "meant for inputs in {0,1}^n only"
    return "computes its function on all of Q^n"


# -- many input vectors (``--inputs FILE``) ---------------------------------------------

MAX_INPUTS = 10_000
"""Default limit on the vectors in an ``--inputs`` file (raised with ``--max-inputs N``)."""


def add_inputs_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--inputs FILE`` and ``--max-inputs N``."""
    parser.add_argument("--inputs", metavar="FILE", default=None,
                        help="a file of input vectors, one a line in the syntax of --input (blank lines and "
                             "#-comments skipped); all are checked first, then run in one start, one output "
                             "line per vector")
    parser.add_argument("--max-inputs", type=integer, default=MAX_INPUTS, metavar="N",
                        help=f"the most vectors an --inputs file may hold (default {MAX_INPUTS})")


def read_input_vectors(path: str, limit: int, parse: Callable[[str], list[Any]]) -> list[tuple[int, list[Any]]]:
    """(line number, vector) for every vector line of ``path``, each parsed by ``parse``.

    Every line is checked before anything runs: a bad line (or more than ``limit``
    vectors, or none) is an :class:`InputError` at ``path:line``.
    """
    from ..circuits.text_format import decode_circuit_bytes

    if limit < 1:
        raise InputError(f"--max-inputs must be at least 1, got {limit}", ARGUMENTS)
    from ..files import read_named
    path, raw = read_named(path, "input vectors")
    text = decode_circuit_bytes(raw, path)
    vectors: list[tuple[int, list[Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):  # not splitlines(): U+2028, U+001C, ... end no line
        line = line.split("#", 1)[0].strip(" \t\r\f\v")  # ASCII whitespace; any other is the parser's to refuse
        if not line:
            continue
        if len(vectors) == limit:
            raise InputError(f"more than {limit} input vectors (--max-inputs N raises the limit)", path, number)
        try:
            vectors.append((number, parse(line)))
        except InputError as exc:
            raise InputError(exc.message, path, number) from None
    if not vectors:
        raise InputError("no input vectors (one a line; blank lines and #-comments are skipped)", path)
    return vectors


def check_class_at_source(construction: Any, circuit: Circuit, args: argparse.Namespace) -> None:
    """The construction's class check, its error naming the circuit's file (or --family, <stdin>)."""
    try:
        construction.check_class(circuit)
    except InputError as exc:
        source = getattr(args, "circuit", None)
        raise exc.located({None: f"--family {getattr(args, 'family', '')}".strip(), "-": "<stdin>"}.get(source, source)) \
            from None


def read_certificate_argument(path: str) -> dict[str, Any]:
    """A certificate file, or standard input for ``-`` (plain or gzip), parsed by the kernel's reader.

    A JSON document of another kind (a transformer, an encoding, a circuit) is bad input, not a
    rejected certificate: the user handed over the wrong file."""
    from ..files import read_stdin, shown

    name = shown(path)
    doc = parse_certificate_bytes(read_stdin("certificate") if path == "-" else None, name)
    if doc.get("format") not in CERTIFICATE_FORMATS:
        shown = doc.get("format") if isinstance(doc.get("format"), str) and len(doc["format"]) <= 80 else "none"
        raise InputError(f"not a certificate: its format is {shown!r}, not one of {', '.join(CERTIFICATE_FORMATS)}",
                         name)
    return doc


def parse_certificate_bytes(raw: bytes | None, name: str) -> dict[str, Any]:
    """The kernel's reading of a certificate (``raw`` bytes, or the file ``name`` when ``None``) under
    the ``--max-inflated`` limit; a file past a reading limit stops the command as *unknown*."""
    from ..errors import LimitReached
    from ..files import max_inflated_bytes, remember_input
    from ..kernel import CertificateTooLarge, load_certificate, parse_certificate

    try:
        if raw is not None:
            return parse_certificate(raw, name, max_inflated_bytes())
        doc = load_certificate(name, max_inflated_bytes())
    except CertificateTooLarge as exc:
        raise LimitReached(str(exc).replace(": not checked:", ":", 1)) from None
    remember_input(name)
    return doc


def add_cluster_argument(parser: argparse.ArgumentParser) -> None:
    """``--cluster local:N | tcp://HOST:PORT``: derive large encodings on Dask workers (docs/scaling.md)."""
    parser.add_argument("--cluster", metavar="SPEC", type=_cluster, default=None,
                        help="derive a large encoding's obligations on a Dask cluster: local:N (N worker "
                             "processes) or tcp://HOST:PORT (a running scheduler); the result does not depend "
                             "on it (docs/scaling.md)")


def _cluster(text: str) -> str:
    """``--cluster``'s value, checked by :func:`~verified_aat.shards.parse_cluster`, its message kept."""
    from ..shards import parse_cluster
    try:
        return parse_cluster(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def by_candidates(doc: Any) -> bool:
    """Whether a certificate's netlist section is a link by candidates (cap mode), which check reads only with
    --candidate-link."""
    section = doc.get("netlist") if isinstance(doc, dict) else None
    return isinstance(section, dict) and "steps" not in section and "signals" in section  # as the kernel's gate
