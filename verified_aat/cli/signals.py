"""SIGINT and SIGTERM over the whole life of a ``verified-aat`` process: one line on standard error and
exit 130 or 143, never a traceback, never a half-written file (docs/cli.md, "Exit codes").

Two kinds of handler, by what the process is doing:

- while nothing is being written — start-up (the parser, the command modules and numpy loading) and after
  the command has returned and flushed its output (interpreter shutdown) — :func:`exit_now` writes the line
  and ends the process with ``os._exit``: nothing can raise into an import or into the interpreter's shutdown;
- while the command runs, SIGINT raises :class:`KeyboardInterrupt` and SIGTERM :class:`Terminated`, so that
  ``finally`` blocks remove temporary files (``files.write_all_atomically`` holds both signals while it renames).

This module imports only os, signal and sys: the entry (``entry.py``) installs :func:`exit_now` before
anything heavy loads.
"""

from __future__ import annotations

import os
import signal
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers know the name)
if TYPE_CHECKING:
    from typing import Any, Callable

EXIT_INTERRUPTED = 130
"""128 + SIGINT: the run was interrupted (Ctrl-C)."""
EXIT_TERMINATED = 143
"""128 + SIGTERM: the run was terminated."""
LINES: dict[int, str] = {signal.SIGINT: "interrupted (SIGINT)", signal.SIGTERM: "terminated (SIGTERM)"}
"""What the one line on standard error says, by signal."""


class Terminated(BaseException):
    """Raised in the main thread by the SIGTERM handler, so that ``finally`` blocks and
    :func:`~verified_aat.files.write_all_atomically` clean up as for Ctrl-C.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`: ``except Exception`` does not swallow it."""


_HANDLER_PID: int | None = None
"""The process that installed the handlers (forked workers inherit the handlers, not the role)."""


def _in_a_forked_worker(signum: int) -> bool:
    """In a forked worker, end as the signal would, without a traceback or a line of our own."""
    if os.getpid() == _HANDLER_PID:
        return False
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    return True


def say(signum: int) -> int:
    """The one line for ``signum`` on standard error (a closed one is no reason to fail); its exit code."""
    try:
        os.write(2, f"verified-aat: {LINES[signum]}\n".encode())
    except OSError:
        pass
    return 128 + signum


def exit_now(signum: int, frame: object) -> None:
    """The handler while nothing is being written: the line, and the process ends at once."""
    if not _in_a_forked_worker(signum):
        os._exit(say(signum))


def raise_interrupt(signum: int, frame: object) -> None:
    """The SIGINT handler while a command runs: :class:`KeyboardInterrupt` in the main thread (a forked pool worker
    ends quietly: Ctrl-C reaches the whole process group, and Python's own handler printed each worker's traceback)."""
    if not _in_a_forked_worker(signum):
        raise KeyboardInterrupt()


def raise_terminated(signum: int, frame: object) -> None:
    """The SIGTERM handler while a command runs: :class:`Terminated` in the main thread."""
    if not _in_a_forked_worker(signum):
        raise Terminated()


def install(handlers: dict[int, Any]) -> dict[int, Any] | None:
    """Install ``handlers`` (signal -> handler); return the previous ones (``None``, and nothing installed, outside
    the main thread, where ``signal.signal`` cannot be called)."""
    global _HANDLER_PID
    previous: dict[int, Any] = {}
    try:
        for signum, handler in handlers.items():
            previous[signum] = signal.signal(signum, handler)
    except (ValueError, OSError):
        restore(previous)
        return None
    _HANDLER_PID = os.getpid()
    return previous


def restore(previous: dict[int, Any] | None) -> None:
    """Put back what :func:`install` (or :func:`while_running`) replaced."""
    for signum, handler in (previous or {}).items():
        if signum == _HOOK:
            sys.unraisablehook = handler
        elif handler is not None:
            signal.signal(signum, handler)


def while_idle() -> dict[int, Any] | None:
    """:func:`exit_now` for SIGINT and SIGTERM."""
    return install({signal.SIGINT: exit_now, signal.SIGTERM: exit_now})


def while_running() -> dict[int, Any] | None:
    """:class:`KeyboardInterrupt` for SIGINT, :class:`Terminated` for SIGTERM; and an interrupt raised where
    Python can only ignore it (in a weakref callback or ``__del__``) is kept for :func:`raise_swallowed`, not
    printed as "Exception ignored in ..." while the command goes on to exit 0."""
    previous = install({signal.SIGINT: raise_interrupt, signal.SIGTERM: raise_terminated})
    if previous is not None:
        previous[_HOOK] = sys.unraisablehook
        sys.unraisablehook = _unraisable
    return previous


_HOOK = 0
"""The key under which :func:`while_running` keeps the previous ``sys.unraisablehook`` (no signal is 0)."""
_swallowed: list[int] = []
"""The signals whose exception Python could not raise (see :func:`while_running`)."""


QUIET: list[type] = []
"""Exceptions a handler raises again until one reaches the command (``--max-time``'s alarm fires again 50 ms later,
``resources.py``): raised where Python can only ignore it (a gc callback), one is not printed."""


def _unraisable(unraisable: Any) -> None:
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, (KeyboardInterrupt, Terminated)):
        _swallowed.append(signal.SIGINT if issubclass(unraisable.exc_type, KeyboardInterrupt) else signal.SIGTERM)
    elif not (unraisable.exc_type is not None and issubclass(unraisable.exc_type, tuple(QUIET))):
        sys.__unraisablehook__(unraisable)


def raise_swallowed() -> None:
    """Raise the interrupt Python ignored (see :func:`while_running`), if any: the command ends as interrupted."""
    if _swallowed:
        signum = _swallowed.pop(0)
        _swallowed.clear()
        raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def as_process(run: Callable[[], int]) -> int:
    """``run()`` (the command line) as the whole process: :func:`exit_now` from here on, except while
    ``run`` itself installs :func:`while_running` around the command; an interrupt that escapes ``run``
    (between the two) is the line and its exit code. Standard output is flushed before returning, so that
    the interpreter's shutdown has nothing left to write."""
    import atexit

    atexit.register(_end_here)  # registered first, so called last
    while_idle()
    try:
        code = run()
        if code not in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # not said already
            raise_swallowed()
    except KeyboardInterrupt:
        code = say(signal.SIGINT)
    except Terminated:
        code = say(signal.SIGTERM)
    finally:
        while_idle()  # again: run() restored them, but an escaped exception may have left while_running's
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _end_here() -> None:
    """The last ``atexit`` callback of a process run by :func:`as_process`: SIGINT and SIGTERM are ignored from
    here on. The interpreter's teardown that follows resets a Python handler to the default action before the
    process has ended (a signal then killed it without a line); an ignored one stays ignored, and the process
    ends as the command did (its output is complete and flushed)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, signal.SIG_IGN)
        except (ValueError, OSError):
            pass
