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
from functools import partial
from typing import Callable, Iterator, Sequence

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Kind
from ..circuits.measures import depth


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
        _constants(),
        _cancel(),
    ]


def _constants() -> Circuit:
    """Constants read out directly, beside the input: above 1, negative, fractional and 0 (a row that holds
    min(c, 1) or |c| for c goes wrong only on some of them)."""
    b = CircuitBuilder("constants")
    x = b.input("x0")
    for q in (Fraction(7), Fraction(-3, 2), Fraction(1, 2), Fraction(0), Fraction(2)):
        b.output(b.const(q))
    b.output(x)
    return b.build()


def _cancel() -> Circuit:
    """A sum whose operands arrive at different depths and cancel, x + (−1)·x, and its sign: a transformer whose
    layers are out of order reads the product before it is there and gives x and sign(x) instead of 0."""
    b = CircuitBuilder("cancel")
    x = b.input("x0")
    total = b.add(x, b.mul(b.const(-1), x))
    b.output(b.sign(total))
    b.output(total)
    return b.build()


def _late_input() -> Circuit:
    """Inputs after gates: a constant and a sum come before the second input in id order."""
    b = CircuitBuilder("late-input")
    x0 = b.input("x0")
    total = b.add(b.const(1), x0)
    x1 = b.input("x1")
    b.output(b.add(b.mul(total, x1), x1, b.const(1)))
    b.output(b.sign(total))
    return b.build()


def _random(seed: int, gates: int, max_depth: int | None = None) -> Circuit:
    """Seeded random gates; with ``max_depth`` every operand is drawn from the wires below it, so the circuit is
    within a fixed K's reach (a wrong T_K at K = 3 may fail only on circuits of depth 3)."""
    rng = random.Random(seed)
    b = CircuitBuilder(f"random-{seed}" if max_depth is None else f"random-{seed}-depth{max_depth}")
    wires = [b.input(f"x{i}") for i in range(3)]
    depth = dict.fromkeys(wires, 0)

    def pick() -> int:
        return rng.choice(wires if max_depth is None else [w for w in wires if depth[w] < max_depth])

    for _ in range(gates):
        kind = rng.choice(["add", "add", "mul", "sign", "const", "input"])
        if kind == "add":
            wires.append(b.add(*[pick() for _ in range(rng.randint(0, 4))]))
        elif kind == "mul":  # fan-in 2 mostly (FSAC⁰[sign]); others where the class allows them
            wires.append(b.mul(*[pick() for _ in range(rng.choice((2, 2, 2, 3)))]))
        elif kind == "input":
            wires.append(b.input(f"x{sum(1 for w in wires if b.gate(w).kind is Kind.INPUT)}"))
        elif kind == "sign":
            wires.append(b.sign(pick()))
        else:
            wires.append(b.const(Fraction(rng.randint(-5, 5), rng.randint(1, 3))))
        gate = b.gate(wires[-1])  # an empty sum has depth 1, as in the kernel's structure.depths
        depth[wires[-1]] = 0 if kind in ("input", "const") else 1 + max((depth[a] for a in gate.args), default=0)
    b.output(wires[-1])
    b.output(rng.choice(wires))
    return b.build()


def lifted(circuit: Circuit, by: int) -> Circuit:
    """The same function with every gate ``by`` deeper: each input and constant a gate reads passes first through
    a chain of ``by`` sums of fan-in 1 (identities).  A T_K edited in one late layer goes wrong only on gates
    computed there, i.e. gates of depth > 1; the single-gate shapes are then tried at every depth up to K."""
    return circuit if by < 1 else _copies(circuit, f"{circuit.name}-at-depth+{by}", [by], None)


def stacked(circuit: Circuit, to_depth: int) -> Circuit:
    """``circuit`` computed again at every depth it fits below ``to_depth`` (its leaves carried there by chains of
    identities, shared by the copies), each copy's outputs carried on by identities to ``to_depth``.  An edit of one
    middle layer of T_K may go wrong only on a gate computed there whose value is then carried on to depth K: the
    error of a gate read out at once heals a layer later (red team, round 28: a sign gate at depth 16 of T_31)."""
    return _copies(circuit, f"{circuit.name}-at-every-depth-to-{to_depth}",
                   range(to_depth - depth(circuit) + 1), to_depth)


