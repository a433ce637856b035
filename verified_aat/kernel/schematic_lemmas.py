"""Schematic lemmas: one set of SMT-LIB lemmas that covers *every* circuit of depth ≤ K.

Positions are *templates* with symbolic structure (docs/soundness.md, P1–P8): a gate of a given
shape (kind and fan-in; an add of symbolic fan-in k ≥ 1 where the layout folds k into its code)
with a symbolic id g, an edge u → v with symbolic ids u < v.  Their structural coordinates are
the kernel's own layout rows (``layouts.py``) evaluated on symbolic ids; value coordinates are
variables.  For every layer function of the transformer the kernel renders, from the *actual*
score and activation circuits:

- attention: for a symbolic focus i and every template j, score(i, j) is below the score at the
  intended member (fetch: the source gate; gather: an in-edge), or equal to it exactly on the
  intended set;
- step: the activation at i, with the pooled vector of the intended set (average: the mean of
  the member templates, S/k over a symbolic number k of in-edges; leftmost/rightmost: the first
  or last in-edge), gives the gate's operation on its operands' values, or keeps a value;
- frame: the structural outputs equal the inputs for every value and every pooled vector.

Ids are integers: the lemmas use only that two ids are equal or differ by at least 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .data import Bilinear, Gate, Layer
from .layouts import LAYOUTS, GateEdgeLayout
from .smt import SGN, bilinear_term, numeral, term

HEADER = "; verified-aat schematic lemma v1"
LOGIC = "(set-logic QF_NRA)"


class Sym:
    """A symbolic number, as SMT-LIB text: lets the layout's row functions run on symbolic ids."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __add__(self, other: Any) -> "Sym":
        return Sym(f"(+ {smt(self)} {smt(other)})")

    def __radd__(self, other: Any) -> "Sym":
        return Sym(f"(+ {smt(other)} {smt(self)})")

    def __mul__(self, other: Any) -> "Sym":
        return Sym(f"(* {smt(self)} {smt(other)})")

    def __rmul__(self, other: Any) -> "Sym":
        return Sym(f"(* {smt(other)} {smt(self)})")


def smt(value: Any) -> str:
    return value.text if isinstance(value, Sym) else numeral(value)


@dataclass(frozen=True)
class Shape:
    """A gate shape: kind and fan-in (None: symbolic k ≥ 1, folded into the op code)."""

    op: str
    fan_in: int | None

    @property
    def name(self) -> str:
        return f"{self.op}{'k' if self.fan_in is None else self.fan_in if self.op == 'add' else ''}"


@dataclass(frozen=True)
class Scheme:
    """What the kernel states about a construction for the schematic proof."""

    layout: str
    shapes: tuple[Shape, ...]        # every gate falls in exactly one shape
    circuit_class: str
    phases: tuple[str, ...] = ("fetch", "gather")
    slots: tuple[int, ...] | None = None      # an edge's possible slots (fan-in ≤ 2: 0, 1); None: a symbolic slot
    head_sets: tuple[tuple[str, str], ...] = ()  # gather head → default intended set (else all in-edges)

    def edge_slots(self) -> tuple[int | None, ...]:
        """The slots to enumerate for an edge of unknown slot (None: one symbolic slot)."""
        return self.slots if self.slots is not None else (None,)

    @property
    def values(self) -> tuple[str, ...]:
        """Value coordinates: val (gates: V(g); edges u → v: V(u)) and, where the layout has it, sq (V(u)²)."""
        return ("val", "sq") if "sq" in LAYOUTS[self.layout].coordinates else ("val",)


