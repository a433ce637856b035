"""Per-position obligations, rendered as canonical SMT-LIB lemmas.

For a layer function F (a distinct layer: heads plus activation) and a
position p with a claim settled at layer s, the obligation is checked once,
at the first layer ℓ ≥ s that uses F: with every position settled by ℓ−1
carrying its claim (gate values as fresh variables) and every other value
coordinate an unconstrained *havoc* variable, F's claimed outputs at p equal
p's claim.  Later layers using F only replace havoc variables by claims, so
their obligations are instances of this one.  The exact rendering (variable
naming, which arguments become numerals or free variables) is specified in
docs/certificates.md; the checker re-derives the same text independently.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from ..circuits.evaluate import as_exact
from ..circuits.ir import Circuit, Kind
from ..circuits.smtlib import LOGIC, SGN_DEFINITION, define_fun, numeral, smt_symbol
from ..constructions.base import ClaimTerm, PositionClaim, Schedule
from ..transformer.model import Layer, Pooling, Transformer, activation_input_names
from .analysis import output_reads
from .attention import ArgmaxSets
from .residual import partial_evaluate

HEADER = "; verified-aat obligation v1"


@dataclass(frozen=True)
class LayerFunction:
    number: int
    layer: Layer
    layers: tuple[int, ...]  # 1-based layer numbers that use this function


def layer_functions(transformer: Transformer) -> list[LayerFunction]:
    """Distinct layers (equal heads and activation structure; names do not count), in order of first use."""
    from ..certificates.kernel_form import layer_key

    found: dict[tuple, tuple[Layer, list[int]]] = {}
    keys: dict[int, tuple] = {}
    for number, layer in enumerate(transformer.layers, start=1):
        key = keys.get(id(layer))
        if key is None:
            key = keys[id(layer)] = layer_key(layer)
        found.setdefault(key, (layer, []))[1].append(number)
    return [LayerFunction(i, layer, tuple(ls)) for i, (layer, ls) in enumerate(found.values())]


@dataclass
class Lemma:
    digest: str
    text: str
    kind: str
    uses: int = 0
    first_use: tuple[int, int] = (0, 0)  # (layer, position)


@dataclass
class Derivation:
    lemmas: dict[str, Lemma] = field(default_factory=dict)
    kinds: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)


class _Names:
    """Canonical variable names by first occurrence: y (gate values), h (havoc), f (free)."""

    __slots__ = ("y", "h", "f")

    def __init__(self) -> None:
        self.y: dict[int, str] = {}
        self.h: dict[tuple[int, int], str] = {}
        self.f = 0

    def gate(self, g: int) -> str:
        name = self.y.get(g)
        if name is None:
            name = self.y[g] = f"y{len(self.y)}"
        return name

    def havoc(self, p: int, c: int) -> str:
        name = self.h.get((p, c))
        if name is None:
            name = self.h[(p, c)] = f"h{len(self.h)}"
        return name

    def free(self) -> str:
        self.f += 1
        return f"f{self.f - 1}"

    def declarations(self) -> str:
        names = list(self.y.values()) + list(self.h.values()) + [f"f{i}" for i in range(self.f)]
        return "".join(f"(declare-const {n} Real)\n" for n in names)


class StructureView:
    """Concrete structural inputs of a layer function at a position: own rows and
    pooled (leftmost, rightmost or averaged) rows of the argmax sets."""

    def __init__(self, transformer: Transformer, rows: Sequence[Sequence[Fraction | int]],
                 structural: Sequence[str], argmax: dict[tuple[int, int], ArgmaxSets]):
        self.transformer = transformer
        self.rows = rows
        self.d = transformer.dimension
        self.structural = frozenset(transformer.coordinates.index(c) for c in structural)
        self.argmax = argmax
        self._aggregate: dict[tuple, Fraction | int] = {}

    # -- structure of arguments ------------------------------------------------
    def _pooled_structural(self, fn: LayerFunction, head: int, p: int, c: int) -> Fraction:
        sets = self.argmax[(fn.number, head)]
        key = (fn.number, head, sets.set_ids[p], c)
        value = self._aggregate.get(key)
        if value is None:
            members = sets.sets[p]
            pooling = fn.layer.heads[head].pooling
            if pooling is Pooling.LEFTMOST:
                value = self.rows[members[0]][c]
            elif pooling is Pooling.RIGHTMOST:
                value = self.rows[members[-1]][c]
            else:
                value = as_exact(Fraction(sum(self.rows[j][c] for j in members), len(members)))
            self._aggregate[key] = value
        return value

    def structural_inputs(self, fn: LayerFunction, p: int, inputs: frozenset[int]) -> dict[int, Fraction | int]:
        """Values of the structural inputs in ``inputs`` at position p."""
        known: dict[int, Fraction | int] = {}
        d = self.d
        for k in inputs:
            owner, c = divmod(k, d)
            if c not in self.structural:
                continue
            known[k] = self.rows[p][c] if owner == 0 else self._pooled_structural(fn, owner - 1, p, c)
        return known


class ObligationDeriver(StructureView):
    """Derives the lemmas for one (circuit, transformer, encoding, schedule)."""

    def __init__(self, circuit: Circuit, transformer: Transformer, rows: Sequence[Sequence[Fraction | int]],
                 schedule: Schedule, structural: Sequence[str], argmax: dict[tuple[int, int], ArgmaxSets]):
        super().__init__(transformer, rows, structural, argmax)
        self.circuit = circuit
        self.claims = schedule.claims
        self.claim_maps = [None if c is None else c.by_coordinate() for c in self.claims]
        self._prefix: dict[tuple[int, tuple[int, ...]], str] = {}
        self._residual: dict[tuple, frozenset[int]] = {}
        self._static: dict[tuple, frozenset[int]] = {}

    # -- claim terms ---------------------------------------------------------
    def _gate_term(self, g: int, names: _Names) -> str:
        gate = self.circuit.gates[g]
        return numeral(gate.value) if gate.kind is Kind.CONST else names.gate(g)  # type: ignore[arg-type]

    def _claim_term(self, term: ClaimTerm, names: _Names) -> str:
        base = self._gate_term(term.gate, names)
        return base if term.power == 1 else f"(* {base} {base})"

    def _value_term(self, j: int, c: int, limit: int, names: _Names) -> str:
        """Position j's coordinate c before a layer: its claim if settled by ``limit``, else havoc."""
        claim = self.claim_maps[j]
        if claim is not None:
            entry = claim.get(c)
            if entry is not None and entry[1] <= limit:
                return self._claim_term(entry[0], names)
        return names.havoc(j, c)

    def _expected(self, term: ClaimTerm, names: _Names) -> str:
        """A claim as the obligation's right-hand side, expanding V(g) one level
        when g's value does not occur among the arguments."""
        g = term.gate
        gate = self.circuit.gates[g]
        if gate.kind is Kind.CONST or g in names.y or gate.kind is Kind.INPUT:
            base = self._gate_term(g, names)
        else:
            args = [self._gate_term(a, names) for a in gate.args]
            if gate.kind is Kind.SIGN:
                base = f"(sgn {args[0]})"
            elif not args:
                base = "0.0"
            elif len(args) == 1:
                base = args[0]
            else:
                base = f"({'+' if gate.kind is Kind.ADD else '*'} {' '.join(args)})"
        return base if term.power == 1 else f"(* {base} {base})"

    def _prefix_for(self, fn: LayerFunction, coords: tuple[int, ...]) -> str:
        key = (fn.number, coords)
        text = self._prefix.get(key)
        if text is None:
            act = fn.layer.activation
            names = activation_input_names(self.transformer.coordinates, [h.name for h in fn.layer.heads])
            params = [smt_symbol(n) for n in names]
            funs = [define_fun(f"out_{smt_symbol(self.transformer.coordinates[c])}", act, c, params) for c in coords]
            text = self._prefix[key] = "\n".join([HEADER, LOGIC, SGN_DEFINITION, *funs]) + "\n"
        return text

    # -- one obligation ------------------------------------------------------------
    def obligation(self, fn: LayerFunction, p: int, layer: int, claim: PositionClaim) -> str:
        """The lemma text for position p under ``fn`` at ``layer`` (the coordinates settled by then)."""
        coords = tuple(sorted(c for c, (_, s) in self.claim_maps[p].items() if s <= layer))  # type: ignore[union-attr]
        act = fn.layer.activation
        d = self.d
        static = self._static.get((fn.number, coords))
        if static is None:
            infos = output_reads(act)
            static = self._static[(fn.number, coords)] = frozenset().union(*(infos[c].inputs for c in coords))
        known = self.structural_inputs(fn, p, static)
        rkey = (fn.number, coords, tuple(sorted(known.items())))
        reads = self._residual.get(rkey)
        if reads is None:
            reads = self._residual[rkey] = partial_evaluate(act, list(coords), known)[1]
        names = _Names()
        limit = layer - 1
        args: list[str] = []
        for k in range(act.n_inputs):
            if k in known:
                args.append(numeral(known[k]))
                continue
            owner, c = divmod(k, d)
            if k not in reads:
                args.append(names.free())
            elif owner == 0:
                args.append(self._value_term(p, c, limit, names))
            else:
                head = owner - 1
                members = self.argmax[(fn.number, head)].sets[p]
                pooling = fn.layer.heads[head].pooling
                if pooling is Pooling.LEFTMOST:
                    args.append(self._value_term(members[0], c, limit, names))
                elif pooling is Pooling.RIGHTMOST:
                    args.append(self._value_term(members[-1], c, limit, names))
                elif len(members) == 1:
                    args.append(self._value_term(members[0], c, limit, names))
                else:
                    terms = " ".join(self._value_term(j, c, limit, names) for j in members)
                    args.append(f"(/ (+ {terms}) {len(members)}.0)")
        claim_map = self.claim_maps[p]
        equations = []
        for c in coords:
            lhs = f"(out_{smt_symbol(self.transformer.coordinates[c])} {' '.join(args)})"
            equations.append(f"(= {lhs} {self._expected(claim_map[c][0], names)})")  # type: ignore[index]
        body = equations[0] if len(equations) == 1 else f"(and {' '.join(equations)})"
        return (self._prefix_for(fn, coords) + names.declarations()
                + f"(assert (not {body}))\n(check-sat)\n")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
