"""Flat (array) circuits for the audit: build, measure and evaluate the unrolled circuit fast.

The unrolled circuit of MATH.md §5 has Θ(L·H·N³) gates.  Building it gate by
gate as :class:`~verified_aat.circuits.ir.Gate` objects, measuring it and
evaluating it on every sample with the generic interpreter is what made the
audit slow.  This module keeps the *same* gates (same order, kinds, arguments
and constants, so :meth:`FlatCircuit.to_circuit` gives exactly the circuit the
straightforward builder gives) in flat arrays:

* :class:`FlatBuilder` has the :class:`~verified_aat.circuits.builder.CircuitBuilder`
  methods the unrolling uses (input, const, add, mul, sign, tree, output) and
  appends to Python lists; it records every gate's depth as it goes, and
  :meth:`FlatBuilder.extend` appends a whole block built with numpy (the
  argmax gadget);
* :class:`FlatCircuit` holds kinds, fan-ins, arguments (CSR), depths and
  constants as numpy arrays; :meth:`FlatCircuit.measures` gives size, edges,
  depth, the largest fan-ins and the class in one pass over the arrays;
* :class:`FlatEvaluator` evaluates level by level (all gates of one depth and
  kind at once) with numpy *object* arrays of Python integers: a value is a
  numerator and a positive denominator, reduced by their gcd after every
  operation that involves a non-integer.  It is exact (no float anywhere);
  gates whose arguments are all integers take an integer-only path.

The module is long because the three share one private array layout (CSR arguments, ``_csr``) and
:class:`FlatCircuit` builds its evaluator lazily; split apart they would import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from math import gcd, prod
from typing import Any, Sequence

import numpy as np

from ..circuits.evaluate import as_exact
from ..errors import LimitReached
from ..limits import MAX_VALUE_BITS
from ..circuits.ir import Circuit, Domain, Gate, Kind
from ..wording import plural

INPUT, CONST, ADD, MUL, SIGN = 0, 1, 2, 3, 4
KINDS = (Kind.INPUT, Kind.CONST, Kind.ADD, Kind.MUL, Kind.SIGN)
CODE = {kind: code for code, kind in enumerate(KINDS)}

Number = int | Fraction


class FlatBuilder:
    """Append-only construction into flat lists; wires are gate indices (as in CircuitBuilder).

    Constants are shared exactly as :class:`~verified_aat.circuits.builder.CircuitBuilder`
    shares them (one gate per value, created at its first use), and :meth:`tree`
    splits a product the same way, so both builders give the same gates for the
    same sequence of calls.  Gates appended one by one go to Python lists, which
    are moved into numpy chunks whenever a block arrives (:meth:`extend`); only
    the depths stay one Python list, for the depth of each new gate.
    """

    def __init__(self, name: str = "circuit"):
        self.name = name
        self.kinds: list[int] = []        # pending, since the last chunk
        self.fanins: list[int] = []
        self.argv: list[int] = []
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.depths: list[int] = []       # every gate
        self.consts: dict[Fraction, int] = {}
        self.const_values: dict[int, Fraction] = {}
        self.input_gates: list[int] = []
        self.input_names: list[str | None] = []
        self.outputs: list[int] = []
        self.output_names: list[str] = []

    @property
    def n_gates(self) -> int:
        return len(self.depths)

    def _op(self, kind: int, args: Sequence[int]) -> int:
        depths = self.depths
        wire = len(depths)
        self.kinds.append(kind)
        self.fanins.append(len(args))
        self.argv.extend(args)
        depths.append(1 + max([depths[a] for a in args]) if args else 1)
        return wire

    def _leaf(self, kind: int) -> int:
        wire = len(self.depths)
        self.kinds.append(kind)
        self.fanins.append(0)
        self.depths.append(0)
        return wire

    def input(self, name: str | None = None) -> int:
        wire = self._leaf(INPUT)
        self.input_gates.append(wire)
        self.input_names.append(name)
        return wire

    def const(self, value: Fraction | int | str) -> int:
        q = Fraction(value)
        wire = self.consts.get(q)
        if wire is None:
            wire = self._leaf(CONST)
            self.consts[q] = wire
            self.const_values[wire] = q
        return wire

    def add(self, *args: int) -> int:
        return self._op(ADD, args)

    def mul(self, *args: int) -> int:
        if len(args) < 2:
            raise ValueError("mul takes at least 2 arguments")
        return self._op(MUL, args)

    def sign(self, arg: int) -> int:
        return self._op(SIGN, (arg,))

    def tree(self, kind: Kind, args: list[int]) -> int:
        """A balanced tree of binary gates, split exactly like ``CircuitBuilder.tree``."""
        assert kind in (Kind.ADD, Kind.MUL) and args
        code = CODE[kind]
        layer = list(args)
        while len(layer) > 2:
            nxt = [self._op(code, (layer[i], layer[i + 1])) for i in range(0, len(layer) - 1, 2)]
            if len(layer) % 2:
                nxt.append(layer[-1])
            layer = nxt
        return layer[0] if len(layer) == 1 else self._op(code, tuple(layer))

    def _flush(self) -> None:
        if self.kinds:
            self.chunks.append((np.array(self.kinds, dtype=np.int8), np.array(self.fanins, dtype=np.int64),
                                np.array(self.argv, dtype=np.int64)))
            self.kinds, self.fanins, self.argv = [], [], []

    def extend(self, kinds: np.ndarray, fanins: np.ndarray, argv: np.ndarray, depths: np.ndarray) -> int:
        """Append a block of operation gates given as arrays (arguments in CSR order); its first index."""
        first = len(self.depths)
        self._flush()
        self.chunks.append((kinds.astype(np.int8), fanins.astype(np.int64), argv.astype(np.int64)))
        self.depths.extend(depths.tolist())
        return first

    def output(self, wire: int, name: str | None = None) -> None:
        self.outputs.append(wire)
        self.output_names.append(name or f"g{wire}")

    def build(self) -> "FlatCircuit":
        self._flush()
        parts = self.chunks or [(np.zeros(0, np.int8), np.zeros(0, np.int64), np.zeros(0, np.int64))]
        kinds, fanins, argv = (np.concatenate([part[k] for part in parts]) for k in range(3))
        offsets = np.zeros(len(fanins) + 1, dtype=np.int64)
        np.cumsum(fanins, out=offsets[1:])
        return FlatCircuit(self.name, kinds, fanins, offsets, argv, np.array(self.depths, dtype=np.int64),
                           dict(self.const_values), tuple(self.input_gates), tuple(self.input_names),
                           tuple(self.outputs), tuple(self.output_names))


@dataclass(frozen=True)
class FlatMeasures:
    """What the audit measures, computed on the arrays (the same numbers as ``measures.measure``)."""

    size: int
    edges: int
    depth: int
    operations: int           # non-constant gates
    max_add: int
    max_mul: int
    has_sign: bool
    mul_binary: bool          # every multiplication has fan-in exactly 2 (vacuous without multiplications)

    @property
    def circuit_class(self) -> str:
        """FNC0/FSAC0/FAC0 by the rule of ``measures.classify``."""
        return "FAC0" if self.max_mul > 2 else ("FSAC0" if self.max_add > 2 else "FNC0")

    @property
    def class_name(self) -> str:
        return f"{self.circuit_class}[sign]" if self.has_sign else self.circuit_class


@dataclass(frozen=True, eq=False)
class FlatCircuit:
    """A circuit in the strict basis as arrays: gate g has kind ``kinds[g]`` (see ``KINDS``) and
    arguments ``argv[offsets[g]:offsets[g + 1]]``; ``depths[g]`` is its depth."""

    name: str
    kinds: np.ndarray
    fanins: np.ndarray
    offsets: np.ndarray
    argv: np.ndarray
    depths: np.ndarray
    const_values: dict[int, Fraction]
    input_gates: tuple[int, ...]
    input_names: tuple[str | None, ...]
    outputs: tuple[int, ...]
    output_names: tuple[str, ...]
    domain: Domain = Domain.RATIONALS

    @property
    def size(self) -> int:
        return len(self.kinds)

    @property
    def n_inputs(self) -> int:
        return len(self.input_gates)

    def operations(self, start: int = 0, end: int | None = None) -> int:
        """Non-constant gates among ``start .. end - 1``."""
        return int(np.count_nonzero(self.kinds[start:end] != CONST))

    def measures(self) -> FlatMeasures:
        kinds, fanins = self.kinds, self.fanins
        adds, muls = fanins[kinds == ADD], fanins[kinds == MUL]
        return FlatMeasures(size=self.size, edges=len(self.argv),
                            depth=int(self.depths.max()) if self.size else 0,
                            operations=self.operations(),
                            max_add=int(adds.max()) if len(adds) else 0,
                            max_mul=int(muls.max()) if len(muls) else 0,
                            has_sign=bool(np.any(kinds == SIGN)),
                            mul_binary=bool(np.all(muls == 2)))

    def to_circuit(self) -> Circuit:
        """The :class:`Circuit` of these gates (what ``CircuitBuilder`` would have built)."""
        names = dict(zip(self.input_gates, self.input_names))
        index = {g: k for k, g in enumerate(self.input_gates)}
        kinds = self.kinds.tolist()
        offsets = self.offsets.tolist()
        argv = self.argv.tolist()
        gates = []
        for g, code in enumerate(kinds):
            if code == INPUT:
                gates.append(Gate(Kind.INPUT, index=index[g], name=names[g]))
            elif code == CONST:
                gates.append(Gate(Kind.CONST, value=self.const_values[g]))
            else:
                gates.append(Gate(KINDS[code], tuple(argv[offsets[g]:offsets[g + 1]])))
        return Circuit(tuple(gates), self.outputs, self.name, self.domain, self.output_names, None)

    @classmethod
    def from_circuit(cls, circuit: Circuit) -> "FlatCircuit":
        """The arrays of an existing circuit (for the straightforward construction and for tests)."""
        b = FlatBuilder(circuit.name)
        for gate in circuit.gates:
            if gate.kind is Kind.INPUT:
                b._leaf(INPUT)
            elif gate.kind is Kind.CONST:
                b.const_values[b._leaf(CONST)] = gate.value  # type: ignore[assignment]
            else:
                b._op(CODE[gate.kind], gate.args)
        b.input_gates = list(circuit.input_gates)
        b.input_names = [circuit.gates[g].name for g in circuit.input_gates]
        b.outputs = list(circuit.outputs)
        names = circuit.output_names
        b.output_names = list(names) if names is not None else [circuit.gate_name(o) for o in circuit.outputs]
        flat = b.build()
        return flat if circuit.domain is Domain.RATIONALS else replace(flat, domain=circuit.domain)

    @cached_property
    def evaluator(self) -> "FlatEvaluator":
        return FlatEvaluator(self)


# -- exact, level-by-level evaluation -------------------------------------------------------

@dataclass(frozen=True)
class _Group:
    """Gates of one depth and kind: ``outs``; binary ones read ``a``, ``b``; others a CSR slice."""

    kind: int
    outs: np.ndarray
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    idx: np.ndarray | None = None      # argument gates, segment by segment
    starts: np.ndarray | None = None   # segment starts in idx (every segment non-empty)
    lens: np.ndarray | None = None
    args: tuple[tuple[int, ...], ...] | None = None  # a narrow group's (_narrow): each gate's arguments


def _csr(flat: FlatCircuit, outs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lens = flat.fanins[outs]
    starts = np.zeros(len(outs), dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    idx = flat.argv[np.repeat(flat.offsets[outs] - starts, lens) + np.arange(int(lens.sum()), dtype=np.int64)]
    return idx, starts, lens


def _reduce(top: np.ndarray, bottom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """top/bottom in lowest terms (bottom > 0 stays positive; 0 becomes 0/1)."""
    g = np.gcd(top, bottom)
    return top // g, bottom // g


def _objects(values: list[int]) -> np.ndarray:
    """A 1-d object array of Python ints."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