_COMMON = (Shape("input", 0), Shape("const", 0), Shape("add", 0))
_FSAC = _COMMON + (Shape("add", None), Shape("mul", 2), Shape("sign", 1))
_FNC = _COMMON + (Shape("add", 1), Shape("add", 2), Shape("mul", 2), Shape("sign", 1))
_ONE_RULE = (("first", "slot-0"), ("second", "slot-1"))  # unique-hard-left/right: one head per argument slot
SCHEMES: dict[str, Scheme] = {
    "gate-edge": Scheme("gate-edge", _FSAC, "FSAC⁰[sign]"),
    "gate-edge-dot": Scheme("gate-edge-dot", _FSAC, "FSAC⁰[sign]"),
    "unique-hard": Scheme("unique-hard", _FNC, "FNC⁰[sign]"),
    "unique-hard-left": Scheme("unique-hard-left", _FNC, "FNC⁰[sign]", slots=(0, 1), head_sets=_ONE_RULE),
    "unique-hard-right": Scheme("unique-hard-right", _FNC, "FNC⁰[sign]", slots=(0, 1), head_sets=_ONE_RULE),
}
SETS = ("in-edges", "slot-0", "slot-1")  # a head's intended set: all in-edges; the slot-0 one; the slot-1 one
SYMBOLIC_CODE_CHECKED = 64  # the layout's add code is checked to be the fan-in for k ≤ this


class Lemma:
    """One lemma under construction: declarations, hypotheses, the goal."""

    def __init__(self, name: str):
        self.name = name
        self.names: list[str] = []
        self.hyps: list[str] = []
        self.goals: list[str] = []
        self.ids: list[str] = []

    def var(self, name: str, is_id: bool = False) -> str:
        if name not in self.names:
            self.names.append(name)
            if is_id:
                self.ids.append(name)
                self.hyps.append(f"(>= {name} 0.0)")
        return name

    def text(self) -> str:
        gaps = [f"(or (= {p} {q}) (>= (- {p} {q}) 1.0) (>= (- {q} {p}) 1.0))"
                for n, p in enumerate(self.ids) for q in self.ids[n + 1:]]
        lines = [HEADER, f"; {self.name}", LOGIC, SGN]
        lines += [f"(declare-const {n} Real)" for n in self.names]
        lines += [f"(assert {h})" for h in self.hyps + gaps]
        goal = self.goals[0] if len(self.goals) == 1 else f"(and {' '.join(self.goals)})"
        lines += [f"(assert (not {goal}))", "(check-sat)"]
        return "\n".join(lines) + "\n"


def add_code_problems(scheme: Scheme) -> list[str]:
    """The layout's op code of an add of fan-in n is n (the symbolic shape's code is its k)."""
    layout = LAYOUTS[scheme.layout]
    assert isinstance(layout, GateEdgeLayout)
    op = layout.coordinates.index("op")
    if any(s.fan_in is None for s in scheme.shapes):
        bad = [n for n in range(SYMBOLIC_CODE_CHECKED + 1) if layout.gate_row(0, Gate("add", (0,) * n))[op] != n]
        if bad:
            return [f"the layout codes an add of fan-in {bad[0]} other than by its fan-in"]
    return []


