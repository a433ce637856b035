"""AIGER and-inverter graphs: ASCII ``.aag`` and binary ``.aig`` (format version 1), read into
a :class:`~.netlists.Netlist`, and written from one.

A file is a header ``aag M I L O A`` (``aig`` for binary), I input literals (binary: implicit,
2, 4, …, 2I), L latches (refused: sequential), O output literals and A AND gates
``lhs rhs0 rhs1`` (binary: lhs implicit, two variable-length deltas lhs − rhs0 and rhs0 − rhs1),
then an optional symbol table (``i3 name``, ``o0 name``) and comments after ``c``.  Literal 2v
is variable v, 2v + 1 its negation; variable 0 is the constant false.  AIGER 1.9 headers with
bad-state, constraint, justice or fairness sections (B C J F) are refused unless all are 0.

The netlist names inputs and outputs by their symbols (else ``i<k>``, ``o<k>``); AND variable
v is the gate ``<p>a<v>`` (``<p>`` is empty, or underscores when a symbol would clash) —
``AND`` of two plain literals, else a ``CUBE`` with ``0`` for an inverted one — and every output
is its own ``BUFF``/``NOT`` (or constant) gate, so outputs may repeat literals freely.
Arithmetization is the netlists' (:mod:`.linear`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..limits import MAX_AIGER_DIGITS, MAX_AIGER_IMPLICIT_INPUTS, MAX_AIGER_VARIABLES
from .netlist_model import BoolGate, Netlist, Parsed, assemble_netlist
from ..wording import file_stem, plural, unprintable


@dataclass(frozen=True)
class Aig:
    """An AIG as in the file: input literals, output literals, AND gates ``(lhs, rhs0, rhs1)``
    and symbols (``("i", k)`` / ``("o", k)`` → name)."""

    max_var: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    ands: tuple[tuple[int, int, int], ...]
    symbols: tuple[tuple[str, int, str], ...] = ()
    first_lines: tuple[int | None, int | None, int | None] = field(default=(None, None, None), compare=False)
    # the lines of the first input, output and AND (binary AIGER: the inputs and ANDs have none)

    def line(self, section: int, k: int) -> int | None:
        """The file's line of input (section 0), output (1) or AND (2) number ``k``, where the file has one."""
        first = self.first_lines[section]
        return None if first is None else first + k


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _header(data: bytes, file: str) -> tuple[str, list[int], int]:
    end = data.find(b"\n")
    end = len(data) if end < 0 else end
    if not data[:end].isascii():
        raise InputError("not an AIGER file: the header is not ASCII", file, 1)
    # split as bytes, as the body's lines and the kernel's reader: ASCII whitespace only (str.split also splits at
    # U+001C-U+001F, which made 'aag\x1c3 2 0 1 1' a header the kernel refuses)
    tokens = [token.decode("ascii") for token in data[:end].split()]
    if not tokens or tokens[0] not in ("aag", "aig"):
        raise InputError("not an AIGER file: expected a header 'aag M I L O A' or 'aig M I L O A'", file, 1)
    if len(tokens) < 6 or len(tokens) > 10 or not all(t.isdigit() for t in tokens[1:]):
        raise InputError("bad AIGER header: expected five to nine non-negative numbers after "
                         f"{tokens[0]!r}", file, 1)
    for token in tokens[1:]:
        _check_digits(token, file, 1)
    nums = [int(t) for t in tokens[1:]]
    if any(nums[5:]):
        raise InputError("AIGER 1.9 bad-state, constraint, justice and fairness sections are not supported", file, 1)
    m, i, latches, _, a = nums[:5]
    if latches:
        raise InputError(f"AIGER latches (sequential elements) are not supported: the header declares {latches}",
                         file, 1)
    if m < i + a or (tokens[0] == "aig" and m != i + a):  # binary AIGER: M = I + L + A exactly (the format's rule)
        raise InputError(f"bad AIGER header: M = {m} is {'less than' if m < i + a else 'not'} I + L + A = {i + a}"
                         + ("" if m < i + a else " (binary AIGER requires equality)"), file, 1)
    if m > MAX_AIGER_VARIABLES:
        raise InputError(f"M = {m:,} variables is past the AIGER limit of {MAX_AIGER_VARIABLES:,} "
                         "(limits.MAX_AIGER_VARIABLES)", file, 1)
    require_implicit_inputs_within_limit(data, file)
    # binary: an output literal takes at least 2 bytes ("2\n"), an AND 2 (its deltas); an ASCII file's
    # lines are read one by one and end at the end of the file with its own message
    least = 2 * nums[3] + 2 * a
    after = max(len(data) - end - 1, 0)
    if tokens[0] == "aig" and least > after + 1:  # + 1: the last line may lack its newline
        raise InputError(f"unexpected end of file: the header declares {plural(nums[3], 'output')} and "
                         f"{plural(a, 'AND')}, at least {least:,} bytes, and the file has {after:,} after it", file,
                         _line_of(data, len(data)))
    return tokens[0], nums[:5], end + 1


