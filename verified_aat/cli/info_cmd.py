"""``verified-aat info``: size, depth, fan-in and class of a circuit (strict basis)."""

from __future__ import annotations

import argparse
from typing import Any

from ..circuits.ir import Circuit
from ..circuits.measures import measure
from ..errors import EXIT_OK
from .common import add_circuit_argument, arithmetized_here, circuit_from_args, domain_sentence
from ..wording import plural

_LIST_LIMIT = 16


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "info", help="show size, depth, fan-in and class of a circuit",
        description="Measures of a circuit in the strict basis (input, const, add, mul, sign): "
                    "size, edges, depth, max fan-in per kind and the class FNC0/FSAC0/FAC0[sign]; "
                    "for an imported netlist also the netlist's own measures.")
    add_circuit_argument(parser)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (schema: docs/cli.md); bad input is still one line on stderr "
                             "and exit 2")
    parser.set_defaults(func=run)


def info(circuit: Circuit) -> dict[str, Any]:
    """Everything ``info`` reports, as JSON-ready data."""
    m = measure(circuit)
    prov = circuit.provenance
    netlist = None
    if prov is not None and (prov.netlist_gates is not None or prov.netlist_depth is not None):
        netlist = {
            "source_format": prov.source_format,
            "source_path": prov.source_path,
            "gates": prov.netlist_gates,
            "depth": prov.netlist_depth,
            "max_fan_in": prov.netlist_max_fan_in,
            "gate_types": list(prov.netlist_gate_types),
        }
    names = circuit.output_names or tuple(circuit.gate_name(o) for o in circuit.outputs)
    return {
        "name": circuit.name,
        "domain": circuit.domain.value,
        "domain_note": domain_sentence(circuit),
        "arithmetization": prov.arithmetization if prov else None,
        "inputs": list(circuit.input_names),
        "outputs": list(names),
        "size": m.size,
        "edges": m.edges,
        "depth": m.depth,
        "max_fan_in": dict(sorted(m.max_fan_in.items())),
        "class": m.class_name,
        "netlist": netlist,
    }


def _names(names: list[str]) -> str:
    shown = " ".join(names[:_LIST_LIMIT])
    if len(names) > _LIST_LIMIT:
        shown += f" ... ({len(names) - _LIST_LIMIT} more)"
    return f"{len(names)}" + (f": {shown}" if names else "")


def render(data: dict[str, Any]) -> str:
    """The human-readable report."""
    fan_in = ", ".join(f"{k} {v}" for k, v in data["max_fan_in"].items()) or "-"
    rows = [
        ("circuit", data["name"]),
        ("domain", f"{data['domain']} ({data['domain_note']})"),
        ("arithmetization", data["arithmetization"] or "-"),
        ("inputs", _names(data["inputs"])),
        ("outputs", _names(data["outputs"])),
        ("size", plural(data["size"], "gate")),
        ("edges", str(data["edges"])),
        ("depth", str(data["depth"])),
        ("max fan-in", fan_in),
        ("class", data["class"]),
    ]
    lines = [f"{key:<16}{value}" for key, value in rows]
    net = data["netlist"]
    if net is not None:
        lines.append("netlist" + (f" ({net['source_format']})" if net["source_format"] else ""))
        for key, value in (("source", net["source_path"]), ("gates", net["gates"]),
                           ("depth", net["depth"]), ("max fan-in", net["max_fan_in"]),
                           ("gate types", ", ".join(net["gate_types"]) or None),
                           ("construction", net.get("construction")),
                           ("dead gates", "dropped" if net.get("dead_gates_dropped") else None)):
            if value is not None or key not in ("construction", "dead gates"):
                lines.append(f"  {key:<14}{'-' if value is None else value}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    data = info(circuit_from_args(args))
    if data["netlist"] is not None and arithmetized_here(args):  # what --cap and --drop-dead did (no trace before)
        data["netlist"]["construction"] = "linear" if args.cap is None else f"depth-aware, cap {args.cap}"
        data["netlist"]["dead_gates_dropped"] = bool(args.drop_dead)
    if args.json:
        from .json_output import emit, envelope
        doc = envelope("info", "ok", counts={"inputs": len(data["inputs"]), "outputs": len(data["outputs"]),
                                             "size": data["size"], "edges": data["edges"], "depth": data["depth"]})
        doc.update(data)  # the fields --json always had
        return emit(doc)
    print(render(data))
    return EXIT_OK
