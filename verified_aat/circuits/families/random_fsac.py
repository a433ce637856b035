"""``random-fsac``: a seeded random FSAC⁰[sign] circuit, deterministic in n.

Member n has n inputs, five constants (−3/4, 7/2, 2, −1, 1/3) and 3n
operation gates whose target depths rise evenly from 1 to 6.  A gate aimed at
depth L takes one argument of the largest depth below L that exists and the
others of any depth below L, so the circuit's depth is at most 6 (exactly 6
for every 2 <= n < 300).  Adds have fan-in 0..4 (repeats allowed; an empty
add has depth 1), muls fan-in exactly 2 (x·x allowed), signs 1.  The outputs
are the gates of the largest depth.

The random structure is first drawn as a plain *plan*; the builder turns the
plan into a circuit and :func:`ref_random_fsac` interprets the same plan
directly with Python arithmetic, independently of the IR and the evaluator.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable

from ..builder import CircuitBuilder, Wire
from ..ir import Circuit, Domain
from ..measures import CircuitClass
from .base import Family


LEVELS = 6
CONSTANTS = (Fraction(-3, 4), Fraction(7, 2), Fraction(2), Fraction(-1), Fraction(1, 3))

Op = tuple[str, tuple[int, ...]]
"""An operation of a plan: kind ("add", "mul", "sign") and argument nodes.
Plan nodes are numbered: inputs 0..n-1, then CONSTANTS, then the operations."""


def plan(n: int) -> tuple[list[Op], list[int]]:
    """The operations and output nodes of member n (same n, same plan)."""
    rand = random.Random(f"random-fsac/{n}").random

    def pick(pool: list[int]) -> int:
        return pool[int(rand() * len(pool))]

    first_op = n + len(CONSTANTS)
    nodes: list[Op] = []
    depth = [0] * first_op
    by_level: list[list[int]] = [list(range(first_op))] + [[] for _ in range(LEVELS)]
    below: list[int] = []                    # every node of depth < level
    level, ops = 0, 3 * n
    for k in range(ops):
        while level < 1 + (k * LEVELS) // ops:
            below += by_level[level]
            level += 1
        top = level - 1
        while not by_level[top]:
            top -= 1
        anchor = pick(by_level[top])
        roll = rand()
        args: list[int]
        if roll < 0.45:
            fan_in = 0 if rand() < 0.05 else 1 + int(rand() * 4)
            args = [pick(below) for _ in range(fan_in - 1)]
            if fan_in:
                args.insert(int(rand() * fan_in), anchor)
            kind = "add"
        elif roll < 0.8:
            other = anchor if rand() < 0.15 else pick(below)
            args, kind = ([anchor, other] if rand() < 0.5 else [other, anchor]), "mul"
        else:
            args, kind = [anchor], "sign"
        depth.append(1 + max((depth[a] for a in args), default=0))
        by_level[depth[-1]].append(first_op + len(nodes))
        if depth[-1] < level:
            below.append(first_op + len(nodes))
        nodes.append((kind, tuple(args)))
    outputs = next(lvl for lvl in reversed(by_level) if lvl)
    return nodes, list(outputs)


def build_random_fsac(n: int) -> Circuit:
    """Member n: the plan of :func:`plan` in the strict basis."""
    nodes, outputs = plan(n)
    b = CircuitBuilder(f"random-fsac-{n}")
    ops: dict[str, Callable[..., Wire]] = {"add": b.add, "mul": b.mul, "sign": b.sign}
    wires: list[Wire] = [b.input(f"x{i}") for i in range(1, n + 1)]
    wires += [b.const(c) for c in CONSTANTS]
    for kind, args in nodes:
        wires.append(ops[kind](*[wires[a] for a in args]))
    for o in outputs:
        b.output(wires[o], name=f"n{o}")
    return b.build()


def ref_random_fsac(xs: list[Fraction]) -> list[Fraction]:
    """Interpret the plan of member len(xs) with Python arithmetic."""
    nodes, outputs = plan(len(xs))
    values = [Fraction(x) for x in xs] + list(CONSTANTS)
    for kind, args in nodes:
        if kind == "add":
            values.append(sum((values[a] for a in args), Fraction(0)))
        elif kind == "mul":
            values.append(values[args[0]] * values[args[1]])
        else:
            v = values[args[0]]
            values.append(Fraction((v > 0) - (v < 0)))
    return [values[o] for o in outputs]


def families() -> list[Family]:
    return [
        Family("random-fsac", "seeded random FSAC0[sign] circuit: n inputs, 3n op gates on 6 levels (depth <= 6)",
               1, build_random_fsac, ref_random_fsac, Domain.RATIONALS, lambda n: n,
               CircuitClass.FSAC0, True, True, 250_000),
    ]
