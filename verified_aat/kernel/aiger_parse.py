"""The kernel's own AIGER reader (ASCII ``aag`` and binary ``aig``, format 1, no latches) into the canonical form of
``netlist_form.py``, named as docs/soundness.md N states; independent of ``circuits/aiger.py``.  The section's text
holds the file's bytes one character per byte (latin-1)."""

from __future__ import annotations

from .data import NotChecked, counted
from .netlist_form import Gates, NetlistError, NGate

MAX_VARIABLES = 10_000_000
_NEWLINE = b"\n"


class AigerError(NetlistError):
    """AIGER text the reader does not read (a netlist that does not parse)."""

    def __init__(self, message: str):
        super().__init__("AIGER: {error:200}", error=message)


class PastLimit(NotChecked):
    """A header past the kernel's limits: the link is *not checked*, never rejected (the engine: bad input)."""

    def __init__(self, message: str):
        super().__init__(f"AIGER: {message} (the netlist's text)")


def _uint(token: bytes, where: str) -> int:
    if not token.isdigit() or len(token) > 18:  # a header's long number is a limit; a literal's is past 2·M anyway
        error = PastLimit if where == "line 1" and token.isdigit() else AigerError
        raise error(f"{where}: not a number of at most 18 digits: {token!r}")
    return int(token)


def read(data: bytes, expect: tuple[int, int] | None = None) -> tuple[list[str], list[str], Gates]:
    """(inputs, outputs, gates) in file order, in ``netlist_form.py``'s canonical form (an AND has no line). With
    ``expect`` = (inputs, outputs) of the circuit it must match, the header is compared before anything is built:
    binary AIGER's inputs are implicit, so a 29-byte header could otherwise make it build 10⁷ literals."""
    head, _, body = data.partition(b"\n")
    tokens = head.split()
    if len(tokens) < 6 or tokens[0] not in (b"aag", b"aig"):
        raise AigerError("line 1: not an AIGER header")
    nums = [_uint(t, "line 1") for t in tokens[1:]]
    if len(nums) > 9 or any(nums[5:]) or nums[2] or nums[0] < nums[1] + nums[4] or (
            tokens[0] == b"aig" and nums[0] > nums[1] + nums[4]):  # binary AIGER's M is I + L + A exactly
        raise AigerError("line 1: the kernel reads combinational AIGER 1 only (no latches, B, C, J, F)")
    if nums[0] > MAX_VARIABLES:
        raise PastLimit(f"line 1: M = {nums[0]} is past the kernel's limit of {MAX_VARIABLES} variables")
    m, n_in, _, n_out, n_and, *_ = nums
    binary = tokens[0] == b"aig"
    if expect is not None and (n_in, n_out) != expect:
        raise AigerError(f"line 1: the header declares {counted(n_in, 'input')} and {counted(n_out, 'output')}, "
                         f"the circuit has {expect[0]} and {expect[1]}")
    if n_out + (2 * n_and if binary else n_in + 6 * n_and) > len(body):
        raise AigerError("line 1: the header declares more outputs and ANDs than the file has bytes for")
    start, line = 0, 2  # the next line's first byte and number (partitioning off the rest copied it a line: quadratic)

    def take_line() -> list[bytes]:
        nonlocal start, line
        if start >= len(body):
            raise AigerError(f"line {line}: unexpected end of file")
        end = body.find(_NEWLINE, start) % (len(body) + 1)  # no newline: the last line ends the body
        raw, start, line = body[start:end], end + 1, line + 1
        return raw.split()

    limit = 2 * m + 1
    ins = [2 * (k + 1) for k in range(n_in)] if binary else [_one(take_line(), line - 1) for _ in range(n_in)]
    outs = [_one(take_line(), line - 1) for _ in range(n_out)]
    ands: list[tuple[int, int, int]] = []
    if binary:
        ands, pos = _binary_ands(body[start:], n_in, n_and, line)
        line += body.count(_NEWLINE, start, start + pos)
        start += pos
    else:
        for _ in range(n_and):
            row = take_line()
            if len(row) != 3:
                raise AigerError(f"line {line - 1}: an AND is three literals")
            a, b, c = (_uint(t, f"line {line - 1}") for t in row)
            if a & 1 or a < 2:
                raise AigerError(f"line {line - 1}: an AND's lhs must be an even literal above 1")
            ands.append((a, b, c))
    lits = ins + outs + [x for t in ands for x in t]
    if any(x > limit for x in lits) or any(x & 1 or x < 2 for x in ins):
        raise AigerError(f"a literal is above 2M + 1 = {limit}, or an input literal is odd or below 2")
    names = _symbols(body[start:], n_in, n_out, line)
    return _netlist(ins, outs, ands, names)


