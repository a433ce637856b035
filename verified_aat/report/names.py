"""One name per gate for the whole page: the netlist's own net names when the circuit came from a netlist.

An arithmetized netlist's gates are tied to its nets by the netlist link section (the circuit's
provenance, or a certificate's ``netlist`` field): every net has an affine form over gates.
A gate whose form is exactly ``1·g`` *is* that net and gets its name (``273``); a gate ``g``
with ``net = α + β·g`` (a NAND is 1 - AND) is ``273′``; a helper gate only feeding a named gate
is ``273.1``, ``273.2``…; a constant is ``const(-1)``.  Any other circuit keeps its own names
(``Circuit.gate_name``).  The drawing, the encoding table, the heat-maps and the trace all use these.
"""

from __future__ import annotations

from typing import Any

from ..circuits.ir import Circuit, Kind
from ..circuits.rationals import format_rational_short, read_json_rational

NAMING_NOTE = ("Gate names are the netlist's net names ({file}): N is net N itself, N′ a gate that net N is an "
               "affine image of (N = α + β·N′, e.g. a NAND of an AND), N.k the k-th helper gate feeding N (or N's helpers).")


def net_names(circuit: Circuit, section: Any = None) -> tuple[tuple[str, ...], str]:
    """A name per gate and a sentence saying how the names were chosen ("" for the circuit's own names)."""
    own = tuple(circuit.gate_name(g) for g in range(circuit.size))
    if not isinstance(section, dict) or not isinstance(section.get("signals", section.get("steps")), dict):
        return own, ""
    try:
        return _from_netlist(circuit, section), NAMING_NOTE.format(file=str(section.get("file", "netlist")))
    except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError):
        return own, ""  # not a section we understand: the kernel judges it, the page keeps the circuit's names


def _netlist_outputs(section: dict[str, Any]) -> tuple[str, ...] | None:
    """The netlist's output nets, from the text the section embeds (None if it cannot be parsed here)."""
    from ..circuits.netlists import parse_netlist
    from ..errors import InputError

    try:
        return parse_netlist(str(section["text"]), str(section.get("file", "netlist")), str(section["format"])).outputs
    except (InputError, KeyError, ValueError, TypeError):
        return None


def _step_signals(circuit: Circuit, section: dict[str, Any]) -> dict[str, list[Any]]:
    """A section by binary steps as the candidates section's ``signals`` (net → [[const, [[gate, coefficient]]]]):
    each net's last literal c + b·w (a fold's last step, a sign form's, a cover's sum), negated where the net is
    its complement (NAND, NOR, XNOR, an off-set; a BLIF row of 0s is written as the cube the kernel reads)."""
    from ..circuits.netlists import parse_netlist
    from ..circuits.step_section import written_negated
    netlist = parse_netlist(str(section["text"]), str(section.get("file", "netlist")), str(section["format"]))
    signals: dict[str, list[Any]] = {name: [[["0", [[g, "1"]]], []]]  # input i is C's input gate i
                                      for name, g in zip(netlist.inputs, circuit.input_gates)}
    for gate in netlist.gates:
        entry = section["steps"].get(gate.name)
        literal = entry[-1] if entry and entry[0] in ("sign", "cover") else entry[-1][2] if entry else None
        if not isinstance(literal, list) or len(literal) != 3:
            continue  # no step (a BUFF, a NOT, a constant): the net is its operand's literal or a number
        negate = gate.op in ("NAND", "NOR", "XNOR", "NOT") or gate.op in ("CUBE", "COVER") and not gate.polarity
        negate ^= written_negated(str(section["format"]), gate)  # a BLIF row of 0s: its steps are written negated
        c, b, w = literal
        signals[gate.name] = [[[str(1 - c if negate else c), [[w, str(-b if negate else b)]]], []]]
    return signals


def _from_netlist(circuit: Circuit, section: dict[str, Any]) -> tuple[str, ...]:
    signals = section["signals"] if "signals" in section else _step_signals(circuit, section)
    n = circuit.size
    names: list[str | None] = [None] * n
    images: list[str | None] = [None] * n
    for net, candidates in signals.items():
        for candidate in candidates:
            const, terms = candidate[0][0], candidate[0][1]
            if len(terms) != 1 or not 0 <= int(terms[0][0]) < n:
                continue
            g, coefficient = int(terms[0][0]), read_json_rational(terms[0][1])
            if read_json_rational(const) == 0 and coefficient == 1:
                names[g] = names[g] or str(net)
            elif coefficient != 0:
                images[g] = images[g] or str(net)
    outputs = circuit.output_names or _netlist_outputs(section)
    for j, o in enumerate(circuit.outputs):  # output j's gate is net outputs[j] (the link's check (c))
        if names[o] is None and outputs is not None and j < len(outputs):
            names[o] = str(outputs[j])
    consumers: list[list[int]] = [[] for _ in range(n)]
    for g, gate in enumerate(circuit.gates):
        for a in gate.args:
            consumers[a].append(g)
    helpers: dict[str, int] = {}
    root: dict[int, str] = {}  # a helper's net: helpers of helpers count on, 811.1, 811.2, … (not 811.1.1)
    for g in range(n - 1, -1, -1):  # consumers come later: they are named first
        gate = circuit.gates[g]
        if names[g] is not None:
            continue
        if gate.kind is Kind.CONST:
            names[g] = f"const({format_rational_short(gate.value)})"  # type: ignore[arg-type]
        elif images[g] is not None:
            names[g] = f"{images[g]}′"
        else:
            owner = next((c for c in consumers[g] if names[c] is not None), None)
            if owner is None:
                names[g] = f"#{g}"
            else:
                net = root.get(owner, names[owner])
                helpers[net] = helpers.get(net, 0) + 1
                root[g] = net
                names[g] = f"{net}.{helpers[net]}"
    return tuple(name or f"#{g}" for g, name in enumerate(names))
