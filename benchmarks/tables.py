"""Tables for the benchmark report: one value, rendered with rich or as GitHub markdown.

A :class:`Table` keeps raw row values (numbers, strings, ``None``) so the
same rows go to the JSON file; formatting happens only when rendering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable


@dataclass
class Column:
    key: str
    header: str
    fmt: str = ""  # format spec for numbers, e.g. ".2f"; "" = str()
    right: bool = True


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bad_rows: set[int] = field(default_factory=set)  # highlighted in red

    def add(self, row: dict[str, Any], bad: bool = False) -> None:
        if bad:
            self.bad_rows.add(len(self.rows))
        self.rows.append(row)

    def cells(self, row: dict[str, Any]) -> list[str]:
        return [fmt_value(row.get(c.key), c.fmt) for c in self.columns]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "columns": [c.key for c in self.columns], "rows": self.rows,
                "notes": self.notes}


def fmt_value(value: Any, spec: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, (int, float)) and spec:
        return format(value, spec)
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def render_rich(console: Console, table: Table) -> None:
    rt = RichTable(title=table.title, title_justify="left", header_style="bold", show_lines=False)
    for c in table.columns:
        rt.add_column(c.header, justify="right" if c.right else "left", overflow="fold")
    for i, row in enumerate(table.rows):
        rt.add_row(*table.cells(row), style="bold red" if i in table.bad_rows else None)
    console.print(rt)
    for note in table.notes:
        console.print(f"  {note}", highlight=False)
    console.print()


def render_markdown(table: Table) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [f"#### {table.title}", ""]
    lines.append("| " + " | ".join(esc(c.header) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if c.right else ":---" for c in table.columns) + "|")
    for i, row in enumerate(table.rows):
        cells = [esc(s) for s in table.cells(row)]
        if i in table.bad_rows:
            cells = [f"**{s}**" for s in cells]
        lines.append("| " + " | ".join(cells) + " |")
    if table.notes:
        lines.append("")
        lines.extend(f"- {esc(n)}" if not n.startswith("-") else n for n in table.notes)
    lines.append("")
    return "\n".join(lines)