def _copies(circuit: Circuit, name: str, lifts: Sequence[int], to_depth: int | None) -> Circuit:
    """One copy of ``circuit``'s gates per lift, each reading the inputs and constants through a chain of that many
    identities (the chains shared, the leaves made in place in the first copy, so ids keep their order); with
    ``to_depth``, each copy's outputs carried on by identities to that depth."""
    b = CircuitBuilder(name)
    leaves: dict[int, list[int]] = {}  # an input or constant of ``circuit`` → its wire at depth 0, 1, 2, …
    reach = None if to_depth is None else to_depth - depth(circuit)  # identities after a copy lifted by 0

    def carried(g: int, d: int) -> int:
        chain = leaves[g]
        while len(chain) <= d:
            chain.append(b.add(chain[-1]))
        return chain[d]

    for lift in lifts:
        wire: dict[int, int] = {}
        for g, gate in enumerate(circuit.gates):
            if g in leaves:  # made in the first copy
                continue
            if gate.kind is Kind.INPUT:
                leaves[g] = [b.input(circuit.input_names[gate.index] if gate.index is not None else None)]
            elif gate.kind is Kind.CONST:
                leaves[g] = [b.const(gate.value if gate.value is not None else Fraction(0))]
            else:
                args = [carried(a, lift) if a in leaves else wire[a] for a in gate.args]
                wire[g] = b.sign(args[0]) if gate.kind is Kind.SIGN else getattr(b, gate.kind.value)(*args)
        for o in circuit.outputs:
            w = wire[o] if o in wire else carried(o, 0 if to_depth is None else lift)
            for _ in range(0 if reach is None else reach - lift):
                w = b.add(w)
            b.output(w)
    return b.build()


STACKED_MAX_GATES = 200_000
"""Past this many gates (about K²/2 a shape), a shape computed at every depth is tried as one circuit per depth
instead (``_carried``): at K = 10⁴ one stacked circuit had 5·10⁷ gates, built before any budget was looked at."""


def candidate_circuits(random_count: int = 40, max_depth: int | None = None) -> Iterator[Circuit]:
    """Single-gate circuits of every kind and shape, then growing random ones (with ``max_depth``: as many more
    again of depth at most that, so a search at a fixed K does not skip most of them), and between them (with
    ``max_depth``) the single-gate shapes lifted to every depth up to it (:func:`lifted`), shallowest and deepest in
    turn, one per random seed so that neither kind waits for all of the other within a search's budget.  Each
    circuit is built when it is asked for: at a large K they are many, and large."""
    yield from _basic()
    reach, shapes = max_depth or 1, [c for c in _basic() if depth(c) >= 1]
    deeper: list[Callable[[], Circuit]] = [partial(lifted, c, by) for by in range(1, reach) for c in shapes
                                           if depth(c) + by <= reach]
    # shallowest and deepest alternately: a T_K with its last layer edited or missing fails only at depth K, which an
    # ascending order reached after the budget at K = 31 (red team, round 28)
    deeper = [c for pair in zip(deeper, reversed(deeper)) for c in pair][:len(deeper)]
    if max_depth is not None and max_depth > 2:  # then every shape at every depth, carried on to K, one circuit each
        every = [partial(stacked, c, max_depth) for c in shapes if depth(c) <= max_depth
                 and (max_depth - depth(c) + 1) * (max_depth + c.size) <= STACKED_MAX_GATES]
        if len(every) < len(shapes):  # too large stacked: each depth its own circuit, deepest and shallowest in turn
            every = _carried(shapes, max_depth)
        deeper = [c for pair in zip(deeper, every) for c in pair] + deeper[len(every):]
    for seed in range(random_count):
        if seed < len(deeper):
            yield deeper[seed]()
        yield _random(seed, 2 + seed // 4)
        if max_depth is not None:
            yield _random(seed, 2 + min(seed, 60) // 4, max_depth)
    yield from (make() for make in deeper[random_count:])


def _carried(shapes: list[Circuit], to_depth: int) -> list[Callable[[], Circuit]]:
    """Each shape computed at one depth, its outputs carried on to ``to_depth``: a copy of :func:`stacked` each."""
    lifts = [(c, lift) for lift in range(to_depth) for c in shapes if depth(c) + lift <= to_depth]
    lifts = [c for pair in zip(reversed(lifts), lifts) for c in pair][:len(lifts)]
    return [partial(_copies, c, f"{c.name}-at-depth+{lift}-to-{to_depth}", [lift], to_depth) for c, lift in lifts]