def require_implicit_inputs_within_limit(data: bytes, file: str) -> None:
    """A binary AIGER header's I is at most MAX_AIGER_IMPLICIT_INPUTS: its inputs are in the header alone, so the
    28 bytes 'aig 9999999 9999999 0 1 0' made ``info`` build 10⁷ inputs (252 s, 15 GB).  Checked before any
    reader builds anything from the file (``check --circuit`` runs the kernel's reader first)."""
    fields = data[:200].split(b"\n", 1)[0].split()
    if len(fields) > 2 and fields[0] == b"aig" and fields[2].isdigit() and len(fields[2]) <= MAX_AIGER_DIGITS \
            and int(fields[2]) > MAX_AIGER_IMPLICIT_INPUTS:
        raise InputError(f"I = {int(fields[2]):,} inputs is past the binary AIGER limit of "
                         f"{MAX_AIGER_IMPLICIT_INPUTS:,} (limits.MAX_AIGER_IMPLICIT_INPUTS: a binary file states its "
                         "inputs in its header alone; write it as ASCII AIGER, one line per input, for more)", file, 1)


def _check_digits(token: str | bytes, file: str, line: int) -> None:
    """A number of at most MAX_AIGER_DIGITS digits (checked before ``int``, which is quadratic)."""
    if len(token) > MAX_AIGER_DIGITS:
        raise InputError(f"a number of {len(token):,} digits, past the AIGER limit of {MAX_AIGER_DIGITS} "
                         "(limits.MAX_AIGER_DIGITS)", file, line)


