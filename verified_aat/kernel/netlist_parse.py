"""The kernel's own reading of a certificate's ``netlist`` section (docs/soundness.md N), independently of
``verified_aat/circuits/netlists.py``: the netlist in a topological order, what each gate means, and the section."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from .data import Circuit, Gate, Number, as_dict, as_int, as_list, as_rational, counted, need, within
from .netlist_form import NGate, NetlistError
from .problems import Problem

MAX_NETLIST_CHARS = 50_000_000
KEYS = {"file", "format", "mode", "sha256", "text", "shadow", "annotations", "signals", "outputs"}
MAX_SHADOW = 10_000_000
MAX_FORM_TERMS = 100_000
MAX_CANDIDATES = 64
Form = tuple[Number, tuple[tuple[int, Number], ...]]  # const + Σ coef·gate, gates increasing


@dataclass(frozen=True)
class Netlist:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    gates: tuple[NGate, ...]  # in a topological order


def parse(text: str, fmt: str, drop_dead: bool = False, expect: tuple[int, int] | None = None) -> Netlist:
    """The netlist; ``expect`` = (inputs, outputs) lets a reader whose header fixes them refuse early."""
    within(len(text) <= MAX_NETLIST_CHARS, "$.netlist.text", f"{len(text)} characters (at most {MAX_NETLIST_CHARS})")
    if fmt == "aiger":  # the file's bytes, one character each (load_link and read_given make sure they are)
        from .aiger_parse import read
        return _order(*read(text.encode("latin-1"), expect))
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark, as a text editor may write one (and .circ allows)
    bad = re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]|\r(?!\n)", text)  # a lone CR too: lines end at LF or CRLF
    if bad:
        raise NetlistError(f"line {text.count(chr(10), 0, bad.start()) + 1}: a control character or lone CR")
    if fmt == "bench":  # each format's reader is entered only for its own format (a trusted-base kind each)
        from .netlist_bench import read_bench
        return _order(*read_bench(text), drop_dead)
    if fmt == "blif":
        from .netlist_blif import read_blif
        return _order(*read_blif(text), drop_dead)
    if fmt == "bristol":
        from .netlist_bristol import read_bristol
        return _order(*read_bristol(text))
    raise NetlistError("unknown netlist format {fmt!r}", fmt=fmt)


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
            raise NetlistError("input {name!r} is declared twice", name=name)
        line_of[name] = 0
    for gate, line in gates:
        if gate.name in line_of:
            raise NetlistError(f"line {line}: " + "signal {name!r} is defined twice", name=gate.name)
        line_of[gate.name] = line
    users: dict[str, list[int]] = {}
    waiting = []
    for k, (gate, line) in enumerate(gates):
        for a in gate.args:
            if a not in line_of:
                raise NetlistError(f"line {line}: " + "signal {name!r} is not defined", name=a)
            users.setdefault(a, []).append(k)
        waiting.append(len(gate.args))
    missing = [o for o in outputs if o not in line_of]
    if missing:
        raise NetlistError("output {name!r} is not defined", name=missing[0])
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
        from .netlist_blif import shannon  # a COVER comes from BLIF only
        cover = shannon(frozenset(gate.cubes), b, affine, product, neg, {})
        return cover if gate.polarity == 1 else neg(cover)
    literals = [x if lit == "1" else neg(x) for lit, x in zip(gate.cube, b) if lit != "-"]  # CUBE
    return product(literals) if gate.polarity == 1 else neg(product(literals))


# -- the section -------------------------------------------------------------------

@dataclass
class Link:
    name: str
    sha: str
    mode: str
    netlist: Netlist
    gates: list[Gate]                                   # C's gates, then the shadow gates
    notes: dict[int, Form]                              # annotations: gate -> form over lower gates
    cuts: dict[int, set[int]]                           # annotated gate -> the cut its lemma is stated at
    cands: dict[str, list[tuple[Form, list[int]]]]      # signal -> [(form, from)]
    outputs: list[int]                                  # netlist output j -> its candidate index


def load_link(raw: Any, C: Circuit, given: tuple[str, bytes] | None) -> Link | Problem:
    """The section read strictly (:class:`Malformed` on bad data), or one problem."""
    sec = as_dict(raw, "$.netlist", KEYS, {"drop_dead"})
    drop_dead = sec.get("drop_dead", False)
    need(drop_dead is True or "drop_dead" not in sec, "$.netlist.drop_dead", "must be true when present")
    need(not drop_dead or sec["format"] in ("bench", "blif"), "$.netlist.drop_dead", "only for bench or blif")
    for key in ("file", "format", "mode", "sha256", "text"):
        need(type(sec[key]) is str, f"$.netlist.{key}", "expected a string")
    name, text, sha, mode = sec["file"], sec["text"], sec["sha256"], sec["mode"]
    need(0 < len(name) <= 255 and name.isprintable() and not set(name) & set("/\\") and name not in (".", ".."),
         "$.netlist.file", "must be a file's base name, not a path, printable (the theorem names it)")
    need(sec["format"] in ("bench", "blif", "bristol", "aiger"), "$.netlist.format",
         "must be 'bench', 'blif', 'bristol' or 'aiger'")
    need(mode in ("exact", "threshold"), "$.netlist.mode", "must be 'exact' or 'threshold'")
    try:  # AIGER (binary too) is embedded one character per byte
        raw_bytes = text.encode("latin-1" if sec["format"] == "aiger" else "utf-8")
    except UnicodeEncodeError:
        return Problem("the embedded AIGER text has a character above U+00FF (it must be the file's bytes)")
    if hashlib.sha256(raw_bytes).hexdigest() != sha:
        return Problem("the embedded netlist text does not have the stated sha256")
    if given is not None and (hashlib.sha256(given[1]).hexdigest() != sha or given[1] != raw_bytes):
        return Problem("the given netlist {given} (sha256 {given_sha:16}) is not the certificate's embedded netlist "
                       "{name} (sha256 {sha:16})", {"given": given[0], "given_sha": hashlib.sha256(given[1]).hexdigest(),
                                                   "name": name, "sha": sha})
    net = parse(text, sec["format"], drop_dead, (C.n_inputs, len(C.outputs)))
    if len(net.inputs) != C.n_inputs or len(net.outputs) != len(C.outputs):
        return Problem(f"the netlist has {counted(len(net.inputs), 'input')} and {counted(len(net.outputs), 'output')}, "
                       f"C has {C.n_inputs} and {len(C.outputs)}")
    gates = _shadow(sec["shadow"], C)
    notes, cuts = _annotations(sec["annotations"], len(gates))
    cands = _candidates(as_dict(sec["signals"], "$.netlist.signals", set(net.inputs) | {g.name for g in net.gates}),
                        net, C, len(gates))
    outs = as_list(sec["outputs"], "$.netlist.outputs", len(net.outputs), size=False)
    need(len(outs) == len(net.outputs), "$.netlist.outputs", "needs one candidate index per netlist output")
    for j, (s, o) in enumerate(zip(net.outputs, outs)):
        as_int(o, f"$.netlist.outputs[{j}]", 0, len(cands[s]) - 1)
    return Link(name, sha, mode, net, gates, notes, cuts, cands, outs)


def _annotations(raw: Any, size: int) -> tuple[dict[int, Form], dict[int, set[int]]]:
    """The annotations ``t = A_t``: each gate at most once, over lower gates only; and each one's cut (any gates:
    every cut is sound, docs/soundness.md N)."""
    notes: dict[int, Form] = {}
    cuts: dict[int, set[int]] = {}
    for k, entry in enumerate(as_list(raw, "$.netlist.annotations", size)):
        where = f"$.netlist.annotations[{k}]"
        need(type(entry) is list and len(entry) == 3, where, "expected [gate, form, cut]")
        t = as_int(entry[0], where + "[0]", 0, size - 1)
        need(t not in notes, where, f"gate {t} is annotated twice")
        notes[t] = _form(entry[1], where + "[1]", size)
        need(all(g < t for g, _ in notes[t][1]), where,
             f"the annotation of gate {t} uses a gate that is not lower (annotations may use lower gates only)")
        cut = as_list(entry[2], where + "[2]", t, size=False)  # longer than t: a gate twice
        cuts[t] = {as_int(g, f"{where}[2][{j}]", 0, t - 1) for j, g in enumerate(cut)}
    return notes, cuts


def _candidates(signals: dict[str, Any], net: Netlist, C: Circuit, size: int) -> dict[str, list[tuple[Form, list[int]]]]:
    """Each signal's candidates: an input's one candidate is 1·g_i; a gate's name one operand candidate each."""
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
            origin = as_list(entry[1], f"{where}[{k}][1]", len(gate.args), size=False)
            need(len(origin) == len(gate.args), f"{where}[{k}][1]", f"needs one index per operand ({len(gate.args)})")
            for j, (a, o) in enumerate(zip(gate.args, origin)):
                as_int(o, f"{where}[{k}][1][{j}]", 0, len(cands[a]) - 1)
            cands[gate.name].append((_form(entry[0], f"{where}[{k}][0]", size), origin))
    return cands


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
        need(type(entry) is list and len(entry) == 2 and entry[0] in ("const", "add", "mul", "sign"),
             where, "expected [op, argument] with op const, add, mul or sign (C's inputs are C's gates)")
        op, arg = entry
        if op == "const":
            gates.append(Gate("const", value=as_rational(arg, where + "[1]")))
        else:
            args = as_list(arg, where + "[1]", MAX_FORM_TERMS)
            for j, a in enumerate(args):
                need(type(a) is int and 0 <= a < g, f"{where}[1][{j}]",
                     "shadow gate {g} may only use C's gates and earlier shadow gates, not {a!r}", g=g, a=a)
            need(len(args) == 1 if op == "sign" else op == "add" or len(args) >= 2, where,
                 f"{op} cannot take {counted(len(args), 'argument')}")
            gates.append(Gate(op, tuple(args)))
    return gates
