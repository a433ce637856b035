"""S1's own reader of a circuit file given with ``check --circuit`` (docs/soundness.md S1): the core both formats'
readers (``circuit_text.py``, ``circuit_json.py``, each entered only for its format) share. A file is reduced to the
canonical structure a certificate's ``circuit`` section holds, gates in the formats' stable depth-first order
(docs/circuit-format.md), and hashed the same way; a file this reader cannot read is *not checked*."""

from __future__ import annotations

import json
from importlib import import_module
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Union

from .data import MAX_GATES, STRUCTURE, Circuit, Malformed, NotChecked, load_structure, need
from .document_transformer import walk
from .problems import Problem, no_link
from .rules import sha256_json

if TYPE_CHECKING:
    from .context import Context

OPS = ("const", "add", "mul", "sign")
Ref = Union[str, Fraction, int]  # a gate's name, or an inline literal's value
Gates = dict[str, tuple[str, list[Ref], Any]]  # name → (op, refs, constant value or input index), in file order


def define(gates: Gates, at: str, name: str, op: str, refs: list[Ref], value: Any) -> None:
    need(name not in gates, at, "a name defined twice")
    need(op not in ("mul", "sign") or (len(refs) >= 2 if op == "mul" else len(refs) == 1), at,
         f"a {op} gate of fan-in {len(refs)}")
    gates[name] = (op, refs, value)


def _ordered(defs: Gates, outputs: list[Ref], domain: str) -> dict[str, Any]:
    """The canonical structure, gates in the formats' stable depth-first order (document_transformer.walk)."""
    gates: list[list[Any]] = []
    at: dict[Ref, int] = {}  # a name, or a literal's value (its one constant gate)

    def index(ref: Ref) -> int:  # a name already placed, or a literal's one constant gate
        if ref not in at:
            at[ref] = len(gates)
            gates.append(["const", str(ref)])
        return at[ref]

    def descend(ref: Ref) -> bool:  # a name not yet placed; a literal gets its constant gate where the walk meets it
        if type(ref) is not str:
            index(ref)
        return type(ref) is str and ref not in at

    def place(name: str) -> None:
        op, refs, value = defs[name]
        at[name] = len(gates)
        gates.append([op, value] if op == "input" else ["const", str(value)] if op == "const"
                     else [op, [index(r) for r in refs]])

    need(all(type(r) is not str or r in defs for r in [*(r for g in defs.values() for r in g[1]), *outputs]), "$",
         "a reference to an undefined name (or a literal spelled past the kernel's 2,000 characters)")
    for root in defs:
        walk(root, lambda name: defs[name][1], descend, place)
        need(len(gates) <= MAX_GATES, "$", f"more than {MAX_GATES} gates")
    return {"format": STRUCTURE, "version": 1, "domain": domain, "gates": gates, "outputs": [index(r) for r in outputs]}


def read_circuit(data: bytes, fmt: str) -> tuple[dict[str, Any], Circuit]:
    """The canonical structure of a circuit file in format ``text``, ``json`` or ``structure`` (the canonical form
    itself, as the API hands an in-memory circuit), and the circuit it loads to; :class:`NotChecked` if unreadable."""
    try:
        # by name, only the file's own format's reader (as entry.py enters a checker; the readers import this core)
        value = json.loads(data) if fmt == "structure" else _ordered(*import_module(
            f".circuit_{'text' if fmt == 'text' else 'json'}", __package__).read(data))
        return value, load_structure(value, "$circuit-file")
    except (Malformed, ValueError, UnicodeDecodeError, AttributeError, TypeError) as exc:
        raise NotChecked(f"the kernel's own {fmt} reader does not read the given circuit file ({exc})") from None


def given_circuit(ctx: Context) -> list[Problem]:
    """S1: ``--circuit FILE`` is the certified circuit B or the recorded C; a file that merely binarizes to B
    (a hash the command computed) is *not checked*, never accepted; any other file is rejected."""
    wanted = sha256_json(read_circuit(*ctx.options.circuit_file[1:])[0])
    if wanted in (ctx.hashes["circuit"], ctx.hashes.get("original")):
        return []
    if ctx.hashes["circuit"] in ctx.options.binarized_sha256:
        ctx.unchecked.append(no_link(ctx))
        return []
    return [Problem("the given circuit has structure hash {given:16}, the certified one {circuit:16}"
                    + (" (before binarization {original:16})" if "original" in ctx.hashes else ""),
                    {"given": wanted, **ctx.hashes})]
