"""The ``verified-aat`` command: a thin dispatcher over subcommand modules.

Each module in :data:`SUBCOMMANDS` defines ``register(subparsers)``, which
adds its parser and sets ``func`` to a function ``(args) -> exit code``.
Bad input anywhere becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from ..errors import EXIT_BAD_INPUT, EXIT_UNKNOWN, InputError, LimitReached, one_line
# Nothing heavy at module level: the old console script (verified_aat.cli.main:main) imports this module
# before main() installs the signal handlers (entry.py, the console script now, imports it after).
from .signals import (EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated, as_process, raise_swallowed, restore,
                      while_running)
from .streams import PipeSafe, check_stdout, stderr_line as _stderr_line

# Subcommand modules, in the order `--help` lists them.  A module that does
# not exist yet is skipped, so stages can land one at a time.
SUBCOMMANDS = ["info", "eval", "run", "compile", "certify", "check", "show", "refute", "prove-construction", "audit",
               "export", "report", "construction"]  # module: the name with '-' as '_', then _cmd

EXIT_CODES_HELP = """exit codes:
  0  success (for certify/check: proved / certificate accepted)
  1  refuted: a counterexample was found and replayed exactly
  2  bad input: malformed file or arguments (one line: file:line: what is wrong)
  3  unknown: a timeout or an unsupported case (never reported as proved)
  130  interrupted (SIGINT, Ctrl-C); 143 terminated (SIGTERM): nothing half-written is left behind
"""

class _ArgumentError(Exception):
    """An argparse error, already worded as one line."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``verified-aat: certify: ... (see ... --help)``."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        raise _ArgumentError(one_line_usage_error(self.prog, message))


def one_line_usage_error(prog: str, message: str) -> str:
    words = prog.split()
    where = ": ".join(words)
    return f"{where}: {message} (see {prog} --help)"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="verified-aat",
        description="Machine-checked transformer–circuit constructions (average attention ⇄ FSAC⁰[sign]).",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from ..files import DEFAULT_MAX_INFLATED_MB
    from .option_rules import integer, track

    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"verified_aat.cli.{name.replace('-', '_')}_cmd")
        except ModuleNotFoundError as exc:
            if exc.name == f"verified_aat.cli.{name.replace('-', '_')}_cmd":
                continue
            raise
        module.register(sub)
    for command in sub.choices.values():  # every command reads files: one decompression limit for all
        command.add_argument("--max-inflated", type=integer, default=DEFAULT_MAX_INFLATED_MB, metavar="MB",
                             help="the most MB gzip data or standard input may hold once read "
                                  f"(default {DEFAULT_MAX_INFLATED_MB}); past it: unknown (exit 3)")
    track(parser)  # every option records its use: a repeated one is an error, one that does not act too
    return parser


INPUT_ARGUMENTS = ("circuit", "model", "certificate", "input", "transformer", "encoding", "sequence", "inputs")
"""The arguments that name files a command reads (``--input=@FILE`` too)."""
_POSITIONAL = {"circuit": "CIRCUIT", "model": "MODEL", "certificate": "CERT", "file": "FILE", "input": "INPUT"}
OUTPUT_ARGUMENTS = ("output", "report", "output_circuit", "export_smt")
"""The arguments that name files (or directories) a command writes."""
STDOUT_OUTPUTS = {("certify", "output")}
"""Where ``-`` names standard output; any other output named ``-`` is bad input, never a file called '-' (red
team 25: prove-construction, report, export and audit --prove wrote one, compile made a directory '-')."""


def _directory_output(args: argparse.Namespace, attr: str) -> bool:
    """Whether the output argument ``attr`` names a directory (compile -o, audit --round-trip -o, --export-smt)."""
    return attr == "export_smt" or (attr == "output" and (args.command == "compile" or
                                                           bool(getattr(args, "round_trip", False))))


