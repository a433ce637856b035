"""Standard output and standard error as the command line uses them: a reader that goes away stops the
output quietly, a closed or unwritable standard output is bad input (exit 2) named as ``<stdout>``, never an
internal error or a line that blames the command line (docs/cli.md, "Standard input and output")."""

from __future__ import annotations

import os
import sys

from ..errors import InputError

STDOUT = "<stdout>"
"""How a message names standard output (as ``<stdin>`` names standard input)."""


def check_stdout() -> None:
    """Before any work: a closed standard output (``>&-``) is refused, since every command writes to it (a closed
    descriptor would also be the next file opened, which a solver's output would then go to)."""
    if sys.stdout is None:
        raise InputError("standard output is closed: the command's output has nowhere to go "
                         "(redirect it to /dev/null to discard it)", STDOUT)


def unwritable(exc: OSError) -> InputError:
    """Standard output refused a write (``>/dev/full``): one line naming it and the cause."""
    return InputError(f"cannot write to standard output: {exc.strerror or exc}", STDOUT)


def write_bytes(data: bytes) -> None:
    """``data`` on standard output after the text written so far (``-o -``: a certificate, a document).
    A reader that has gone is a :class:`BrokenPipeError` as before; any other failure is :func:`unwritable`."""
    sys.stdout.flush()
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _to_devnull(sys.stdout)
        raise unwritable(exc) from None


class PipeSafe:
    """Standard output that stops writing when its reader has gone (``check … | head -1``), so that the command
    still ends with its own exit code (a rejection stays 1) instead of a BrokenPipeError; any other failure to
    write (a full disk) is :func:`unwritable`, once, after which nothing more is written."""

    def __init__(self, stream: object):
        self._stream, self._gone = stream, False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)  # type: ignore[attr-defined, no-any-return]
            except OSError as exc:
                self._failed(exc)
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()  # type: ignore[attr-defined]
            except OSError as exc:
                self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        self._gone = True
        _to_devnull(self._stream)
        if not isinstance(exc, BrokenPipeError):
            raise unwritable(exc) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _to_devnull(stream: object) -> None:
    """Point ``stream``'s descriptor at /dev/null: what its buffer still holds goes nowhere, and the interpreter's
    own flush at exit cannot fail."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        pass


def stderr_line(what: str) -> None:
    """One line on stderr; a closed stderr is no reason for a traceback."""
    try:
        sys.stderr.write(f"verified-aat: {what}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
