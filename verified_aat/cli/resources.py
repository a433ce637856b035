"""``--max-time`` and ``--max-memory``: a run past a limit stops cleanly as *unknown* (exit 3).

The time limit is a real-time timer whose signal raises :class:`LimitReached` (a
:class:`BaseException`, so no ``except Exception`` in the engine or the kernel swallows it and
turns it into a verdict).  The memory limit caps the process's address space (``RLIMIT_AS``):
past it an allocation raises :class:`MemoryError`, which the command line reports as *unknown*
too, instead of the machine's out-of-memory killer ending the run.  The address space counts
mapped libraries and thread stacks, so it is larger than the resident memory a benchmark
reports; the default (90% of physical memory) only guards against the OOM killer.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
from contextlib import contextmanager
from typing import Any, Iterator


class LimitReached(BaseException):
    """The run passed ``--max-time``."""


def default_max_memory_mb() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.9) // 2**20
    except (ValueError, OSError, AttributeError):
        return 0  # unknown: no default limit


def add_resource_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-time", type=float, default=None, metavar="SECONDS",
                   help="stop as unknown (exit 3) after this many seconds of wall time (default: none)")
    p.add_argument("--max-memory", type=int, default=None, metavar="MB",
                   help="stop as unknown (exit 3) when the address space would pass this many MB "
                        "(default: 90%% of physical memory)")


@contextmanager
def resource_limits(args: argparse.Namespace) -> Iterator[None]:
    """Apply the command's limits for the duration of the command, then restore the old ones."""
    max_time = getattr(args, "max_time", None)
    has_memory_option = hasattr(args, "max_memory")
    max_memory = getattr(args, "max_memory", None) if has_memory_option else None
    if has_memory_option and max_memory is None:
        max_memory = default_max_memory_mb() or None
    old_alarm: Any = None
    old_as = None
    try:
        if max_memory:
            old_as = resource.getrlimit(resource.RLIMIT_AS)
            hard = old_as[1]
            wanted = max_memory * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),
                                                    hard))
        if max_time:
            def expire(signum: int, frame: Any) -> None:
                # an exception raised where Python ignores it (a gc callback, __del__) would be lost:
                # fire again shortly until one reaches the command
                signal.setitimer(signal.ITIMER_REAL, 0.05)
                raise LimitReached(f"--max-time {max_time:g} s")
            old_alarm = signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, max_time)
        yield
    finally:
        if max_time:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if old_alarm is not None:
                signal.signal(signal.SIGALRM, old_alarm)
        if old_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, old_as)