def check_output_arguments(args: argparse.Namespace) -> None:
    """Before any work: refuse every output target that is not a regular file (a directory where one
    is meant) or that is the same file as one of the command's inputs (docs/cli.md, "Files")."""
    from ..files import check_output

    inputs: list[str] = []
    for attr in (*INPUT_ARGUMENTS, "file"):  # an empty name read as '<input>: ... No such file' (red team 14)
        if (attr != "input" or getattr(args, "command", None) == "report") and getattr(args, attr, None) == "":
            raise InputError("names no file: give a file name", _POSITIONAL.get(attr, "--" + attr))
    for attr in INPUT_ARGUMENTS:
        value = getattr(args, attr, None)
        if isinstance(value, str) and value != "":  # "-": the file on standard input, if it is one
            inputs.append(value[1:] if value.startswith("@") and attr == "input" else value)
    construction = getattr(args, "construction", None)  # -c FILE.json: a construction document is an input
    if isinstance(construction, str) and (construction.endswith(".json") or construction == "-"):
        inputs.append(construction)
    named: dict[str, str] = {}  # two outputs aimed at one file: the second would replace the first
    for attr in OUTPUT_ARGUMENTS:
        value = getattr(args, attr, None)
        option = "--" + attr.replace("_", "-") if attr != "output" else "--output (-o)"
        if value == "" or (value == "-" and (getattr(args, "command", None), attr) not in STDOUT_OUTPUTS):
            raise InputError("names no file: give a file name" if value == "" else
                             "is standard output only for certify -o: give a file name", option)
        if isinstance(value, str) and value not in ("", "-"):
            check_output(value, inputs, directory=_directory_output(args, attr))
            same = named.setdefault(os.path.realpath(value), attr)
            if same != attr:
                raise InputError(f"--{same.replace('_', '-')} and --{attr.replace('_', '-')} name the same file", value)
    smt = getattr(args, "export_smt", None)  # its lemma files, KIND-ID.smt2, are written after -o and --report:
    for path, attr in named.items():  # an .smt2 output in that directory could be replaced by one (red team 11)
        if isinstance(smt, str) and attr != "export_smt" and path.endswith(".smt2") \
                and os.path.dirname(path) == os.path.realpath(smt):
            raise InputError("is in the --export-smt directory, where a lemma file of that name would replace it",
                             getattr(args, attr))



MAX_SECONDS = 10**6        # --timeout, --max-time, …: 11.6 days (1e308 overflowed the solvers' and the alarm's timers)
MAX_JOBS = 64              # as --cluster local:N (--jobs 100000 forked 2,476 processes in 30 s)
MAX_MEMORY_MB = 2**30      # a petabyte of address space (2^43 MB overflowed setrlimit)