class FlatEvaluator:
    """Exact evaluation of a :class:`FlatCircuit`, vectorised over the gates of each depth and kind."""

    def __init__(self, flat: FlatCircuit):
        self.flat = flat
        kinds, depths = flat.kinds, flat.depths
        order = np.lexsort((kinds, depths))
        order = order[depths[order] > 0]              # inputs and constants are set directly
        groups: list[_Group] = []
        self.thin = False
        if len(order):
            key = depths[order] * 8 + kinds[order]
            cuts = np.flatnonzero(np.diff(key)) + 1
            split = np.split(order, cuts)
            self.thin = sum(len(outs) for outs in split if len(outs) <= NARROW) >= THIN * len(order)
            for outs in split:
                kind = int(kinds[outs[0]])
                if self.thin or len(outs) <= NARROW:
                    groups.append(_Group(kind, outs, args=tuple(
                        tuple(flat.argv[flat.offsets[g]:flat.offsets[g] + flat.fanins[g]].tolist()) for g in outs)))
                    continue
                if kind == SIGN:
                    groups.append(_Group(kind, outs, a=flat.argv[flat.offsets[outs]]))
                    continue
                fanins = flat.fanins[outs]
                binary = outs[fanins == 2]
                if len(binary):
                    first = flat.offsets[binary]
                    groups.append(_Group(kind, binary, a=flat.argv[first], b=flat.argv[first + 1]))
                other = outs[(fanins != 2) & (fanins > 0)]  # an add of fan-in 0 is 0: the initial value
                if len(other):
                    idx, starts, lens = _csr(flat, other)
                    groups.append(_Group(kind, other, idx=idx, starts=starts, lens=lens))
        self.groups = groups
        consts = sorted(flat.const_values.items())
        self.const_gates = np.array([g for g, _ in consts], dtype=np.int64)
        self.const_num = _objects([q.numerator for _, q in consts])
        self.const_den = _objects([q.denominator for _, q in consts])
        self.input_gates = np.array(flat.input_gates, dtype=np.int64)

    def run(self, inputs: Sequence[Number]) -> "FlatValues":
        """Every gate's value on ``inputs`` (one exact rational per input)."""
        flat = self.flat
        if len(inputs) != flat.n_inputs:
            raise ValueError(f"circuit {flat.name} takes {plural(flat.n_inputs, 'input')}, got {len(inputs)}")
        xs = [Fraction(as_exact(v)) for v in inputs]
        size = flat.size
        num = np.zeros(size, dtype=object)
        den = np.ones(size, dtype=object)
        frac = np.zeros(size, dtype=bool)
        if len(self.const_gates):
            num[self.const_gates] = self.const_num
            den[self.const_gates] = self.const_den
            frac[self.const_gates] = self.const_den != 1
        if xs:
            gates = self.input_gates
            num[gates] = _objects([x.numerator for x in xs])
            dens = _objects([x.denominator for x in xs])
            den[gates] = dens
            frac[gates] = dens != 1
        if self.thin:  # every group gate by gate, on Python lists (a numpy array's item costs ten times a list's)
            lists = num.tolist(), den.tolist(), frac.tolist()
            for group in self.groups:
                _narrow(group, *lists, flat.name)
            return FlatValues(_objects(lists[0]), _objects(lists[1]), np.array(lists[2], dtype=bool))
        for group in self.groups:
            if group.args is not None:
                _narrow(group, num, den, frac, flat.name)
                continue
            if group.kind == SIGN:
                x = num[group.a]
                num[group.outs] = ((x > 0).astype(np.int64) - (x < 0)).astype(object)
            elif group.a is not None:
                self._binary(group, num, den, frac)
            else:
                self._wide(group, num, den, frac)
            if group.kind != SIGN and len(group.outs):  # 40 squarings grew to 6 GB in a minute (red team, round 7)
                top = max(max(map(int.bit_length, num[group.outs])), max(map(int.bit_length, den[group.outs])))
                if top > MAX_VALUE_BITS:
                    raise _too_many_bits(flat.name)
        return FlatValues(num, den, frac)

    @staticmethod
    def _binary(group: _Group, num: np.ndarray, den: np.ndarray, frac: np.ndarray) -> None:
        a, b, outs = group.a, group.b, group.outs
        assert a is not None and b is not None
        mixed = frac[a] | frac[b]
        add = group.kind == ADD
        if not mixed.any():
            num[outs] = num[a] + num[b] if add else num[a] * num[b]
            return
        whole = ~mixed
        if whole.any():
            ia, ib = a[whole], b[whole]
            num[outs[whole]] = num[ia] + num[ib] if add else num[ia] * num[ib]
        a, b, outs = a[mixed], b[mixed], outs[mixed]
        na, da, nb, db = num[a], den[a], num[b], den[b]
        top = na * db + nb * da if add else na * nb
        bottom = da * db
        top, bottom = _reduce(top, bottom)
        num[outs], den[outs], frac[outs] = top, bottom, bottom != 1

    @staticmethod
    def _wide(group: _Group, num: np.ndarray, den: np.ndarray, frac: np.ndarray) -> None:
        idx, starts, lens, outs = group.idx, group.starts, group.lens, group.outs
        assert idx is not None and starts is not None and lens is not None
        add = group.kind == ADD
        reducer = np.add if add else np.multiply
        fr = frac[idx]
        if not fr.any():
            num[outs] = reducer.reduceat(num[idx], starts)
            return
        mixed = np.logical_or.reduceat(fr, starts)
        if not mixed.all():
            keep = ~mixed
            sub_lens = lens[keep]
            sub_idx = idx[np.repeat(keep, lens)]
            sub_starts = np.zeros(len(sub_lens), dtype=np.int64)
            np.cumsum(sub_lens[:-1], out=sub_starts[1:])
            num[outs[keep]] = reducer.reduceat(num[sub_idx], sub_starts)
        sub_lens = lens[mixed]
        sub_idx = idx[np.repeat(mixed, lens)]
        sub_starts = np.zeros(len(sub_lens), dtype=np.int64)
        np.cumsum(sub_lens[:-1], out=sub_starts[1:])
        outs = outs[mixed]
        nums, dens = num[sub_idx], den[sub_idx]
        bottom = np.multiply.reduceat(dens, sub_starts)
        if add:   # Σ n_k/d_k = Σ n_k·(D/d_k) / D with D = Π d_k
            top = np.add.reduceat(nums * (np.repeat(bottom, sub_lens) // dens), sub_starts)
        else:
            top = np.multiply.reduceat(nums, sub_starts)
        top, bottom = _reduce(top, bottom)
        num[outs], den[outs], frac[outs] = top, bottom, bottom != 1


NARROW = 4
"""Groups of at most this many gates are evaluated gate by gate (:func:`_narrow`)."""
THIN = 0.5
"""A circuit with at least this share of its gates in such groups is evaluated gate by gate throughout, on lists."""


def _narrow(group: _Group, num: Any, den: Any, frac: Any, name: str) -> None:
    """A group of a few gates, one by one in Python's own arithmetic.  A deep, thin circuit has a group or two per
    depth (200 layers of a 2,000-gate chain unroll to 820,408 gates over 400,820 depths at N = 2): numpy's cost per
    call made its evaluation 1.95 s of CPU a sample, 0.65 s this way."""
    assert group.args is not None
    for out, args in zip(group.outs.tolist(), group.args):
        if not args:  # an add of fan-in 0: the initial 0, as on the vectorised path
            continue
        if group.kind == SIGN:
            value = num[args[0]]
            num[out] = (value > 0) - (value < 0)
            continue
        if any(frac[a] for a in args):  # numerator and denominator, reduced once (a Fraction a step cost twice)
            top, bottom = num[args[0]], den[args[0]]
            for a in args[1:]:
                top, bottom = (top * den[a] + num[a] * bottom if group.kind == ADD else top * num[a]), bottom * den[a]
            common = gcd(top, bottom)
            top, bottom = top // common, bottom // common
        else:
            top, bottom = sum(num[a] for a in args) if group.kind == ADD else prod(num[a] for a in args), 1
        if max(top.bit_length(), bottom.bit_length()) > MAX_VALUE_BITS:
            raise _too_many_bits(name)
        num[out], den[out], frac[out] = top, bottom, bottom != 1


def _too_many_bits(name: str) -> LimitReached:
    return LimitReached(f"{name}: a gate's value has more than {MAX_VALUE_BITS:,} bits (the bits-per-value limit of "
                        "exact evaluation)")


class FlatValues:
    """The value of every gate after :meth:`FlatEvaluator.run` (int when integral, else Fraction)."""

    def __init__(self, num: np.ndarray, den: np.ndarray, frac: np.ndarray):
        self.num, self.den, self.frac = num, den, frac

    def __getitem__(self, gate: int) -> Number:
        gate = int(gate)
        if self.frac[gate]:
            return Fraction(self.num[gate], self.den[gate])
        return self.num[gate]

    def take(self, gates: Sequence[int]) -> list[Number]:
        return [self[g] for g in gates]

    def all(self) -> list[Number]:
        return self.take(range(len(self.num)))
