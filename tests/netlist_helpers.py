"""Shared pieces of the netlist tests: where the benchmark files are, the README
table (the spec), a Hypothesis strategy for random small netlists, and the tests' own
evaluation of a circuit section (apart from the kernel and the engine)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from verified_aat.circuits.netlists import BoolGate, Netlist
from verified_aat.kernel.netlist_cands import multilinear

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "circuits"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"benchmark netlists not found at {SHARED}")

# The table of shared/circuits/README.md: PI, PO, gates, max fan-in, depth.
# BUFF, NOT and constant gates count as gates and BUFF/NOT as levels; that is
# what makes c880 (26 BUFFs) come out at 383 gates and depth 24.
TABLE = {
    "iscas85/c17.bench": (5, 2, 6, 2, 3),
    "iscas85/c432.bench": (36, 7, 160, 9, 17),
    "iscas85/c499.bench": (41, 32, 202, 5, 11),
    "iscas85/c880.bench": (60, 26, 383, 4, 24),
    "epfl/ctrl.blif": (7, 26, 175, 2, 10),
    "epfl/dec.blif": (8, 256, 304, 2, 3),
    "epfl/int2float.blif": (11, 7, 260, 2, 16),
    "epfl/router.blif": (60, 30, 284, 2, 54),
}

# -- hand-written Bristol Fashion circuits ---
# a full adder: in0, in1, in2 one bit each; out0 = a ⊕ b ⊕ c, out1 = carry (MAND pairs (0,1), (3,2))
FULL_ADDER = "4 9\n3 1 1 1\n2 1 1\n\n2 1 0 1 3 XOR\n2 1 3 2 7 XOR\n4 2 0 3 1 2 4 5 MAND\n2 1 4 5 8 XOR\n"
# a > b for 2-bit a (in0), b (in1), with INV, EQ and EQW
GREATER = """14 18
2 2 2
1 1

1 1 3 4 INV
1 1 2 5 INV
2 1 1 4 6 AND
2 1 1 3 7 XOR
1 1 7 8 INV
2 1 0 5 9 AND
2 1 8 9 10 AND
1 1 6 11 INV
1 1 10 12 INV
2 1 11 12 13 AND
1 1 13 14 INV
1 1 1 15 EQ
2 1 14 15 16 AND
1 1 16 17 EQW
"""


# -- random netlists ---------------------------------------------------------
OPS = ["AND", "NAND", "OR", "NOR", "XOR", "XNOR", "NOT", "BUFF", "CONST0", "CONST1"]


@st.composite
def netlists(draw: st.DrawFn, cubes: bool = True) -> Netlist:
    """Random small netlists over all gate types with fan-in 1..5."""
    n_in = draw(st.integers(1, 5))
    signals = [f"i{k}" for k in range(n_in)]
    gates = []
    for k in range(draw(st.integers(0, 10))):
        op = draw(st.sampled_from(OPS + (["CUBE"] if cubes else [])))
        arity = 1 if op in ("NOT", "BUFF") else 0 if op.startswith("CONST") else draw(st.integers(1, 5))
        args = tuple(draw(st.sampled_from(signals)) for _ in range(arity))
        cube = draw(st.text("01-", min_size=arity, max_size=arity)) if op == "CUBE" else ""
        gates.append(BoolGate(f"g{k}", op, args, cube, draw(st.integers(0, 1)) if op == "CUBE" else 1))
        signals.append(f"g{k}")
    outputs = tuple(draw(st.lists(st.sampled_from(signals), min_size=1, max_size=4)))
    return Netlist("rand", tuple(signals[:n_in]), outputs, tuple(gates))


def kernel_values(net: Any, bits: tuple[int, ...]) -> tuple[Any, ...]:
    """The kernel's gate forms (``netlist_parse.multilinear``) of a netlist it read, at Boolean inputs (exact
    integers): what the kernel proves the circuit equal to, to compare with the engine's simulation."""
    def affine(c: Any, terms: list[tuple[Any, Any]]) -> Any:
        return c + sum(k * x for k, x in terms)

    def product(xs: list[Any]) -> Any:
        out = 1
        for x in xs:
            out *= x
        return out
    value = dict(zip(net.inputs, bits))
    for gate in net.gates:
        value[gate.name] = multilinear(gate, [value[a] for a in gate.args], affine, product)
    return tuple(value[o] for o in net.outputs)


def evaluate_structure(doc: dict[str, Any], x: list[Fraction]) -> list[Fraction]:
    """The tests' own evaluation of a circuit section (canonical JSON gates) at x, apart from the kernel's and the
    engine's evaluators."""
    values: list[Fraction] = []
    for op, arg in doc["gates"]:
        if op == "input":
            values.append(x[arg])
        elif op == "const":
            values.append(Fraction(arg))
        elif op == "add":
            values.append(sum((values[a] for a in arg), Fraction(0)))
        elif op == "mul":
            values.append(math.prod((values[a] for a in arg), start=Fraction(1)))
        else:
            v = values[arg[0]]
            values.append(Fraction((v > 0) - (v < 0)))
    return [values[o] for o in doc["outputs"]]