def validate_options(args: argparse.Namespace) -> None:
    """Check the numeric options every subcommand shares, before any work: one :class:`InputError` each."""
    import math

    from ..limits import MAX_K

    k = getattr(args, "depth_bound", None)
    if k is not None:
        if k < 1:
            raise InputError(f"must be >= 1, got {k}", "--depth-bound (-K)")
        if k > MAX_K:
            raise InputError(f"must be at most {MAX_K:,} (the depth-bound limit), got {k}", "--depth-bound (-K)")
    for attr, option in (("timeout", "--timeout"), ("budget", "--budget"), ("max_time", "--max-time"),
                         ("round_trip_timeout", "--round-trip-timeout")):
        value = getattr(args, attr, None)
        if value is not None and not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
            raise InputError(f"must be a finite number > 0 (at most {MAX_SECONDS:,} seconds), got {value}", option)
    key_ms = getattr(args, "key_timeout", None)  # milliseconds: the same range as the options in seconds
    if key_ms is not None and not 0 < key_ms <= MAX_SECONDS * 1000:
        raise InputError(f"must be > 0 milliseconds (at most {MAX_SECONDS * 1000:,} ms), got {key_ms}", "--key-timeout")
    jobs = getattr(args, "jobs", None)
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"must be >= 1 (and at most {MAX_JOBS}), got {jobs}", "--jobs (-j)")
    memory = getattr(args, "max_memory", None)
    if memory is not None and not 64 <= memory <= MAX_MEMORY_MB:
        raise InputError(f"must be at least 64 (MB; at most {MAX_MEMORY_MB:,}), got {memory}", "--max-memory")
    from .option_rules import check_applicable

    check_applicable(args)  # and no option given where it would do nothing (option_rules.py)


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parse_args``, except that a CIRCUIT given after options (``refute MODEL -c NAME CIRCUIT``) is
    taken as the circuit, and unrecognized arguments name the subcommand."""
    args, extras = parser.parse_known_args(argv)
    if extras and not extras[0].startswith("-") and getattr(args, "circuit", "") is None:
        args.circuit = extras.pop(0)
    if extras:
        command = getattr(args, "command", None)
        prog = f"{parser.prog} {command}" if command else parser.prog
        raise _ArgumentError(one_line_usage_error(prog, f"unrecognized arguments: {' '.join(extras)}"))
    return args


def main(argv: list[str] | None = None) -> int:
    """The command line on ``argv``; with none (``sys.exit(main())``), on ``sys.argv`` as the whole process,
    whose SIGINT and SIGTERM then end it with one line at any time up to the interpreter's exit
    (:func:`.signals.as_process`; the console script is ``entry.py``, which loads this module under them)."""
    if argv is None:
        return as_process(lambda: run(None))
    return run(argv)


def run(argv: list[str] | None) -> int:
    """The command line once: its exit code, with the caller's signal handlers restored on return."""
    for stream in (sys.stdout, sys.stderr):  # a name that is no text (a lone surrogate) is shown escaped, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        args = _parse(parser, argv)
    except _ArgumentError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help and --version exit 0
        return 0 if exc.code == 0 else EXIT_BAD_INPUT
    if not getattr(args, "func", None):
        print("verified-aat: no command given (verified-aat --help lists them)", file=sys.stderr)
        return EXIT_BAD_INPUT
    previous, stdout = while_running(), sys.stdout  # Ctrl-C: KeyboardInterrupt; SIGTERM: Terminated
    try:
        return _command(args)
    except InputError as exc:
        print(f"verified-aat: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # binary output piped into e.g. `head` (text output stops quietly: PipeSafe)
        return 0
    except OSError as exc:
        from .common import ARGUMENTS
        where = getattr(exc, "filename", None)
        print(f"verified-aat: {InputError(exc.strerror or str(exc), str(where) if where else ARGUMENTS)}",
              file=sys.stderr)  # one line, whatever the file's name holds
        return EXIT_BAD_INPUT
    except LimitReached as exc:
        return _unknown(args, f"unknown: limit reached ({one_line(str(exc))})")
    except MemoryError:
        return _unknown(args, f"unknown: limit reached ({_out_of_memory(args)})")
    except Exception as exc:  # the kernel's reader of certificate files: its own exception, bad input
        from ..kernel import CertificateFileError
        if isinstance(exc, CertificateFileError):
            print(f"verified-aat: {one_line(str(exc))}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if os.environ.get("VERIFIED_AAT_TRACEBACK"):
            raise
        return _no_verdict(args, exc)
    except KeyboardInterrupt:
        _stderr_line("interrupted (SIGINT)")
        return EXIT_INTERRUPTED
    except Terminated:
        _stderr_line("terminated (SIGTERM)")
        return EXIT_TERMINATED
    finally:
        sys.stdout = stdout
        restore(previous)


def _command(args: argparse.Namespace) -> int:
    """The parsed command, after the checks every command shares; its output flushed (a full disk is said here)."""
    from ..files import DEFAULT_MAX_INFLATED_MB, command_scope
    from .resources import resource_limits

    check_stdout()  # a closed standard output: bad input, before any work
    validate_options(args)
    sys.stdout = PipeSafe(sys.stdout)  # type: ignore[assignment]
    with command_scope(getattr(args, "max_inflated", DEFAULT_MAX_INFLATED_MB)):
        check_output_arguments(args)
        with resource_limits(args):
            code = int(args.func(args))
    raise_swallowed()  # a SIGINT or SIGTERM that came while Python could not raise it: interrupted all the same
    sys.stdout.flush()
    return code


def _out_of_memory(args: argparse.Namespace) -> str:
    """Why a run ran out of memory, naming --max-memory only to a command that has it (``eval`` has not)."""
    if not hasattr(args, "max_memory"):
        return "out of memory"
    limit = args.max_memory
    return f"--max-memory {limit} MB" if limit else "out of memory; --max-memory sets the limit"


def _no_verdict(args: argparse.Namespace, exc: Exception) -> int:
    """An exception no command expected: one line and exit 3, never 1 (a rejection or refutation) or a traceback.
    A number past Python's 4,300 digits or a float's range is a limit reached; anything else an internal error
    (VERIFIED_AAT_TRACEBACK=1 shows the traceback)."""
    text = one_line(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, OverflowError) or isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return _unknown(args, f"unknown: limit reached (a number too large to write or to hold: {text})")
    return _unknown(args, f"unknown: internal error, no verdict ({text}); VERIFIED_AAT_TRACEBACK=1 shows where")


JSON_COMMANDS = ("certify", "check", "refute", "audit", "info", "prove-construction")  # docs/cli.md, "--json"


def _unknown(args: argparse.Namespace, why: str) -> int:
    """Exit 3 with its one line, and with ``--json`` the one object that docs/cli.md promises with exit 3 (status
    unknown; check's not-checked): a limit reached printed no JSON at all (red team, round 7)."""
    _stderr_line(why)
    if getattr(args, "json", False) and getattr(args, "command", None) in JSON_COMMANDS:
        import json
        from ..json_envelope import envelope
        try:
            print(json.dumps(envelope(args.command, "not-checked" if args.command == "check" else "unknown", [why])))
        except (OSError, ValueError):  # a closed or full standard output: the line above says why anyway
            pass
    return EXIT_UNKNOWN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