# long because one reader for both AIGER encodings: the header, then inputs, outputs, ANDs (ASCII or
# delta-coded binary) and the symbol table share the position and line counters of the closure below.
def parse_aiger_bytes(data: bytes, file: str = "<aiger>") -> Aig:
    """Parse an ASCII or binary AIGER file; every problem is an :class:`InputError` at ``file:line``."""
    kind, (m, n_in, _, n_out, n_and), pos = _header(data, file)
    lines = data.split(b"\n")
    number = 2  # the next line's number

    def numbers(count: int, what: str) -> list[list[int]]:
        nonlocal number, pos
        out = []
        for _ in range(count):
            if number > len(lines) or (number == len(lines) and not lines[-1]):
                raise InputError(f"unexpected end of file: expected {what}", file, number)
            raw = lines[number - 1]
            fields = raw.split()
            if not fields or not all(f.isdigit() for f in fields):
                raise InputError(f"expected {what}, got {raw[:40].decode('ascii', 'replace')!r}", file, number)
            for f in fields:
                _check_digits(f, file, number)
            out.append([int(f) for f in fields])
            pos += len(raw) + 1
            number += 1
        return out

    top = 2 * m + 1
    if kind == "aag":  # one literal a line, as the kernel's reader reads it (it took '2 4' for input 2)
        rows = numbers(n_in, "an input literal")
        bad = next((k for k, r in enumerate(rows) if len(r) != 1), None)
        if bad is not None:
            raise InputError(f"input {bad}: expected one literal, got {plural(len(rows[bad]), 'number')}", file,
                             2 + bad)
        inputs = [r for r, in rows]
    else:
        inputs = [2 * (k + 1) for k in range(n_in)]
    outs = numbers(n_out, "an output literal")
    if any(len(o) != 1 or o[0] > top for o in outs):
        bad = next(k for k, o in enumerate(outs) if len(o) != 1 or o[0] > top)
        raise InputError(f"output {bad}: expected one literal at most {top}", file, number - n_out + bad)
    ands: list[tuple[int, int, int]] = []
    if kind == "aag":
        for k, row in enumerate(numbers(n_and, "an AND gate 'lhs rhs0 rhs1'")):
            line = number - n_and + k
            if len(row) != 3:
                raise InputError("an AND gate is three literals 'lhs rhs0 rhs1'", file, line)
            if row[0] % 2 or row[0] < 2 or max(row) > top:
                raise InputError(f"bad AND gate {row}: lhs must be an even literal ≥ 2 and all at most {top}",
                                 file, line)
            ands.append((row[0], row[1], row[2]))
    else:
        for k in range(n_and):
            lhs = 2 * (n_in + k + 1)
            deltas = []
            for _ in range(2):
                value, shift = 0, 0
                while True:
                    if pos >= len(data):
                        raise InputError(f"unexpected end of file in the binary AND gate {k}", file,
                                         _line_of(data, len(data)))
                    byte = data[pos]
                    pos += 1
                    value |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                    if shift > 63:
                        raise InputError(f"binary AND gate {k}: delta too long", file, _line_of(data, pos))
                deltas.append(value)
            rhs0 = lhs - deltas[0]
            rhs1 = rhs0 - deltas[1]
            if deltas[0] == 0 or rhs1 < 0:
                raise InputError(f"binary AND gate {k} (lhs {lhs}): bad deltas {deltas}", file, _line_of(data, pos))
            ands.append((lhs, rhs0, rhs1))
        number = _line_of(data, pos)
    if kind == "aag":
        for k, lit in enumerate(inputs):
            if lit % 2 or lit < 2 or lit > top:
                raise InputError(f"input {k}: literal {lit} must be even, ≥ 2 and at most {top - 1}", file, 2 + k)
    symbols = _symbols(data[pos:], file, number, n_in, n_out)
    firsts = (2, 2 + n_in, 2 + n_in + n_out) if kind == "aag" else (None, 2, None)  # binary: ANDs have no lines
    return Aig(m, tuple(inputs), tuple(o[0] for o in outs), tuple(ands), symbols, firsts)


def _symbols(rest: bytes, file: str, first: int, n_in: int, n_out: int) -> tuple[tuple[str, int, str], ...]:
    out: list[tuple[str, int, str]] = []
    seen: set[tuple[str, int]] = set()
    for k, raw in enumerate(rest.split(b"\n")):
        line = first + k
        raw = raw[:-1] if raw.endswith(b"\r") else raw  # one CR of a CRLF line ending, as the kernel's reader
        if raw == b"c":  # the comment section runs to the end
            break
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("the symbol table is not UTF-8 text", file, line) from None
        head, _, name = text.partition(" ")
        if head[:1] == "l":
            raise InputError("latch symbols: latches are not supported", file, line)
        if head[:1] not in ("i", "o") or not (head[1:].isascii() and head[1:].isdigit()) or not name:
            raise InputError(f"bad symbol line {text[:40]!r}: expected 'i<k> name', 'o<k> name' or 'c'", file, line)
        _check_digits(head[1:], file, line)
        index = int(head[1:])
        if index >= (n_in if head[0] == "i" else n_out) or (head[0], index) in seen:
            raise InputError(f"symbol {head}: no such {'input' if head[0] == 'i' else 'output'}, or named twice",
                             file, line)
        if problem := unprintable(text):  # at its column on the line: info and eval print names raw (red team 20)
            raise InputError(problem, file, line)
        seen.add((head[0], index))
        out.append((head[0], index, name))
    return tuple(out)