def _binary_ands(rest: bytes, n_in: int, n_and: int, line: int) -> tuple[list[tuple[int, int, int]], int]:
    """Binary AIGER's ANDs (each lhs implicit, two deltas as 7-bit groups) and the bytes they take."""
    ands, pos = [], 0
    for k in range(n_and):
        lhs = 2 * (n_in + 1 + k)
        d: list[int] = []
        for _ in range(2):
            value = shift = 0
            while True:
                if pos >= len(rest) or shift > 63:
                    raise AigerError(f"line {line + rest.count(_NEWLINE, 0, pos)}: binary AND {k}: "
                                     "truncated or overlong delta")
                byte = rest[pos]
                pos += 1
                value += (byte & 127) << shift
                shift += 7
                if byte < 128:
                    break
            d.append(value)
        if d[0] < 1 or d[0] + d[1] > lhs:
            raise AigerError(f"line {line + rest.count(_NEWLINE, 0, pos)}: binary AND {k}: bad deltas")
        ands.append((lhs, lhs - d[0], lhs - d[0] - d[1]))
    return ands, pos


def _one(row: list[bytes], line: int) -> int:
    if len(row) != 1:
        raise AigerError(f"line {line}: expected one literal")
    return _uint(row[0], f"line {line}")


def _symbols(rest: bytes, n_in: int, n_out: int, first: int) -> dict[tuple[str, int], str]:
    names: dict[tuple[str, int], str] = {}
    for number, raw in enumerate(rest.split(b"\n"), start=first):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        if raw == b"c":
            break
        if not raw.strip():
            continue
        kind, space, name = raw.partition(b" ")
        if not space or not name or not kind.startswith((b"i", b"o")) or not kind[1:].isdigit() or len(kind) > 19:
            raise AigerError(f"line {number}: bad symbol line {raw!r}")
        key = (chr(kind[0]), int(kind[1:]))
        if key[1] >= (n_in if key[0] == "i" else n_out) or key in names:
            raise AigerError(f"line {number}: symbol {kind!r}: out of range or repeated")
        try:
            names[key] = name.decode("utf-8")
        except UnicodeDecodeError:
            raise AigerError(f"line {number}: a symbol is not UTF-8") from None
    return names


def _netlist(ins: list[int], outs: list[int], ands: list[tuple[int, int, int]], names: dict[tuple[str, int], str]
             ) -> tuple[list[str], list[str], Gates]:
    inputs = [names.get(("i", k), f"i{k}") for k in range(len(ins))]
    outputs = [names.get(("o", k), f"o{k}") for k in range(len(outs))]
    every = inputs + outputs
    taken = {len(s) - len(t) for s in every for t in [s.lstrip("_")] if t == "false" or t.startswith("a") and t[1:].isdigit()}
    p = "_" * min(set(range(len(taken) + 1)) - taken)  # the fewest '_' no name has before false or a<n> (linear)
    if len(set(every)) < len(every):
        inputs = [f"i{k}" for k in range(len(ins))]
        outputs = [f"o{k}" for k in range(len(outs))]
    var: dict[int, str] = {}
    for lit, name in zip(ins, inputs):
        if lit >> 1 in var:
            raise AigerError(f"input literal {lit} is repeated")
        var[lit >> 1] = name
    for lhs, _, _ in ands:
        if lhs >> 1 in var:
            raise AigerError(f"variable {lhs >> 1} is defined twice")
        var[lhs >> 1] = f"{p}a{lhs >> 1}"
    gates: Gates = []
    if any(x < 2 for _, b, c in ands for x in (b, c)):
        var[0] = f"{p}false"
        gates.append((NGate(var[0], "CONST0", ()), 0))

    def name_of(lit: int) -> str:
        if lit >> 1 not in var:
            raise AigerError(f"literal {lit} reads an undefined variable")
        return var[lit >> 1]
    for lhs, b, c in ands:
        cube = ("0" if b & 1 else "1") + ("0" if c & 1 else "1")
        gates.append((NGate(var[lhs >> 1], "AND" if cube == "11" else "CUBE", (name_of(b), name_of(c)), cube), 0))
    for lit, name in zip(outs, outputs):
        gates.append((NGate(name, "CONST1" if lit else "CONST0", ()) if lit < 2 else
                      NGate(name, "NOT" if lit & 1 else "BUFF", (name_of(lit),)), 0))
    return inputs, outputs, gates
