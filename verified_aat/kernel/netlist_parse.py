"""The kernel's own reading of a certificate's ``netlist`` section: its netlist parsers
(ISCAS ``.bench``, BLIF, Bristol Fashion; AIGER in ``aiger_parse.py``), a topological order, what each gate means
(:func:`multilinear`), the strict loader of the section's shadow gates, annotations and
candidate forms (the exact sparse polynomials ``netlist_link.py`` decides lemmas with are in
``sparse_poly.py``).

The parsers are independent of ``verified_aat/circuits/netlists.py`` on purpose: what the
kernel proves a circuit equal to is the netlist *as read here*.  A netlist is its inputs and outputs in
file order and its gates ``(name, op, args, cube, polarity)``; ``op`` is one of ``AND NAND
OR NOR XOR XNOR NOT BUFF CONST0 CONST1 CUBE``.  A BLIF ``.names`` block is a ``CUBE``
(``cube`` over ``0 1 -``, one character per argument; ``polarity`` the row's output), a
block without inputs or without rows a constant.  A Bristol Fashion file (header ``G W``,
input and output value widths, then ``k_in k_out wires… TYPE``) names input value v's bit j
``in{v}_b{j}`` (its j-th wire; inputs are the first wires), output value v's bit j
``out{v}_b{j}`` (outputs are the last wires) and any other wire ``w{i}``; XOR and AND are
themselves, INV/NOT is NOT, EQW is BUFF, ``1 1 v c EQ`` is the constant v, and
``2n n a… b… c… MAND`` is c_i = AND(a_i, b_i).  Anything else is a :class:`NetlistError`
naming the line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from .data import Circuit, Gate, Number, as_dict, as_int, as_list, as_rational, need
from .sparse_poly import TooLarge

VARIADIC = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")
ALIASES = {"BUF": "BUFF", "INV": "NOT", "GND": "CONST0", "VDD": "CONST1"}
MAX_NETLIST_CHARS = 50_000_000
KEYS = {"file", "format", "mode", "sha256", "text", "shadow", "annotations", "signals", "outputs"}
MAX_SHADOW = 10_000_000
MAX_FORM_TERMS = 100_000
MAX_CANDIDATES = 64
Form = tuple[Number, tuple[tuple[int, Number], ...]]  # const + Σ coef·gate, gates increasing


class NetlistError(ValueError):
    pass


class MalformedNetlist(ValueError):
    """The netlist *file* given with ``--circuit`` does not parse: bad input, not a verdict on a certificate."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.message, self.line = message, line


_AT_LINE = re.compile(r"(AIGER: )?line (\d+): ")


