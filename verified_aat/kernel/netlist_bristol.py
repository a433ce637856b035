"""The kernel's reader of Bristol Fashion text into the canonical form of ``netlist_form.py``
(docs/soundness.md N)."""

from __future__ import annotations

import re

from .netlist_form import Gates, NGate, NetlistError

_DIGITS = re.compile(r"[0-9]{1,18}\Z")


def read_bristol(text: str) -> tuple[list[str], list[str], Gates]:
    rows = [(number, line.split()) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if len(rows) < 3:
        raise NetlistError("a Bristol Fashion file needs three header lines")

    def ints(row: tuple[int, list[str]], count: int | None = None) -> list[int]:
        if not row[1] or not all(_DIGITS.match(t) for t in row[1]) or count not in (None, len(row[1])):
            raise NetlistError(f"line {row[0]}: " + "the kernel does not know {line!r}", line=" ".join(row[1]))
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
    gates: Gates = []
    ready = set(range(n_in))
    for number, tokens in rows[3:]:
        kind, nums = tokens[-1], ints((number, tokens[:-1]))
        k_in, k_out, *_ = nums + [0, 0]
        src, dst = nums[2:2 + k_in], nums[2 + k_in:]
        arity = {"XOR": (2, 1), "AND": (2, 1), "INV": (1, 1), "NOT": (1, 1), "EQW": (1, 1), "EQ": (1, 1)}
        expected = (2 * k_out, k_out) if kind == "MAND" and k_out else arity.get(kind)
        if len(nums) != 2 + k_in + k_out or (k_in, k_out) != expected or (kind == "EQ" and src[0] > 1) \
                or any(w not in ready for w in ([] if kind == "EQ" else src)) \
                or any(w >= n_wires or w < n_in for w in dst):
            raise NetlistError(f"line {number}: " + "the kernel does not know the gate {line!r}", line=" ".join(tokens))
        ready.update(dst)  # a straight-line program: a gate reads inputs and earlier lines' wires (MAND: in parallel)
        ins, outs = [names.get(w, f"w{w}") for w in src], [names.get(w, f"w{w}") for w in dst]
        if kind == "MAND":
            gates += [(NGate(outs[i], "AND", (ins[i], ins[k_out + i])), number) for i in range(k_out)]
        elif kind == "EQ":
            gates.append((NGate(outs[0], "CONST1" if src[0] else "CONST0", ()), number))
        else:
            gates.append((NGate(outs[0], {"INV": "NOT", "EQW": "BUFF"}.get(kind, kind), tuple(ins)), number))
    return io[0], io[1], gates
