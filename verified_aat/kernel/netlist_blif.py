"""The kernel's reader of BLIF text into the canonical form of ``netlist_form.py`` (docs/soundness.md N)."""

from __future__ import annotations

from .data import counted
from .netlist_form import Gates, NGate, NetlistError


def read_blif(text: str) -> tuple[list[str], list[str], Gates]:
    lines = _logical_lines(text)
    inputs: list[str] = []
    outputs: list[str] = []
    gates: Gates = []
    block: tuple[str, tuple[str, ...], int] | None = None
    rows: list[tuple[str, str, int]] = []
    state = "start"

    def close() -> None:
        if block is None:
            return
        name, args, line = block
        if any(out != rows[0][1] for _, out, _ in rows):
            raise NetlistError(f"line {line}: a cover with both on-set and off-set rows")
        if len(rows) > 1 and args:
            gates.append((NGate(name, "COVER", args, "", int(rows[0][1]), tuple(r[0] for r in rows)), line))
        elif not rows or not args:
            gates.append((NGate(name, "CONST1" if rows and rows[0][1] == "1" else "CONST0", ()), line))
        else:
            gates.append((NGate(name, "CUBE", args, rows[0][0], int(rows[0][1])), line))

    for number, tokens in lines:
        head = tokens[0]
        if state == "end":
            raise NetlistError(f"line {number}: text after .end")
        if not head.startswith("."):
            if block is None:
                raise NetlistError(f"line {number}: a cover row outside a .names block")
            k = len(block[1])
            pattern, out = ("", tokens[0]) if k == 0 and len(tokens) == 1 else (tokens[0], (tokens + [""])[1])
            if len(tokens) != (1 if k == 0 else 2) or len(pattern) != k or set(pattern) - set("01-") \
                    or out not in ("0", "1"):
                raise NetlistError(f"line {number}: bad cover row for {counted(k, 'input')}: " + "{row!r:40}", row=" ".join(tokens))
            rows.append((pattern, out, number))
            continue
        close()
        block, rows = None, []
        cmd = head.lower()
        if cmd == ".model" and state == "start":
            state = "model"
        elif cmd in (".inputs", ".outputs"):
            (inputs if cmd == ".inputs" else outputs).extend(tokens[1:])
        elif cmd == ".names" and len(tokens) >= 2:
            block = (tokens[-1], tuple(tokens[1:-1]), number)
        elif cmd == ".end":
            state = "end"
        else:
            raise NetlistError(f"line {number}: " + "the kernel does not know {line!r}", line=" ".join(tokens))
    close()
    return inputs, outputs, gates


def _logical_lines(text: str) -> list[tuple[int, list[str]]]:
    """BLIF's lines as (first line number, tokens), comments dropped and ``\\`` continuations joined; the line after
    a ``\\`` must hold tokens (a comment line ends the continuation in the format's words, ABC skips it)."""
    lines: list[tuple[int, list[str]]] = []
    pending: list[str] = []
    start, more = 0, False
    for number, raw in enumerate(text.split("\n") + [""], start=1):  # the last "": the end of the file
        line = raw.split("#", 1)[0].rstrip()
        if more and not line.split():
            raise NetlistError(f"line {number - 1}: a '\\' continues into a line without tokens")
        if not pending:
            start = number
        more = line.endswith("\\")
        pending.extend((line[:-1] if more else line).split())
        if not more:
            if pending:
                lines.append((start, pending))
            pending = []
    return lines
