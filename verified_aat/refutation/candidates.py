"""Small circuits to try when refuting a modified construction, smallest first.

A modified transformer may go wrong only on some gate kinds, fan-ins or
multi-edges; these candidates cover each case with one or two gates before
moving on to seeded random circuits, so that the circuit in a reported
counterexample is as small as the search could make it.  Every fan-in a class
may allow (a mul of 3 operands too; ``refute`` skips what the class
refuses), repeated operands apart, inputs after gates and large ids are covered:
an encoding that reads ids, slots or positions may go wrong only there.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable, Iterator

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Kind


def _single(name: str, build: Callable[[CircuitBuilder, list[int]], int], n_inputs: int) -> Circuit:
    b = CircuitBuilder(name)
    xs = [b.input(f"x{i}") for i in range(n_inputs)]
    b.output(build(b, xs))
    return b.build()


def _basic() -> list[Circuit]:
    return [
        _single("add-of-two", lambda b, x: b.add(x[0], x[1]), 2),
        _single("add-multi-edge", lambda b, x: b.add(x[0], x[0], x[1]), 2),
        _single("add-of-three", lambda b, x: b.add(x[0], x[1], x[2]), 3),
        _single("add-of-one", lambda b, x: b.add(x[0]), 1),
        _single("add-of-none", lambda b, x: b.add(), 1),
        _single("mul", lambda b, x: b.mul(x[0], x[1]), 2),
        _single("square", lambda b, x: b.mul(x[0], x[0]), 1),
        _single("sign", lambda b, x: b.sign(x[0]), 1),
        _single("const", lambda b, x: b.const(Fraction(-3, 4)), 1),
        _single("input", lambda b, x: x[0], 1),
        _single("mul-by-const", lambda b, x: b.mul(x[0], b.const(Fraction(7, 2))), 1),
        _single("sign-of-sum", lambda b, x: b.sign(b.add(x[0], x[1])), 2),
        _single("product-of-sums", lambda b, x: b.mul(b.add(x[0], x[1]), b.add(x[1], x[2], x[2])), 3),
        _single("square-of-sign", lambda b, x: b.mul(b.sign(x[0]), b.sign(x[0])), 1),
        _single("sum-of-products", lambda b, x: b.add(b.mul(x[0], x[1]), b.mul(x[1], x[2]), x[0]), 3),
        _single("add-repeat-apart", lambda b, x: b.add(x[0], x[1], x[0]), 2),
        _single("mul-of-three", lambda b, x: b.mul(x[0], x[1], x[2]), 3),
        _single("mul-repeat-apart", lambda b, x: b.mul(x[0], x[1], x[0]), 2),
        _late_input(),
        _single("large-ids", lambda b, x: b.mul(x[39], b.add(x[39], x[0], x[38])), 40),
    ]


def _late_input() -> Circuit:
    """Inputs after gates: a constant and a sum come before the second input in id order."""
    b = CircuitBuilder("late-input")
    x0 = b.input("x0")
    total = b.add(b.const(1), x0)
    x1 = b.input("x1")
    b.output(b.add(b.mul(total, x1), x1, b.const(1)))
    b.output(b.sign(total))
    return b.build()


def _random(seed: int, gates: int) -> Circuit:
    rng = random.Random(seed)
    b = CircuitBuilder(f"random-{seed}")
    wires = [b.input(f"x{i}") for i in range(3)]
    for _ in range(gates):
        kind = rng.choice(["add", "add", "mul", "sign", "const", "input"])
        if kind == "add":
            wires.append(b.add(*[rng.choice(wires) for _ in range(rng.randint(0, 4))]))
        elif kind == "mul":  # fan-in 2 mostly (FSAC⁰[sign]); others where the class allows them
            wires.append(b.mul(*[rng.choice(wires) for _ in range(rng.choice((2, 2, 2, 3)))]))
        elif kind == "input":
            wires.append(b.input(f"x{sum(1 for w in wires if b.gate(w).kind is Kind.INPUT)}"))
        elif kind == "sign":
            wires.append(b.sign(rng.choice(wires)))
        else:
            wires.append(b.const(Fraction(rng.randint(-5, 5), rng.randint(1, 3))))
    b.output(wires[-1])
    b.output(rng.choice(wires))
    return b.build()


def candidate_circuits(random_count: int = 40) -> Iterator[Circuit]:
    """Single-gate circuits of every kind and shape, then growing random ones."""
    yield from _basic()
    for seed in range(random_count):
        yield _random(seed, 2 + seed // 4)
