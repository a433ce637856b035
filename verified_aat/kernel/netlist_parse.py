"""The kernel's own reading of a certificate's ``netlist`` section (docs/soundness.md N), independently of
``verified_aat/circuits/netlists.py``: the netlist in a topological order, and the section's common part."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from .data import Circuit, as_dict, counted, need, within
from .netlist_form import NGate, NetlistError
from .problems import Problem

MAX_NETLIST_CHARS = 50_000_000


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


# -- the section -------------------------------------------------------------------

def open_section(raw: Any, C: Circuit, given: tuple[str, bytes] | None, keys: set[str]
                 ) -> tuple[dict[str, Any], Netlist] | Problem:
    """The section's keys ``keys`` read strictly (:class:`Malformed` on bad data) and its netlist parsed; or one
    problem."""
    sec = as_dict(raw, "$.netlist", keys | {"file", "format", "mode", "sha256", "text"}, {"drop_dead"})
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
    return sec, net
