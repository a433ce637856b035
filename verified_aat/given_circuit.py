"""What ``check --circuit FILE`` (and ``va.check(cert, circuit)``) hands the trusted kernel.

The kernel reads every format itself: a text or JSON circuit file with its own reader
(``kernel/circuit_file.py``), a netlist with its own netlist parsers, and an in-memory circuit as its
canonical structure.  The engine's readers run first only to report bad input as ``file:line`` (exit 2),
and to compute the hashes of the file binarized, which can only turn a rejection into *not checked*.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .circuits.ir import Circuit, canonical_circuit_bytes, circuit_sha256
from .errors import InputError

PER_CIRCUIT_FORMAT = "verified-aat/certificate"
SCHEMATIC_FORMAT = "verified-aat/schematic-certificate"


@dataclass(frozen=True)
class GivenCircuit:
    """The kernel's options for a given circuit: a file for its own reader, or a netlist."""

    circuit_file: tuple[str, bytes, str] | None = None  # (name, bytes, "text" | "json" | "structure")
    netlist: tuple[str, bytes] | None = None
    binarized: tuple[str, ...] = ()  # hashes of the circuit binarized: a match is *not checked*, never accepted


def given(circuit: Circuit | str | os.PathLike[str] | None, doc: dict[str, Any], fmt: str | None = None,
          mode: str | None = None) -> GivenCircuit:
    """A given circuit (an in-memory circuit or a file's path) for the certificate ``doc``."""
    if circuit is None:
        return GivenCircuit()
    schematic = doc.get("format") == SCHEMATIC_FORMAT  # its theorem is instantiated at the circuit (P10)
    if doc.get("format") != PER_CIRCUIT_FORMAT and not schematic:
        raise InputError("--circuit links a per-circuit certificate to a circuit file, or instantiates a schematic "
                         f"one at it; this one ({str(doc.get('format'))[:60]}) is about a transformer, so no file "
                         "can be linked to it", "--circuit")
    if isinstance(circuit, Circuit):
        return GivenCircuit(("<circuit>", canonical_circuit_bytes(circuit), "structure"),
                            binarized=() if schematic else _binarized_unless_stated(circuit, doc))
    from .circuits.io import NETLIST_FORMATS, file_format
    from .files import read_input
    path = os.fspath(circuit)
    fmt = file_format(path, fmt)
    if schematic and (fmt == "verilog" or fmt in NETLIST_FORMATS):
        raise InputError("a schematic certificate is instantiated at an arithmetic circuit (.circ or .json); a "
                         "netlist is linked only by a per-circuit certificate's netlist section (certify it)", path)
    if fmt == "verilog":  # Yosys synthesizes it to ASCII AIGER (untrusted); the kernel links that netlist
        from .circuits.aiger import read_aiger_source
        _, data, name = read_aiger_source(path, fmt)
        _require_well_formed(data, "aiger", doc, path)
        return GivenCircuit(netlist=(name, data), binarized=_binarized_netlist(path, fmt, mode) if doc.get("netlist") is None else ())
    if fmt in NETLIST_FORMATS:
        netlist = (os.path.basename(path), read_input(path, "netlist"))
        if fmt == "aiger":
            from .circuits.aiger import require_implicit_inputs_within_limit
            require_implicit_inputs_within_limit(netlist[1], path)
        _require_well_formed(netlist[1], fmt, doc, path)  # the kernel's reader names what it cannot read, then
        _require_parsed(netlist[1], fmt, doc, path)  # the engine's parser, stricter, as on every route
        binarized = _binarized_netlist(path, fmt, mode) if doc.get("netlist") is None else ()
        return GivenCircuit(netlist=netlist, binarized=binarized)  # perhaps certified with --binarize
    from .circuits.io import parse_circuit_json
    from .circuits.text_format import decode_circuit_bytes, parse_circuit_text
    data = read_input(path, "circuit")  # read once: the engine's parser and the kernel's read the same bytes
    text = decode_circuit_bytes(data, path)  # bad input is file:line (exit 2) before the kernel reads it
    parsed = (parse_circuit_text if fmt == "text" else parse_circuit_json)(text, file=path)
    return GivenCircuit((os.path.basename(path), data, fmt),
                        binarized=() if schematic else _binarized_unless_stated(parsed, doc))


def _binarized_unless_stated(circuit: Circuit, doc: dict[str, Any]) -> tuple[str, ...]:
    """The binarized hashes, unless the circuit's own hash is one the certificate states (a large file's
    binarization costs seconds, and the kernel then needs none)."""
    return () if circuit_sha256(circuit) in _stated_hashes(doc) else _binarized_hashes(circuit)


def _stated_hashes(doc: dict[str, Any]) -> set[str]:
    """The circuit hashes the certificate states (unverified: only used to skip work the kernel does not need)."""
    hashes, original = doc.get("hashes"), doc.get("original")
    stated = [hashes.get("circuit") if isinstance(hashes, dict) else None,
              original.get("sha256") if isinstance(original, dict) else None]
    return {h for h in stated if isinstance(h, str)}


def _binarized_hashes(circuit: Circuit) -> tuple[str, ...]:
    """Structure hashes of ``circuit`` binarized as ``certify --binarize`` does (products; products and
    sums).  The kernel only uses them to answer *not checked* instead of *rejected* (never to accept)."""
    from .constructions.binarize import binarize
    return tuple(circuit_sha256(binarize(circuit, sums=sums).circuit) for sums in (False, True))


def _binarized_netlist(path: str, fmt: str, mode: str | None) -> tuple[str, ...]:
    """As :func:`_binarized_hashes` for the netlist's arithmetizations (``mode``, else both)."""
    from .circuits.io import load_circuit
    hashes: tuple[str, ...] = ()
    for each in [mode] if mode else ["exact", "threshold"]:
        try:
            hashes += _binarized_hashes(load_circuit(path, each, fmt))
        except InputError:  # the kernel parses the netlist itself and says what is wrong with it
            pass
    return hashes


def _drop_dead(doc: dict[str, Any]) -> bool:
    section = doc.get("netlist")
    return isinstance(section, dict) and section.get("drop_dead") is True


def _require_parsed(data: bytes, fmt: str, doc: dict[str, Any], path: str) -> None:
    """Bad input by the engine's own netlist parser (an empty file, an undefined signal, …) is exit 2 with
    ``file:line``, as for every command that reads the file: the kernel's leaner reader must not turn it into a
    rejected certificate."""
    if fmt == "aiger":
        from .circuits.aiger import parse_aiger
        parse_aiger(data, path)
        return
    from .circuits.netlists import decode_netlist_bytes, parse_netlist
    parse_netlist(decode_netlist_bytes(data, path), path, fmt, _drop_dead(doc))


def _require_well_formed(data: bytes, fmt: str, doc: dict[str, Any], path: str) -> None:
    """A netlist that the kernel's own parser cannot read is bad input (exit 2, ``file:line``), not a
    rejected certificate: the kernel tells the two apart (MalformedNetlist)."""
    from .kernel.netlist_given import MalformedNetlist, read_given
    try:
        read_given(data, fmt, _drop_dead(doc))
    except MalformedNetlist as exc:
        raise InputError(f"{exc.message} (the kernel's {fmt} reader)", path, exc.line) from None

