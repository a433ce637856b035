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
from ..files import DEFAULT_MAX_INFLATED_MB, command_scope
from .common import ARGUMENTS
from .resources import resource_limits
from .option_rules import check_applicable, track

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

EXIT_INTERRUPTED = 130
"""128 + SIGINT: the run was interrupted (Ctrl-C)."""
EXIT_TERMINATED = 143
"""128 + SIGTERM: the run was terminated."""


class Terminated(BaseException):
    """Raised in the main thread by the SIGTERM handler, so that ``finally`` blocks and
    :func:`~verified_aat.circuits.io.write_atomically` clean up as for Ctrl-C.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`: ``except Exception`` does not swallow it."""


_HANDLER_PID: int | None = None
"""The process that installed the SIGTERM handler (forked workers inherit the handler, not the role)."""


def _raise_terminated(signum, frame) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal

    if os.getpid() != _HANDLER_PID:  # a forked worker: end as SIGTERM would, without a traceback
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated()


def _install_sigterm_handler():  # type: ignore[no-untyped-def]
    """Turn SIGTERM into :class:`Terminated`; return the previous handler (``None`` if not installed)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # signal() works in the main thread only
        return None
    global _HANDLER_PID
    import os
    _HANDLER_PID = os.getpid()
    try:
        return signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError, AttributeError):
        return None


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
        command.add_argument("--max-inflated", type=int, default=DEFAULT_MAX_INFLATED_MB, metavar="MB",
                             help="the most MB gzip data or standard input may hold once read "
                                  f"(default {DEFAULT_MAX_INFLATED_MB}); past it: unknown (exit 3)")
    track(parser)  # every option records its use: a repeated one is an error, one that does not act too
    return parser


INPUT_ARGUMENTS = ("circuit", "model", "certificate", "input", "transformer", "encoding", "sequence", "inputs")
"""The arguments that name files a command reads (``--input=@FILE`` too)."""
OUTPUT_ARGUMENTS = ("output", "report", "output_circuit", "export_smt")
"""The arguments that name files (or directories) a command writes."""


def _directory_output(args: argparse.Namespace, attr: str) -> bool:
    """Whether the output argument ``attr`` names a directory (compile -o, audit --round-trip -o, --export-smt)."""
    return attr == "export_smt" or (attr == "output" and (args.command == "compile" or
                                                           bool(getattr(args, "round_trip", False))))


def check_output_arguments(args: argparse.Namespace) -> None:
    """Before any work: refuse every output target that is not a regular file (a directory where one
    is meant) or that is the same file as one of the command's inputs (docs/cli.md, "Files")."""
    from ..files import check_output

    inputs: list[str] = []
    for attr in INPUT_ARGUMENTS:
        value = getattr(args, attr, None)
        if isinstance(value, str) and value not in ("", "-"):
            inputs.append(value[1:] if value.startswith("@") and attr == "input" else value)
    construction = getattr(args, "construction", None)  # -c FILE.json: a construction document is an input
    if isinstance(construction, str) and construction.endswith(".json"):
        inputs.append(construction)
    named: dict[str, str] = {}  # two outputs aimed at one file: the second would replace the first
    for attr in OUTPUT_ARGUMENTS:
        value = getattr(args, attr, None)
        option = "--" + attr.replace("_", "-") if attr != "output" else "--output (-o)"
        if value == "" or (value == "-" and attr not in ("output", "output_circuit")):
            raise InputError("names no file: give a file name" if value == "" else
                             "is standard output only for --output: give a file name", option)
        if isinstance(value, str) and value not in ("", "-"):
            check_output(value, inputs, directory=_directory_output(args, attr))
            same = named.setdefault(os.path.realpath(value), attr)
            if same != attr:
                raise InputError(f"--{same.replace('_', '-')} and --{attr.replace('_', '-')} name the same file", value)



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
    for attr, option in (("timeout", "--timeout"), ("budget", "--budget"), ("key_timeout", "--key-timeout"),
                         ("max_time", "--max-time"), ("round_trip_timeout", "--round-trip-timeout")):
        value = getattr(args, attr, None)
        if value is not None and not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
            raise InputError(f"must be a finite number > 0 (at most {MAX_SECONDS:,} seconds), got {value}", option)
    jobs = getattr(args, "jobs", None)
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"must be >= 1 (and at most {MAX_JOBS}), got {jobs}", "--jobs (-j)")
    memory = getattr(args, "max_memory", None)
    if memory is not None and not 64 <= memory <= MAX_MEMORY_MB:
        raise InputError(f"must be at least 64 (MB; at most {MAX_MEMORY_MB:,}), got {memory}", "--max-memory")
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
    previous, stdout = _install_sigterm_handler(), sys.stdout
    sys.stdout = _PipeSafe(stdout)  # type: ignore[assignment]
    try:
        validate_options(args)
        with command_scope(getattr(args, "max_inflated", DEFAULT_MAX_INFLATED_MB)):
            check_output_arguments(args)
            with resource_limits(args):
                return int(args.func(args))
    except InputError as exc:
        print(f"verified-aat: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # binary output piped into e.g. `head` (text output stops quietly: _PipeSafe)
        return 0
    except OSError as exc:
        where = getattr(exc, "filename", None)
        print(f"verified-aat: {InputError(exc.strerror or str(exc), str(where) if where else ARGUMENTS)}",
              file=sys.stderr)  # one line, whatever the file's name holds
        return EXIT_BAD_INPUT
    except LimitReached as exc:
        _stderr_line(f"unknown: limit reached ({one_line(str(exc))})")
        return EXIT_UNKNOWN
    except MemoryError:
        limit = getattr(args, "max_memory", None)
        _stderr_line(f"unknown: limit reached (--max-memory {limit} MB)" if limit else
                             "unknown: limit reached (out of memory; --max-memory sets the limit)")
        return EXIT_UNKNOWN
    except Exception as exc:  # the kernel's reader of certificate files: its own exception, bad input
        from ..kernel import CertificateFileError
        if isinstance(exc, CertificateFileError):
            print(f"verified-aat: {one_line(str(exc))}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if os.environ.get("VERIFIED_AAT_TRACEBACK"):
            raise
        return _no_verdict(exc)
    except KeyboardInterrupt:
        _stderr_line("interrupted (SIGINT)")
        return EXIT_INTERRUPTED
    except Terminated:
        _stderr_line("terminated (SIGTERM)")
        return EXIT_TERMINATED
    finally:
        sys.stdout = stdout
        if previous is not None:
            import signal
            signal.signal(signal.SIGTERM, previous)


def _no_verdict(exc: Exception) -> int:
    """An exception no command expected: one line and exit 3, never 1 (a rejection or refutation) or a traceback.
    A number past Python's 4,300 digits or a float's range is a limit reached; anything else an internal error
    (VERIFIED_AAT_TRACEBACK=1 shows the traceback)."""
    text = one_line(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, OverflowError) or isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        _stderr_line(f"unknown: limit reached (a number too large to write or to hold: {text})")
    else:
        _stderr_line(f"unknown: internal error, no verdict ({text}); VERIFIED_AAT_TRACEBACK=1 shows where")
    return EXIT_UNKNOWN


class _PipeSafe:
    """Standard output that stops writing when its reader has gone (``check … | head -1``), so that the command
    still ends with its own exit code (a rejection stays 1) instead of a BrokenPipeError."""

    def __init__(self, stream: object):
        self._stream, self._gone = stream, False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)  # type: ignore[attr-defined, no-any-return]
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()  # type: ignore[attr-defined]
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        self._gone = True
        try:  # the interpreter's own flush at exit must not fail either
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())  # type: ignore[attr-defined]
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _stderr_line(what: str) -> None:
    """One line on stderr; a closed stderr is no reason for a traceback."""
    try:
        sys.stderr.write(f"verified-aat: {what}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