class Templates:
    """Rows of symbolic positions for one scheme (structural coordinates from the layout)."""

    def __init__(self, scheme: Scheme):
        self.scheme = scheme
        self.layout = LAYOUTS[scheme.layout]
        assert isinstance(self.layout, GateEdgeLayout)
        self.coordinates = self.layout.coordinates
        self.values = scheme.values

    def gate(self, lemma: Lemma, shape: Shape, p: str, values: dict[str, str] | None = None,
             gid: str | None = None) -> list[str]:
        """Gate position ``p`` of ``shape``; value coordinates from ``values`` or fresh variables."""
        g = gid or lemma.var(f"{p}_g", is_id=True)
        n = 1 if shape.fan_in is None else shape.fan_in
        const = Sym(lemma.var(f"{p}_c")) if shape.op == "const" else None
        raw = self.layout.gate_row(Sym(g), Gate(shape.op, (0,) * n, const, 0 if shape.op == "input" else None))
        row = [smt(v) for v in raw]
        if shape.fan_in is None:
            k = lemma.var(f"{p}_k")
            lemma.hyps.append(f"(>= {k} 1.0)")
            row[self.coordinates.index("op")] = k
        return self._values(lemma, row, p, values or {})

    def edge(self, lemma: Lemma, p: str, target: str | None = None, source: str | None = None,
             values: dict[str, str] | None = None, slot: int | None = None) -> list[str]:
        """Edge position ``p``: source u < target v (symbolic unless given), argument slot ``slot``
        (None: a symbolic slot ≥ 0, declared only if the layout's row reads it)."""
        u = source or lemma.var(f"{p}_u", is_id=True)
        v = target or lemma.var(f"{p}_v", is_id=True)
        lemma.hyps.append(f"(>= (- {v} {u}) 1.0)")
        s = f"{p}_slot"
        row = [smt(x) for x in self.layout.edge_row(Sym(u), Sym(v), Sym(s) if slot is None else slot)]
        if slot is None and any(s in x for x in row):
            lemma.var(s, is_id=True)
        return self._values(lemma, row, p, values or {})

    def _values(self, lemma: Lemma, row: list[str], p: str, values: dict[str, str]) -> list[str]:
        for c in self.values:
            row[self.coordinates.index(c)] = values.get(c) or lemma.var(f"{p}_{c}")
        return row

    def havoc(self, lemma: Lemma, p: str) -> list[str]:
        return [lemma.var(f"{p}_{c}") for c in self.coordinates]

    def structural(self) -> list[int]:
        return [k for k, c in enumerate(self.coordinates) if c not in self.values]


def score(head: Any, i_row: Sequence[str], j_row: Sequence[str]) -> str:
    if isinstance(head.score, Bilinear):
        return bilinear_term(head.score.entries, i_row, j_row)
    return term(head.score, 0, list(i_row) + list(j_row))


def output(layer: Layer, c: int, focus: Sequence[str], pooled: Sequence[Sequence[str]]) -> str:
    params = list(focus) + [x for row in pooled for x in row]
    return term(layer.activation, c, params)


def claimed(intended: str, shape: Shape) -> bool:
    """Whether a head claims an argmax set at a reader of ``shape`` (slot-1: fan-in exactly 2)."""
    return shape.fan_in != 0 and (intended != "slot-1" or shape.fan_in == 2)


def members(intended: str, edges: list[list[str]]) -> list[list[str]] | None:
    """The intended set among a gate's in-edges in slot order (None: not claimed, the pooled vector is free)."""
    if intended == "in-edges":
        return edges
    if intended == "slot-0":
        return edges[:1]
    return edges[1:] if len(edges) == 2 else None


def pooled_over(pooling: str, members: Sequence[Sequence[str]]) -> list[str]:
    """The pooled row over a concrete multiset of member rows, by the head's rule (S7)."""
    if pooling == "leftmost":
        return list(members[0])
    if pooling == "rightmost":
        return list(members[-1])
    n = len(members)
    if n == 1:
        return list(members[0])
    return [f"(/ (+ {' '.join(col)}) {n}.0)" for col in zip(*members)]


def pooled_in_edges(T: Any, lemma: Lemma, heads: Sequence[Any], sets: dict[str, str],
                    edges: list[list[str]]) -> list[list[str]]:
    """Each head's pooled row over its intended set among a reader's in-edges (a free row where it claims none)."""
    chosen = [members(sets.get(head.name, "in-edges"), edges) for head in heads]
    return [T.havoc(lemma, f"p{n}") if m is None else pooled_over(head.pooling, m)
            for n, (head, m) in enumerate(zip(heads, chosen))]


def gate_value(op: str, ys: Sequence[str]) -> str:
    """C_g from its operand values ``ys`` (fixed fan-in ≥ 1): add, mul or sign."""
    return {"add": ys[0] if len(ys) == 1 else f"(+ {' '.join(ys)})", "mul": f"(* {' '.join(ys)})",
            "sign": f"(sgn {ys[0]})"}[op]
