"""``--max-time`` and ``--max-memory``: a run past a limit stops cleanly as *unknown* (exit 3).

The time limit is a real-time timer whose signal raises :class:`LimitReached` (a
:class:`BaseException`, so no ``except Exception`` in the engine or the kernel swallows it and
turns it into a verdict).  The memory limit caps the process's address space (``RLIMIT_AS``):
past it an allocation raises :class:`MemoryError`, which the command line reports as *unknown*
too, instead of the machine's out-of-memory killer ending the run.  The address space counts
mapped libraries and thread stacks, so it is larger than the resident memory a benchmark
reports; the default (90% of physical memory) only guards against the OOM killer.

Before a run whose size is known up front, :func:`require_memory` compares a *lower bound* on the
memory the run will need with the limit and refuses at once (exit 3, nothing written) when the
bound is past it: a run that cannot finish should not spend minutes finding out.  The bound is
linear in the run's size: circuit edges for ``certify`` and ``check``, positions for ``run``,
gates of the unrolled circuit for ``audit``, ONNX nodes or circuit gates and arguments for ``export`` (which writes
every layer's circuits out).  Layers are not a factor elsewhere: measured, certify's memory
at 240,001 positions is the same (245 MB) for 6, 24 and 80 layers, because claims, not per-layer
states, are stored.  The constants are about half the smallest per-unit cost measured
(docs/cli.md, "Limits"), so the refusal never fires on a run that would have fitted.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
from contextlib import contextmanager
from typing import Any, Iterator


from ..errors import LimitReached  # noqa: E402  (re-exported: the limit every command stops at)
from .option_rules import decimal, integer
from .signals import QUIET


# Lower bounds on the resident memory per unit of work (about half the smallest measured cost):
# certify 0.9-1.9 KB per circuit edge, check 1.0-3.3 KB per edge (10^6 gates, issue 22), run 1.3 KB per position, audit
# ~100 B per unrolled gate (measured on relu, sum, random-fsac, parity at 2·10^4-10^5 and gate-edge T_6
# at N = 8..24; docs/cli.md).
# export: onnx 2.7 KB per node (400,000 nodes: 1.25 GB), numpy 16 B per gate or argument (10.8 million: 233 MB).
BYTES_PER_UNIT = {"certify": 600, "check": 500, "run": 700, "audit": 50, "audit --prove": 50, "export onnx": 1_300,
                  "export numpy": 8}
UNIT_NAMES = {"certify": "circuit edges", "check": "circuit edges", "run": "positions", "audit": "unrolled gates",
              "audit --prove": "unrolled gates", "export onnx": "ONNX nodes", "export numpy": "gates and arguments"}
PROVE_BASE_MB = 400  # audit --prove maps scipy and OpenBLAS, whose threads cannot start below (300 MB: ImportError)
BASE_MB = 250  # the address space of the interpreter with numpy mapped (a 10^4-relu check: 373 MB; with z3 and cvc5: 412);
# below it a run could not load its solvers or start a thread (hangs and segfaults at 160-210 MB: red team)


def max_memory_mb(args: argparse.Namespace) -> int | None:
    """The memory limit in force for this command: ``--max-memory``, else the default, else none."""
    if not hasattr(args, "max_memory"):
        return None
    return getattr(args, "max_memory", None) or default_max_memory_mb() or None


def estimated_memory_mb(command: str, units: int) -> int:
    """A lower bound on the memory (MB) that ``command`` needs for ``units`` of work (see BYTES_PER_UNIT)."""
    return _base_mb(command) + (units * BYTES_PER_UNIT[command]) // 2**20


def _base_mb(command: str) -> int:
    return PROVE_BASE_MB if command == "audit --prove" else BASE_MB


def require_memory(command: str, units: int, args: argparse.Namespace) -> None:
    """Refuse, before the work starts, a run whose lower-bound estimate is past the memory limit."""
    limit = max_memory_mb(args)
    if limit is None:
        return
    needed = estimated_memory_mb(command, units)
    if needed > limit:
        option = "--max-memory" if getattr(args, "max_memory", None) else "--max-memory (default: 90% of memory)"
        raise LimitReached(f"{option} {limit} MB: this run needs at least ~{needed:,} MB "
                           f"({units:,} {UNIT_NAMES[command]} × {BYTES_PER_UNIT[command]} B + "
                           f"{_base_mb(command)} MB), "
                           f"refused before starting; raise --max-memory")


def default_max_memory_mb() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.9) // 2**20
    except (ValueError, OSError, AttributeError):
        return 0  # unknown: no default limit


def add_resource_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-time", type=decimal, default=None, metavar="SECONDS",
                   help="stop as unknown (exit 3) after this many seconds of wall time (default: none)")
    p.add_argument("--max-memory", type=integer, default=None, metavar="MB",
                   help="stop as unknown (exit 3) when the address space would pass this many MB "
                        "(default: 90%% of physical memory)")


@contextmanager
def resource_limits(args: argparse.Namespace) -> Iterator[None]:
    """Apply the command's limits for the duration of the command, then restore the old ones."""
    max_time = getattr(args, "max_time", None)
    max_memory = max_memory_mb(args)
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
            if LimitReached not in QUIET:  # "Exception ignored in: <gc callback>" printed beside the one line
                QUIET.append(LimitReached)
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