def read_given(data: bytes, fmt: str, drop_dead: bool = False) -> Netlist:
    """The given netlist file read on its own by :func:`parse`, or :class:`MalformedNetlist` (message, line)."""
    try:
        text = data.decode("latin-1" if fmt == "aiger" else "utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedNetlist("not UTF-8 text", data.count(b"\n", 0, exc.start) + 1) from None
    try:
        return parse(text, fmt, drop_dead and fmt in ("bench", "blif"))
    except NetlistError as exc:
        found = _AT_LINE.match(str(exc))
        if found is None:
            raise MalformedNetlist(str(exc), None) from None
        line = int(found.group(2)) or None  # line 0: a gate without a line (an AIGER AND)
        raise MalformedNetlist((found.group(1) or "") + str(exc)[found.end():], line) from None


@dataclass(frozen=True)
class NGate:
    name: str
    op: str
    args: tuple[str, ...]
    cube: str = ""
    polarity: int = 1
    cubes: tuple[str, ...] = ()  # a COVER's rows (a BLIF block of several rows)


@dataclass(frozen=True)
class Netlist:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    gates: tuple[NGate, ...]  # in a topological order


_NAME = r"[^\s(),=#]+"
_IO = re.compile(rf"(INPUT|OUTPUT)\s*\(\s*({_NAME})\s*\)\Z", re.IGNORECASE)
_GATE = re.compile(rf"({_NAME})\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\Z")
_ARG = re.compile(rf"{_NAME}\Z")
_DIGITS = re.compile(r"[0-9]{1,18}\Z")


def parse(text: str, fmt: str, drop_dead: bool = False, expect: tuple[int, int] | None = None) -> Netlist:
    """The netlist; ``expect`` = (inputs, outputs) lets a reader whose header fixes them refuse early."""
    if len(text) > MAX_NETLIST_CHARS:
        raise NetlistError(f"netlist too long ({len(text)} characters; the limit is {MAX_NETLIST_CHARS})")
    if fmt == "aiger":  # the file's bytes, one character each
        from .aiger_parse import AigerError, read
        try:
            ins, outs, rows = read(text.encode("latin-1"), expect)
        except (AigerError, UnicodeEncodeError) as exc:
            raise NetlistError(f"AIGER: {exc}"[:200]) from None
        return _order(ins, outs, [(NGate(name, op, args, cube), 0) for name, op, args, cube in rows])
    bad = re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", text)
    if bad:
        raise NetlistError(f"line {text.count(chr(10), 0, bad.start()) + 1}: control character in the netlist")
    if fmt == "bench":
        return _order(*_bench(text), drop_dead)
    if fmt == "blif":
        return _order(*_blif(text), drop_dead)
    if fmt == "bristol":
        return _order(*_bristol(text))
    raise NetlistError(f"unknown netlist format {fmt!r}"[:80])


def _bench(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    inputs: list[str] = []
    outputs: list[str] = []
    gates: list[tuple[NGate, int]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        io = _IO.match(line)
        if io:
            (inputs if io.group(1).upper() == "INPUT" else outputs).append(io.group(2))
            continue
        m = _GATE.match(line)
        if m is None:
            raise NetlistError(f"line {number}: not INPUT(x), OUTPUT(x) or x = OP(a, ...): {line[:60]!r}")
        op = ALIASES.get(m.group(2).upper(), m.group(2).upper())
        inner = m.group(3).strip()
        args = tuple(a.strip() for a in inner.split(",")) if inner else ()
        arity_ok = {"NOT": len(args) == 1, "BUFF": len(args) == 1, "CONST0": not args, "CONST1": not args}
        if any(_ARG.match(a) is None for a in args) or not arity_ok.get(op, op in VARIADIC and len(args) >= 1):
            raise NetlistError(f"line {number}: the kernel does not know the gate {line[:60]!r}")
        gates.append((NGate(m.group(1), op, args), number))
    return inputs, outputs, gates


def _blif(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    lines: list[tuple[int, list[str]]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            start = number
        more = line.endswith("\\")
        pending.extend((line[:-1] if more else line).split())
        if not more:
            if pending:
                lines.append((start, pending))
            pending = []
    if pending:
        lines.append((start, pending))
    inputs: list[str] = []
    outputs: list[str] = []
    gates: list[tuple[NGate, int]] = []
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
            pattern, out = ("", tokens[0]) if k == 0 and len(tokens) == 1 else (tokens + [""])[:2]
            if len(tokens) != (1 if k == 0 else 2) or len(pattern) != k or set(pattern) - set("01-") \
                    or out not in ("0", "1"):
                raise NetlistError(f"line {number}: bad cover row for {k} input(s): {' '.join(tokens)[:40]!r}")
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
            raise NetlistError(f"line {number}: the kernel does not know {' '.join(tokens)[:60]!r}")
    close()
    return inputs, outputs, gates


def _bristol(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    rows = [(number, line.split()) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if len(rows) < 3:
        raise NetlistError("a Bristol Fashion file needs three header lines")

    def ints(row: tuple[int, list[str]], count: int | None = None) -> list[int]:
        if not row[1] or not all(_DIGITS.match(t) for t in row[1]) or count not in (None, len(row[1])):
            raise NetlistError(f"line {row[0]}: the kernel does not know {' '.join(row[1])[:60]!r}")
        return [int(t) for t in row[1]]
    n_gates, n_wires = ints(rows[0], 2)
    widths = [ints(rows[1]), ints(rows[2])]
    if any(v[0] != len(v) - 1 or 0 in v[1:] for v in widths) or len(widths[1]) < 2:
        raise NetlistError("lines 2-3: expected the number of values and their (positive) bit widths")
    n_in, n_out = sum(widths[0][1:]), sum(widths[1][1:])
    if n_in + n_out > min(n_wires, len(text)) or len(rows) - 3 != n_gates:  # each wire costs text
        raise NetlistError("line 1: the header does not match the wires, the gates or the text's length")
    io = [[f"{kind}{v}_b{j}" for v, width in enumerate(ws[1:]) for j in range(width)]
          for kind, ws in zip(("in", "out"), widths)]
    names = dict(enumerate(io[0])) | {n_wires - n_out + k: name for k, name in enumerate(io[1])}
    gates: list[tuple[NGate, int]] = []
    for number, tokens in rows[3:]:
        kind, nums = tokens[-1], ints((number, tokens[:-1]))
        k_in, k_out = (nums + [0, 0])[:2]
        src, dst = nums[2:2 + k_in], nums[2 + k_in:]
        arity = {"XOR": (2, 1), "AND": (2, 1), "INV": (1, 1), "NOT": (1, 1), "EQW": (1, 1), "EQ": (1, 1)}
        expected = (2 * k_out, k_out) if kind == "MAND" and k_out else arity.get(kind)
        if len(nums) != 2 + k_in + k_out or (k_in, k_out) != expected or (kind == "EQ" and src[0] > 1) \
                or any(w >= n_wires for w in dst + ([] if kind == "EQ" else src)) or any(w < n_in for w in dst):
            raise NetlistError(f"line {number}: the kernel does not know the gate {' '.join(tokens)[:60]!r}")
        ins, outs = [names.get(w, f"w{w}") for w in src], [names.get(w, f"w{w}") for w in dst]
        if kind == "MAND":
            gates += [(NGate(outs[i], "AND", (ins[i], ins[k_out + i])), number) for i in range(k_out)]
        elif kind == "EQ":
            gates.append((NGate(outs[0], "CONST1" if src[0] else "CONST0", ()), number))
        else:
            gates.append((NGate(outs[0], {"INV": "NOT", "EQW": "BUFF"}.get(kind, kind), tuple(ins)), number))
    return io[0], io[1], gates


def _order(inputs: list[str], outputs: list[str], gates: list[tuple[NGate, int]], drop_dead: bool = False
           ) -> Netlist:
    """Check definitions and uses; order the gates topologically (Kahn), rejecting cycles.
    ``drop_dead``: first keep only the gates some output reads, through the gates named so."""
    if drop_dead:
        by_name: dict[str, list[NGate]] = {}
        for gate, _ in gates:
            by_name.setdefault(gate.name, []).append(gate)
        seen, todo = set(), list(outputs)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(a for g in by_name.get(name, []) for a in g.args)
        gates = [(g, line) for g, line in gates if g.name in seen]
    line_of: dict[str, int] = {}
    for name in inputs:
        if name in line_of:
            raise NetlistError(f"input {name[:40]!r} is declared twice")
        line_of[name] = 0
    for gate, line in gates:
        if gate.name in line_of:
            raise NetlistError(f"line {line}: signal {gate.name[:40]!r} is defined twice")
        line_of[gate.name] = line
    users: dict[str, list[int]] = {}
    waiting = []
    for k, (gate, line) in enumerate(gates):
        for a in gate.args:
            if a not in line_of:
                raise NetlistError(f"line {line}: signal {a[:40]!r} is not defined")
            users.setdefault(a, []).append(k)
        waiting.append(len(gate.args))
    missing = [o for o in outputs if o not in line_of]
    if missing:
        raise NetlistError(f"output {missing[0][:40]!r} is not defined")
    ready = list(inputs) + [g.name for (g, _), w in zip(gates, waiting) if w == 0]
    order: list[NGate] = []
    position = {g.name: k for k, (g, _) in enumerate(gates)}
    for name in ready:  # grows while we walk it
        if name in position:
            order.append(gates[position[name]][0])
        for k in users.get(name, ()):
            waiting[k] -= 1
            if waiting[k] == 0:
                ready.append(gates[k][0].name)
    if len(order) != len(gates):
        stuck = next(line for (g, line), w in zip(gates, waiting) if w > 0)
        raise NetlistError(f"line {stuck}: combinational cycle")
    return Netlist(tuple(inputs), tuple(outputs), tuple(order))


def multilinear(gate: NGate, b: list[Any], affine: Callable[[Number, list[tuple[Number, Any]]], Any],
                product: Callable[[list[Any]], Any]) -> Any:
    """What the gate means: its multilinear form over operand values ``b``, built with
    ``affine(const, [(coef, x), ...])`` and ``product([x, ...])`` (an empty product is 1)."""
    def neg(x: Any) -> Any:
        return affine(1, [(-1, x)])

    op = gate.op
    if op in ("CONST0", "CONST1", "BUFF", "NOT"):
        return affine(int(op == "CONST1"), []) if op.startswith("CONST") else b[0] if op == "BUFF" else neg(b[0])
    if op in ("AND", "NAND"):
        return product(b) if op == "AND" else neg(product(b))
    if op in ("OR", "NOR"):
        return neg(product([neg(x) for x in b])) if op == "OR" else product([neg(x) for x in b])
    if op in ("XOR", "XNOR"):  # (1 − Π(1 − 2·b)) / 2
        xor = affine(Fraction(1, 2), [(Fraction(-1, 2), product([affine(1, [(-2, x)]) for x in b]))])
        return xor if op == "XOR" else neg(xor)
    if op == "COVER":  # Shannon expansion on the first bound operand: multilinear, as the cover is
        cover = _shannon(frozenset(gate.cubes), b, affine, product, neg, {})
        return cover if gate.polarity == 1 else neg(cover)
    literals = [x if lit == "1" else neg(x) for lit, x in zip(gate.cube, b) if lit != "-"]  # CUBE
    return product(literals) if gate.polarity == 1 else neg(product(literals))


MAX_SHANNON = 100_000  # distinct cofactors of one cover


def _shannon(cubes: frozenset[str], b: list[Any], affine: Callable[[Number, list[tuple[Number, Any]]], Any],
             product: Callable[[list[Any]], Any], neg: Callable[[Any], Any], memo: dict[frozenset[str], Any]) -> Any:
    """The multilinear polynomial of the OR of ``cubes``: f = b_i·f|1 + (1 − b_i)·f|0 for the first
    operand i some cube binds; no cube is 0, an unbound cube is 1."""
    if cubes in memo:
        return memo[cubes]
    if len(memo) > MAX_SHANNON:
        raise TooLarge(f"a cover with more than {MAX_SHANNON} cofactors")
    if not cubes or any(set(c) == {"-"} for c in cubes):
        result = affine(int(bool(cubes)), [])
    else:
        i = min(next(k for k, ch in enumerate(c) if ch != "-") for c in cubes)
        half = [frozenset(c[:i] + "-" + c[i + 1:] for c in cubes if c[i] != other) for other in "01"]
        high, low = (_shannon(h, b, affine, product, neg, memo) for h in half)  # f|b_i=1, f|b_i=0
        result = high if half[0] == half[1] else \
            affine(0, [(1, product([b[i], high])), (1, product([neg(b[i]), low]))])
    memo[cubes] = result
    return result


# -- the section -------------------------------------------------------------------

@dataclass
class Link:
    name: str
    sha: str
    mode: str
    netlist: Netlist
    gates: list[Gate]                                   # C's gates, then the shadow gates
    notes: dict[int, Form]                              # annotations: gate -> form over lower gates
    cands: dict[str, list[tuple[Form, list[int]]]]      # signal -> [(form, from)]
    outputs: list[int]                                  # netlist output j -> its candidate index


def load_link(raw: Any, C: Circuit, given: tuple[str, bytes] | None) -> Link | str:
    """The section read strictly (:class:`Malformed` on bad data), or one problem sentence."""
    sec = as_dict(raw, "$.netlist", KEYS, {"drop_dead"})
    drop_dead = sec.get("drop_dead", False)
    need(drop_dead is True or "drop_dead" not in sec, "$.netlist.drop_dead", "must be true when present")
    need(not drop_dead or sec["format"] in ("bench", "blif"), "$.netlist.drop_dead", "only for bench or blif")
    for key in ("file", "format", "mode", "sha256", "text"):
        need(type(sec[key]) is str, f"$.netlist.{key}", "expected a string")
    name, text, sha, mode = sec["file"], sec["text"], sec["sha256"], sec["mode"]
    need(0 < len(name) <= 255 and not set(name) & set("/\\\n\r\t\0") and name not in (".", ".."),
         "$.netlist.file", "must be a file's base name, not a path")
    need(sec["format"] in ("bench", "blif", "bristol", "aiger"), "$.netlist.format",
         "must be 'bench', 'blif', 'bristol' or 'aiger'")
    need(mode in ("exact", "threshold"), "$.netlist.mode", "must be 'exact' or 'threshold'")
    try:  # AIGER (binary too) is embedded one character per byte
        raw_bytes = text.encode("latin-1" if sec["format"] == "aiger" else "utf-8")
    except UnicodeEncodeError:
        return "the embedded AIGER text has a character above U+00FF (it must be the file's bytes)"
    if hashlib.sha256(raw_bytes).hexdigest() != sha:
        return "the embedded netlist text does not have the stated sha256"
    if given is not None and (hashlib.sha256(given[1]).hexdigest() != sha or given[1] != raw_bytes):
        return (f"the given netlist {given[0]} (sha256 {hashlib.sha256(given[1]).hexdigest()[:16]}…) is not the "
                f"certificate's embedded netlist {name} (sha256 {sha[:16]}…)")
    net = parse(text, sec["format"], drop_dead, (C.n_inputs, len(C.outputs)))
    if len(net.inputs) != C.n_inputs or len(net.outputs) != len(C.outputs):
        return (f"the netlist has {len(net.inputs)} inputs and {len(net.outputs)} outputs, C has {C.n_inputs} "
                f"and {len(C.outputs)}")
    gates = _shadow(sec["shadow"], C)
    size = len(gates)
    notes: dict[int, Form] = {}
    for k, entry in enumerate(as_list(sec["annotations"], "$.netlist.annotations", size)):
        where = f"$.netlist.annotations[{k}]"
        need(type(entry) is list and len(entry) == 2, where, "expected [gate, form]")
        t = as_int(entry[0], where + "[0]", 0, size - 1)
        need(t not in notes, where, f"gate {t} is annotated twice")
        notes[t] = _form(entry[1], where + "[1]", size)
        need(all(g < t for g, _ in notes[t][1]), where,
             f"the annotation of gate {t} uses a gate that is not lower (annotations may use lower gates only)")
    signals = as_dict(sec["signals"], "$.netlist.signals", set(net.inputs) | {g.name for g in net.gates})
    cands: dict[str, list[tuple[Form, list[int]]]] = {}
    for i, s in enumerate(net.inputs):
        where, g_i = f"$.netlist.signals[{s!r}]", C.input_gates[i]
        entry = signals[s]
        ok = type(entry) is list and len(entry) == 1 and type(entry[0]) is list and len(entry[0]) == 2
        need(ok and entry[0][1] == [] and _form(entry[0][0], where + "[0][0]", size) == (0, ((g_i, 1),)), where,
             f"netlist input {i} must have exactly the one candidate 1·g{g_i} (C's input gate {i})")
        cands[s] = [((0, ((g_i, 1),)), [])]
    for gate in net.gates:
        where = f"$.netlist.signals[{gate.name!r}]"
        entries = as_list(signals[gate.name], where, MAX_CANDIDATES)
        need(len(entries) > 0, where, "a gate needs at least one candidate")
        cands[gate.name] = []
        for k, entry in enumerate(entries):
            need(type(entry) is list and len(entry) == 2, f"{where}[{k}]", "expected [form, from]")
            origin = as_list(entry[1], f"{where}[{k}][1]", len(gate.args))
            need(len(origin) == len(gate.args), f"{where}[{k}][1]", f"needs one index per operand ({len(gate.args)})")
            for j, (a, o) in enumerate(zip(gate.args, origin)):
                as_int(o, f"{where}[{k}][1][{j}]", 0, len(cands[a]) - 1)
            cands[gate.name].append((_form(entry[0], f"{where}[{k}][0]", size), origin))
    outs = as_list(sec["outputs"], "$.netlist.outputs", len(net.outputs))
    need(len(outs) == len(net.outputs), "$.netlist.outputs", "needs one candidate index per netlist output")
    for j, (s, o) in enumerate(zip(net.outputs, outs)):
        as_int(o, f"$.netlist.outputs[{j}]", 0, len(cands[s]) - 1)
    return Link(name, sha, mode, net, gates, notes, cands, outs)


def _form(raw: Any, path: str, size: int) -> Form:
    need(type(raw) is list and len(raw) == 2, path, "expected a form [const, [[gate, coef], ...]]")
    terms: list[tuple[int, Number]] = []
    for k, term in enumerate(as_list(raw[1], f"{path}[1]", MAX_FORM_TERMS)):
        need(type(term) is list and len(term) == 2, f"{path}[1][{k}]", "expected [gate, coef]")
        g = as_int(term[0], f"{path}[1][{k}][0]", 0, size - 1)
        need(not terms or g > terms[-1][0], f"{path}[1][{k}]", "gates must be strictly increasing")
        c = as_rational(term[1], f"{path}[1][{k}][1]")
        need(c != 0, f"{path}[1][{k}]", "a coefficient is 0")
        terms.append((g, c))
    return as_rational(raw[0], f"{path}[0]"), tuple(terms)


def _shadow(raw: Any, C: Circuit) -> list[Gate]:
    gates = list(C.gates)
    for k, entry in enumerate(as_list(raw, "$.netlist.shadow", MAX_SHADOW)):
        where, g = f"$.netlist.shadow[{k}]", len(gates)
        need(type(entry) is list and len(entry) == 2 and entry[0] in ("input", "const", "add", "mul", "sign"),
             where, "expected [op, argument] with op input, const, add, mul or sign")
        op, arg = entry
        if op == "input":
            gates.append(Gate("input", index=as_int(arg, where + "[1]", 0, C.n_inputs - 1)))
        elif op == "const":
            gates.append(Gate("const", value=as_rational(arg, where + "[1]")))
        else:
            args = as_list(arg, where + "[1]", MAX_FORM_TERMS)
            for j, a in enumerate(args):
                need(type(a) is int and 0 <= a < g, f"{where}[1][{j}]",
                     f"shadow gate {g} may only use C's gates and earlier shadow gates, not {a!r}"[:200])
            need(len(args) == 1 if op == "sign" else op == "add" or len(args) >= 2, where,
                 f"{op} cannot take {len(args)} arguments")
            gates.append(Gate(op, tuple(args)))
    return gates
