"""Progress on the terminal for long runs (rich, on stderr, transient; silent when disabled).

A reporter is called as ``report(phase, advance, total)`` for counted work
(derive, discharge, attention) and used as ``with report.stage("import"):``
for a phase without a count (a spinner with the elapsed time).  It is
enabled only on a terminal (or with ``--progress``) and never writes to
stdout, so JSON output stays clean.
"""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator

Reporter = Callable[[str, int, int], None]


class _Silent:
    def __call__(self, phase: str, advance: int, total: int) -> None:
        pass

    @contextlib.contextmanager
    def stage(self, phase: str) -> Iterator[None]:
        yield


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


@contextlib.contextmanager
def progress_reporter(enabled: bool) -> Iterator:  # type: ignore[type-arg]
    """A reporter (``None``-safe to call): rich bars when enabled, a silent one otherwise."""
    if not enabled:
        yield _Silent()
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description:<12}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(), transient=True,
                  console=Console(stderr=True)) as bar:
        yield _Bars(bar)
