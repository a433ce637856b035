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

import bisect
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from ..circuits.evaluate import as_exact
from ..circuits.ir import Circuit, Kind
from ..circuits.smtlib import LOGIC, SGN_DEFINITION, define_fun, numeral, smt_symbol
from ..constructions.claims import PositionClaim, Schedule
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
        key = (fn.number, head, int(sets.set_ids[p]), c)
        value = self._aggregate.get(key)
        if value is None:
            members = sets.sets[p]
            pooling = fn.layer.heads[head].pooling
            if pooling is Pooling.LEFTMOST:
                value = self.rows[members[0]][c]
            elif pooling is Pooling.RIGHTMOST:
                value = self.rows[members[-1]][c]
            else:
                value = structural_mean(self.rows, members, c)
            self._aggregate[key] = value
        return value

    def structural_inputs(self, fn: LayerFunction, p: int, inputs) -> dict[int, Fraction | int]:  # type: ignore[no-untyped-def]
        """Values of the structural inputs among ``inputs`` at position p (in the order of ``inputs``)."""
        known: dict[int, Fraction | int] = {}
        d = self.d
        row = self.rows[p]
        for k in inputs:
            owner, c = divmod(k, d)
            if c not in self.structural:
                continue
            known[k] = row[c] if owner == 0 else self._pooled_structural(fn, owner - 1, p, c)
        return known


