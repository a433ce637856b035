"""The canonical form every netlist reader of the kernel reduces its format to, which ``netlist_parse.py`` orders
and checks (docs/soundness.md N): inputs and outputs in file order, and gates ``(name, op, args, cube, polarity)``,
``op`` one of ``AND NAND OR NOR XOR XNOR NOT BUFF CONST0 CONST1 CUBE COVER``; a ``CUBE`` is the product of the
literals ``cube`` marks over ``0 1 -`` (one character per argument; ``polarity`` 0 negates it), a ``COVER`` the OR of
the cubes ``cubes``.  Anything a reader does not read is a :class:`NetlistError` naming the line."""

from __future__ import annotations

from dataclasses import dataclass

from .data import Malformed

Gates = list[tuple["NGate", int]]  # (gate, its line) in file order


class NetlistError(Malformed):
    """A netlist that does not parse, a malformed ``$.netlist.text`` (a rejection, as every malformed field is:
    ``rules.run_checks``): a fixed message whose fields name the offending text, in full in ``data``."""

    def __init__(self, message: str, **data: object):
        super().__init__("$.netlist.text", message, data)


@dataclass(frozen=True)
class NGate:
    name: str
    op: str
    args: tuple[str, ...]
    cube: str = ""
    polarity: int = 1
    cubes: tuple[str, ...] = ()  # a COVER's rows (a BLIF block of several rows)