def aig_to_netlist(aig: Aig, file: str, name: str) -> Netlist:
    """The netlist of ``aig`` (module docstring); undefined variables, duplicate definitions
    and cycles are :class:`InputError`\\ s."""
    sym = {(kind, k): s for kind, k, s in aig.symbols}
    in_names = [sym.get(("i", k), f"i{k}") for k in range(len(aig.inputs))]
    out_names = [sym.get(("o", k), f"o{k}") for k in range(len(aig.outputs))]
    stripped = {(len(s) - len(t), t) for s in set(in_names) | set(out_names) for t in [s.lstrip("_")]}
    taken = {j for j, t in stripped if t == "false" or t[:1] == "a" and t[1:].isdigit()}  # '_' before a<n> or false
    prefix = "_" * min(set(range(len(taken) + 1)) - taken)  # the fewest no name takes (a loop over them was cubic)
    if len(set(in_names)) < len(in_names) or len(set(out_names)) < len(out_names) or set(in_names) & set(out_names):
        in_names = [f"i{k}" for k in range(len(aig.inputs))]
        out_names = [f"o{k}" for k in range(len(aig.outputs))]
    var_name = {lit // 2: s for lit, s in zip(aig.inputs, in_names)}
    if len(var_name) < len(aig.inputs):
        k = next(k for k, lit in enumerate(aig.inputs) if lit in aig.inputs[:k])
        raise InputError("an input literal is listed twice", file, aig.line(0, k))
    for k, (lhs, _, _) in enumerate(aig.ands):
        if lhs // 2 in var_name:
            raise InputError(f"variable {lhs // 2} is defined twice (AND gate lhs {lhs})", file, aig.line(2, k))
        var_name[lhs // 2] = f"{prefix}a{lhs // 2}"
    need_false = any(lit < 2 for lhs, r0, r1 in aig.ands for lit in (r0, r1))
    if need_false:
        var_name[0] = f"{prefix}false"
    p = Parsed(file, name, [(s, None) for s in in_names], [], [])  # type: ignore[list-item]
    if need_false:
        p.gates.append((BoolGate(var_name[0], "CONST0"), None))  # type: ignore[arg-type]
    for k, (lhs, r0, r1) in enumerate(aig.ands):
        for lit in (r0, r1):
            if lit // 2 not in var_name:
                raise InputError(f"AND gate {lhs}: literal {lit} uses undefined variable {lit // 2}", file,
                                 aig.line(2, k))
        args = (var_name[r0 // 2], var_name[r1 // 2])
        cube = "".join("0" if lit % 2 else "1" for lit in (r0, r1))
        gate = BoolGate(var_name[lhs // 2], "AND", args) if cube == "11" else \
            BoolGate(var_name[lhs // 2], "CUBE", args, cube, 1)
        p.gates.append((gate, aig.line(2, k)))  # type: ignore[arg-type]
    for k, (lit, out) in enumerate(zip(aig.outputs, out_names)):
        if lit < 2:
            p.gates.append((BoolGate(out, "CONST1" if lit else "CONST0"), None))  # type: ignore[arg-type]
        elif lit // 2 not in var_name:
            raise InputError(f"output {k}: literal {lit} uses undefined variable {lit // 2}", file, aig.line(1, k))
        else:
            p.gates.append((BoolGate(out, "NOT" if lit % 2 else "BUFF", (var_name[lit // 2],)), None))  # type: ignore[arg-type]
        p.outputs.append((out, None))  # type: ignore[arg-type]
    return assemble_netlist(p)


def parse_aiger(data: bytes, file: str = "<aiger>") -> Netlist:
    """An AIGER file (ASCII or binary) as a netlist."""
    return aig_to_netlist(parse_aiger_bytes(data, file), file, file_stem(file, "aiger"))


def read_aiger_source(path: str, fmt: str) -> tuple[Netlist, bytes, str]:
    """``(netlist, AIGER bytes, file name)`` of an AIGER file (``fmt == "aiger"``) or of a
    Verilog file synthesized to ASCII AIGER by Yosys (:mod:`.verilog`; named ``<file>.aag``)."""
    if fmt == "verilog":
        from .verilog import synthesize_aiger
        data = synthesize_aiger(path)
        name = Path(path).name + ".aag"
        try:  # a line of Yosys' AIGER is no line of the Verilog file: the message names the synthesized design
            netlist = aig_to_netlist(parse_aiger_bytes(data, path), path, file_stem(path, "aiger"))
        except InputError as exc:
            raise InputError(f"the design Yosys synthesized: {exc.message}", path, None) from None
        return netlist, data, name
    else:
        from ..files import read_input
        data = read_input(path, "netlist")
        name = Path(path).name
    return aig_to_netlist(parse_aiger_bytes(data, path), path, file_stem(path, "aiger")), data, name


# -- writing -----------------------------------------------------------------------------
def netlist_to_aig(netlist: Netlist) -> Aig:
    """An AIG computing ``netlist`` (inputs, then ANDs in netlist order; names as symbols)."""
    lit: dict[str, int] = {s: 2 * (k + 1) for k, s in enumerate(netlist.inputs)}
    ands: list[tuple[int, int, int]] = []
    top = [len(netlist.inputs)]

    def conj(a: int, b: int) -> int:
        top[0] += 1
        ands.append((2 * top[0], max(a, b), min(a, b)))
        return 2 * top[0]

    def tree(xs: list[int]) -> int:
        acc = 1
        for x in xs:
            acc = x if acc == 1 else conj(acc, x)
        return acc

    def xor(a: int, b: int) -> int:
        return conj(conj(a, b) ^ 1, conj(a ^ 1, b ^ 1) ^ 1)

    for gate in netlist.gates:
        xs = [lit[a] for a in gate.args]
        op = gate.op
        if op in ("CONST0", "CONST1"):
            value = int(op == "CONST1")
        elif op in ("BUFF", "NOT"):
            value = xs[0] ^ (op == "NOT")
        elif op in ("AND", "NAND"):
            value = tree(xs) ^ (op == "NAND")
        elif op in ("OR", "NOR"):
            value = tree([x ^ 1 for x in xs]) ^ (op == "OR")
        elif op in ("XOR", "XNOR"):
            value = xs[0]
            for x in xs[1:]:
                value = xor(value, x)
            value ^= op == "XNOR"
        elif op in ("CUBE", "COVER"):  # OR of the cubes, negated for an off-set
            value = tree([tree([x ^ (c == "0") for x, c in zip(xs, cube) if c != "-"]) ^ 1
                          for cube in gate.cubes or (gate.cube,)]) ^ gate.polarity
        else:
            raise ValueError(f"cannot write gate {gate.name!r} ({op}) as AIGER")
        lit[gate.name] = value
    symbols = tuple(("i", k, s) for k, s in enumerate(netlist.inputs)) + \
        tuple(("o", k, s) for k, s in enumerate(netlist.outputs))
    return Aig(top[0], tuple(2 * (k + 1) for k in range(len(netlist.inputs))),
               tuple(lit[o] for o in netlist.outputs), tuple(ands), symbols)


def _symbol_text(aig: Aig) -> str:
    return "".join(f"{kind}{k} {name}\n" for kind, k, name in aig.symbols)


def write_aag(aig: Aig) -> str:
    """The ASCII AIGER text of ``aig``."""
    head = f"aag {aig.max_var} {len(aig.inputs)} 0 {len(aig.outputs)} {len(aig.ands)}\n"
    return head + "".join(f"{x}\n" for x in aig.inputs) + "".join(f"{x}\n" for x in aig.outputs) + \
        "".join(f"{a} {b} {c}\n" for a, b, c in aig.ands) + _symbol_text(aig)


def write_aig(aig: Aig) -> bytes:
    """The binary AIGER bytes of ``aig``; needs inputs 2, 4, …, 2I and ANDs with lhs
    2(I + 1), 2(I + 2), … in order and rhs0 ≥ rhs1, rhs0 < lhs (as :func:`netlist_to_aig` makes)."""
    n = len(aig.inputs)
    if aig.inputs != tuple(2 * (k + 1) for k in range(n)):
        raise ValueError("binary AIGER needs inputs 2, 4, …, 2I")
    out = bytearray(f"aig {aig.max_var} {n} 0 {len(aig.outputs)} {len(aig.ands)}\n".encode())
    out += "".join(f"{x}\n" for x in aig.outputs).encode()
    for k, (lhs, r0, r1) in enumerate(aig.ands):
        if lhs != 2 * (n + k + 1) or not lhs > r0 >= r1:
            raise ValueError(f"AND gate {k} is not in binary AIGER order")
        for delta in (lhs - r0, r0 - r1):
            while delta >= 0x80:
                out.append(delta & 0x7F | 0x80)
                delta >>= 7
            out.append(delta)
    return bytes(out) + _symbol_text(aig).encode("utf-8")