class ObligationDeriver(StructureView):
    """Derives the lemmas for one (circuit, transformer, encoding, schedule)."""

    def __init__(self, circuit: Circuit, transformer: Transformer, rows: Sequence[Sequence[Fraction | int]],
                 schedule: Schedule, structural: Sequence[str], argmax: dict[tuple[int, int], ArgmaxSets]):
        super().__init__(transformer, rows, structural, argmax)
        self.circuit = circuit
        self.schedule, self.claims = schedule, schedule.claims  # claims made when asked (constructions/claims.py)
        self._settles: list[tuple] = schedule.settle_layers()
        self._numerals: dict[int, str] = {}
        self._prefix: dict[tuple[int, tuple[int, ...]], str] = {}
        self._templates: dict[tuple, tuple] = {}
        self._template_of: list[tuple[LayerFunction, tuple[int, ...]]] = []
        self._slots_of: list[list[tuple]] = []
        self._static: dict[tuple, tuple] = {}

    def settle_pattern(self, p: int) -> tuple:
        """(settle layer, coordinate) pairs of p's claims; one shared tuple per distinct claim."""
        return self._settles[p]

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
    def obligation(self, fn: LayerFunction, p: int, layer: int, claim: PositionClaim | None = None) -> str:
        """The lemma text for position p under ``fn`` at ``layer`` (the coordinates settled by then)."""
        return self.render(self.shape(fn, p, layer))

    def plan(self, fn: LayerFunction, p: int, layer: int) -> tuple:
        """Per function, p's shared settle pattern and layer: the claimed coordinates and the structural
        inputs they read, each as (input, owner, coordinate)."""
        pattern = self._settles[p]
        plan = self._static.get((fn.number, id(pattern), layer))
        if plan is None:
            coords = tuple([c for s, c in pattern if s <= layer])
            infos = output_reads(fn.layer.activation)
            wanted = frozenset().union(*(infos[c].inputs for c in coords))
            static = tuple((k, *divmod(k, self.d)) for k in sorted(wanted) if k % self.d in self.structural)
            plan = self._static[(fn.number, id(pattern), layer)] = (coords, static, pattern)  # keeps the id alive
        return plan

    def template_slots(self, template: int) -> list[tuple]:
        """The argument slots of template number ``template`` (a shape's first field)."""
        return self._slots_of[template]

    # long because it runs once per position and layer function, so the naming helpers are closures over
    # its local tables, written inline rather than as methods (fewer calls and attribute lookups).
    def shape(self, fn: LayerFunction, p: int, layer: int) -> tuple:
        """Everything the lemma text depends on, as a hashable key: the template (function, claimed
        coordinates, known structure) and the argument and claim tokens with canonical names.
        Equal keys give equal texts, so a text is rendered once per shape."""
        pattern = self._settles[p]
        plan = self._static.get((fn.number, id(pattern), layer)) or self.plan(fn, p, layer)
        coords, static = plan[0], plan[1]
        row, pooled = self.rows[p], self._pooled_structural
        values = tuple([row[c] if owner == 0 else pooled(fn, owner - 1, p, c) for _, owner, c in static])
        tkey = (fn.number, coords, values)
        template = self._templates.get(tkey)
        if template is None:
            known = {k: v for (k, _, _), v in zip(static, values)}
            template = self._templates[tkey] = self._template(fn, coords, known)
        # Canonical names by first occurrence, inlined (this loop runs once per position and layer
        # function): y for gate values, h for havoc values; constants are numerals.
        ys: dict[int, str] = {}
        hs: dict[tuple[int, int], str] = {}
        gates, const_text, claims, limit = self.circuit.gates, self._numerals, self.claims, layer - 1

        def gate_value(g: int) -> str:
            name = ys.get(g)
            if name is None:
                text = const_text.get(g)
                if text is not None:
                    return text
                if gates[g].kind is Kind.CONST:
                    const_text[g] = text = numeral(gates[g].value)  # type: ignore[arg-type]
                    return text
                name = ys[g] = f"y{len(ys)}"
            return name

        def value_at(j: int, c: int) -> str:
            claim = claims[j]
            entry = claim.pattern.by_coordinate.get(c) if claim is not None else None
            if entry is not None and entry[2] <= limit:
                v = gate_value(claim.source if entry[0] else claim.gate)  # type: ignore[union-attr,arg-type]
                return v if entry[1] == 1 else f"(* {v} {v})"
            name = hs.get((j, c))
            if name is None:
                name = hs[(j, c)] = f"h{len(hs)}"
            return name

        argmax = self.argmax
        args: list[str] = []
        for slot in template[1]:
            tag = slot[0]
            if tag == "lit":
                args.append(slot[1])
            elif tag == "own":
                args.append(value_at(p, slot[1]))
            else:
                _, head, c, pooling = slot
                members = argmax[(fn.number, head)].sets[p]
                if pooling is Pooling.LEFTMOST:
                    args.append(value_at(members[0], c))
                elif pooling is Pooling.RIGHTMOST or len(members) == 1:
                    args.append(value_at(members[-1], c))
                else:
                    args.append(f"(/ (+ {' '.join([value_at(j, c) for j in members])}) {len(members)}.0)")
        own = claims[p]
        by_coordinate = own.pattern.by_coordinate  # type: ignore[union-attr]
        expected = []
        for c in coords:
            names_source, power, _ = by_coordinate[c]
            g = own.source if names_source else own.gate  # type: ignore[union-attr]
            gate = gates[g]  # type: ignore[index]
            if g in ys or gate.kind is Kind.CONST or gate.kind is Kind.INPUT:
                rhs = gate_value(g)
            else:
                parts = [gate_value(a) for a in gate.args]
                if gate.kind is Kind.SIGN:
                    rhs = f"(sgn {parts[0]})"
                elif not parts:
                    rhs = "0.0"
                elif len(parts) == 1:
                    rhs = parts[0]
                else:
                    rhs = f"({'+' if gate.kind is Kind.ADD else '*'} {' '.join(parts)})"
            expected.append(rhs if power == 1 else f"(* {rhs} {rhs})")
        return template[0], tuple(args), tuple(expected), len(ys), len(hs), template[2]

    def render(self, shape: tuple) -> str:
        tid, args, expected, n_y, n_h, n_free = shape
        fn, coords = self._template_of[tid]
        joined = " ".join(args)
        equations = [f"(= (out_{smt_symbol(self.transformer.coordinates[c])} {joined}) {rhs})"
                     for c, rhs in zip(coords, expected)]
        body = equations[0] if len(equations) == 1 else f"(and {' '.join(equations)})"
        names = [f"y{i}" for i in range(n_y)] + [f"h{i}" for i in range(n_h)] + [f"f{i}" for i in range(n_free)]
        return (self._prefix_for(fn, coords) + "".join(f"(declare-const {n} Real)\n" for n in names)
                + f"(assert (not {body}))\n(check-sat)\n")

    def _template(self, fn: LayerFunction, coords: tuple[int, ...], known: dict[int, Fraction | int]) -> tuple:
        """Per activation input: a literal (a numeral for known structure, or a free variable for an
        input the residual computation cannot read), the own value, or a pooled value."""
        act = fn.layer.activation
        reads = partial_evaluate(act, list(coords), known)[1]
        slots: list[tuple] = []
        free = 0
        for k in range(act.n_inputs):
            owner, c = divmod(k, self.d)
            if k in known:
                slots.append(("lit", numeral(known[k])))
            elif k not in reads:
                slots.append(("lit", f"f{free}"))
                free += 1
            elif owner == 0:
                slots.append(("own", c))
            else:
                slots.append(("pool", owner - 1, c, fn.layer.heads[owner - 1].pooling))
        self._template_of.append((fn, coords))
        self._slots_of.append(slots)
        return len(self._template_of) - 1, slots, free


def structural_mean(rows: Sequence[Sequence[Fraction | int]], members: Sequence[int], c: int) -> Fraction | int:
    """The average pooling of coordinate c over ``members``, exact (an int where integral)."""
    return as_exact(Fraction(sum(rows[j][c] for j in members), len(members)))


def kind_names(role_kind: str, gate_kind: Kind | None) -> tuple[str, str]:
    """The obligation kinds of a position (its role kind; its gate's kind at a gate position): at a settle
    layer (local-step) and at any other check layer (frame)."""
    local = f"local-step:{gate_kind.value}" if role_kind == "gate" else f"local-step:{role_kind}"  # type: ignore[union-attr]
    return local, f"frame:{role_kind}"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def check_layers(layers: tuple[int, ...], settles: frozenset[int] | set[int]) -> list[int]:
    """For each settle layer s, the first of ``layers`` (sorted) that is ≥ s."""
    found = set()
    for s in settles:
        i = bisect.bisect_left(layers, s)
        if i < len(layers):
            found.add(layers[i])
    return sorted(found)
