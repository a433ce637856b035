"""A rich progress bar for long certification runs (silent when disabled)."""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator

Reporter = Callable[[str, int, int], None]


@contextlib.contextmanager
def progress_reporter(enabled: bool) -> Iterator[Reporter | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<10}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), transient=True) as bar:
        tasks: dict[str, int] = {}

        def report(phase: str, advance: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], advance=advance, total=total)

        yield report
