"""Progress on the terminal for long runs (rich, on stderr, transient; silent when disabled).

A reporter is called as ``report(phase, advance, total)`` for counted work
(derive, discharge, attention) and used as ``with report.stage("import"):``
for a phase without a count (a spinner with the elapsed time).  It is
enabled on a terminal (or with ``--progress``) and never writes to stdout,
so JSON output stays clean.  With ``--progress`` on a pipe (no terminal to
redraw) it writes plain lines instead: one when a phase starts and one when it
ends, with its time.  ``report.lap(phase, seconds)`` records a finished phase
of a run that only reports afterwards (the round trip's clock).
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator

Reporter = Callable[[str, int, int], None]


class _Silent:
    def __call__(self, phase: str, advance: int, total: int) -> None:
        pass

    @contextlib.contextmanager
    def stage(self, phase: str) -> Iterator[None]:
        yield

    def lap(self, phase: str, seconds: float) -> None:
        pass


class _Lines:
    """``--progress`` without a terminal: a line per phase start and end on stderr (no redrawing)."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.done: dict[str, int] = {}

    def _say(self, text: str) -> None:
        print(f"verified-aat: progress: {text}", file=sys.stderr, flush=True)

    def __call__(self, phase: str, advance: int, total: int) -> None:
        if phase not in self.started:
            self.started[phase] = time.perf_counter()
            self.done[phase] = 0
            self._say(f"{phase} ({total:,}) …")
        before = self.done[phase]
        self.done[phase] = before + advance
        if before < total <= self.done[phase]:
            self._say(f"{phase} done in {time.perf_counter() - self.started[phase]:.1f} s")

    @contextlib.contextmanager
    def stage(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        self._say(f"{phase} …")
        yield
        self._say(f"{phase} done in {time.perf_counter() - start:.1f} s")

    def lap(self, phase: str, seconds: float) -> None:
        self._say(f"{phase} done in {seconds:.1f} s")


class _Bars:
    def __init__(self, bar) -> None:  # type: ignore[no-untyped-def]
        self.bar = bar
        self.tasks: dict[str, int] = {}

    def __call__(self, phase: str, advance: int, total: int) -> None:
        if phase not in self.tasks:
            self.tasks[phase] = self.bar.add_task(phase, total=total)
        self.bar.update(self.tasks[phase], advance=advance, total=total)

    @contextlib.contextmanager
    def stage(self, phase: str) -> Iterator[None]:
        task = self.bar.add_task(phase, total=None)
        try:
            yield
        finally:
            self.bar.update(task, total=1, completed=1)

    def lap(self, phase: str, seconds: float) -> None:
        self.bar.console.print(f"{phase} done in {seconds:.1f} s", highlight=False)


@contextlib.contextmanager
def progress_reporter(enabled: bool) -> Iterator:  # type: ignore[type-arg]
    """A reporter: rich bars when enabled on a terminal, lines when enabled on a pipe, else silent."""
    if not enabled:
        yield _Silent()
        return
    if not sys.stderr.isatty():
        yield _Lines()
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description:<12}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(), transient=True,
                  console=Console(stderr=True)) as bar:
        yield _Bars(bar)
