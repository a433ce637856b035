"""Schematic lemmas: one set of SMT-LIB lemmas that covers *every* circuit of depth ≤ K (docs/soundness.md P2, P5–P7),
on position *templates* (symbolic ids, fan-ins and values, :class:`Sym`; the document's rows on them, ``row_of``),
rendered from the actual score and activation circuits: attention (P6), step and frame (P7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .data import Bilinear, Layer, NotChecked
from .formula import ARITHMETIC, Node, fit
from .layouts import Construction
from .smt import LOGIC, SGN, bilinear_term, numeral, term

HEADER = "; verified-aat schematic lemma v1"
MAX_TEXT = 100_000  # characters of a symbolic value's SMT-LIB text


class Sym:
    """A symbolic number, as SMT-LIB text (a template's id, fan-in, slot or constant)."""

    __slots__ = ("text", "low")

    def __init__(self, text: str, low: Any = None):
        if len(text) > MAX_TEXT:  # min/max write their operands twice: 24 nested mins took 115 s (red team 7)
            raise NotChecked(f"a construction document's formula is past {MAX_TEXT:,} characters as SMT-LIB text")
        self.text = text
        self.low = low  # a number the symbol is known to be ≥ (the lemma states it as a hypothesis), or None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sym) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def smt(value: Any) -> str:
    return value.text if isinstance(value, Sym) else numeral(value)


def _apply(op: str, a: Any, b: Any = None) -> Any:
    """One operation, exact when both sides are numbers (*not checked* past MAX_BITS), else SMT-LIB text."""
    if not isinstance(a, Sym) and not isinstance(b, Sym):
        return -a if op == "neg" else fit(ARITHMETIC[op](a, b))
    if op == "neg":
        return Sym(f"(- {smt(a)})")
    if op in ("min", "max"):  # decided where a symbol's lower bound is at least the number: min(k, 1) = 1 for k ≥ 1
        for sym, number in ((a, b), (b, a)):
            if isinstance(sym, Sym) and sym.low is not None and not isinstance(number, Sym) and sym.low >= number:
                return number if op == "min" else sym
        test = "<=" if op == "min" else ">="
        return Sym(f"(ite ({test} {smt(a)} {smt(b)}) {smt(a)} {smt(b)})")
    return Sym(f"({op} {smt(a)} {smt(b)})")


def evaluate(node: Node, env: Mapping[str, Any]) -> Any:
    """The formula's value: an exact number, or a :class:`Sym` when a parameter is symbolic."""
    tag = node[0]
    if tag == "num":
        return node[1]
    if tag == "name":
        return env[node[1]]
    return _apply(tag, *[evaluate(a, env) for a in node[1:]])  # numbers come back exact (fit), or a Sym


def names(node: Node) -> set[str]:
    if node[0] == "num":
        return set()
    if node[0] == "name":
        return {node[1]}
    return set().union(*(names(a) for a in node[1:]))


def row_of(construction: Construction, role: str, kind: str, params: Mapping[str, Any]) -> list[Any]:
    """The row of a position of ``role`` whose (source) gate has ``kind``: numbers, or Sym terms."""
    group = construction.group(role)
    assert group is not None
    return [evaluate(f, params) for f in dict(group.rows)[kind]]


@dataclass(frozen=True)
class Shape:
    """A gate shape: kind and fan-in (None: symbolic k ≥ 1, folded into the op code)."""

    op: str
    fan_in: int | None

    @property
    def name(self) -> str:
        return f"{self.op}{'k' if self.fan_in is None else self.fan_in if self.op == 'add' else ''}"


@dataclass(frozen=True, eq=False)
class Scheme:
    """What the kernel reads off a gate-and-edge construction document for the schematic proof
    (``schematic_scheme.py``): its gate shapes, class, phases and value coordinates."""

    construction: Construction
    shapes: tuple[Shape, ...]        # every gate falls in exactly one shape
    circuit_class: str
    values: tuple[str, ...]          # value coordinates: val (gates: V(g); edges u → v: V(u)) and maybe sq (V(u)²)
    names: tuple[str, ...]           # the coordinates, the value ones named val and sq (``schematic_scheme``)
    phases: tuple[str, ...] = ("fetch", "gather")
    slots: tuple[int | str, ...] | None = None  # an edge's slot classes (fan-in ≤ 2: 0, 1; unbounded: 0, 1, ABOVE);
    # None: one symbolic slot
    extra_layers: int = 0                     # T_K has 2K layers, none beside them

    def edge_slots(self) -> tuple[int | str | None, ...]:
        """The slots to enumerate for an edge of unknown slot (None: one symbolic slot)."""
        return self.slots if self.slots is not None else (None,)


FSAC_SHAPES = (Shape("input", 0), Shape("const", 0), Shape("add", 0), Shape("add", None), Shape("mul", 2),
               Shape("sign", 1))
FNC_SHAPES = (Shape("input", 0), Shape("const", 0), Shape("add", 0), Shape("add", 1), Shape("add", 2),
              Shape("mul", 2), Shape("sign", 1))
SETS = ("in-edges", "slot-0", "slot-1")  # a head's intended set: all in-edges; the slot-0 one; the slot-1 one
ABOVE = "≥2"  # the slot class of every slot from 2 on (a symbolic slot s ≥ 2), beside slots 0 and 1


class Lemma:
    """One lemma under construction: declarations, hypotheses, the goal."""

    def __init__(self, name: str):
        self.name = name
        self.names: list[str] = []
        self.hyps: list[str] = []
        self.goals: list[str] = []
        self.ids: list[str] = []
        self.meaning: dict[str, tuple[str, str] | None] = {}

    def var(self, name: str, is_id: bool = False, of: tuple[str, str] | None = None) -> str:
        """A declared constant; ``of`` = (position, coordinate) for a coordinate's value.  One name never stands
        for two things (a document's coordinate named like a parameter, e.g. u): that is *not checked*."""
        if self.meaning.setdefault(name, of) != of:
            raise NotChecked(f"the lemma variable {name} would stand for two things: rename the coordinate")
        if name not in self.names:
            self.names.append(name)
            if is_id:
                self.ids.append(name)
                self.hyps.append(f"(>= {name} 0.0)")
        return name

    def use_in(self, derivation: Any, kind: str) -> None:
        """Add the lemma to ``derivation`` as ``kind``, unless it has no goal left: every goal it had is one the
        read-out does not need (P9), so it claims nothing."""
        if self.goals:
            derivation.use(self.text(), kind, where=self.name)

    def text(self) -> str:
        gaps = [f"(or (= {p} {q}) (>= (- {p} {q}) 1.0) (>= (- {q} {p}) 1.0))"
                for n, p in enumerate(self.ids) for q in self.ids[n + 1:]]
        lines = [HEADER, f"; {self.name}", LOGIC, SGN]
        lines += [f"(declare-const {n} Real)" for n in self.names]
        lines += [f"(assert {h})" for h in self.hyps + gaps]
        goal = self.goals[0] if len(self.goals) == 1 else f"(and {' '.join(self.goals)})"
        lines += [f"(assert (not {goal}))", "(check-sat)"]
        return "\n".join(lines) + "\n"


class Rows:
    """Rows of symbolic positions: the document's own row formulas on symbolic ids, fan-ins and slots (P2); value
    coordinates given or fresh (both inductions: ``Templates`` here, ``schematic_edges.EdgeTemplates``)."""

    def __init__(self, scheme: Any):
        self.scheme = scheme
        self.construction: Construction = scheme.construction
        self.coordinates = scheme.names
        self.values: tuple[str, ...] = scheme.values

    def _values(self, lemma: Lemma, row: list[str], p: str, values: dict[str, str]) -> list[str]:
        for c in self.values:
            row[self.coordinates.index(c)] = values.get(c) or lemma.var(f"{p}_{c}", of=(p, c))
        return row

    def havoc(self, lemma: Lemma, p: str) -> list[str]:
        return [lemma.var(f"{p}_{c}", of=(p, c)) for c in self.coordinates]


class Templates(Rows):
    """The gate layout's gate and edge positions."""

    def gate(self, lemma: Lemma, shape: Shape, p: str, values: dict[str, str] | None = None,
             gid: str | None = None) -> list[str]:
        """Gate position ``p`` of ``shape``; value coordinates from ``values`` or fresh variables."""
        g = gid or lemma.var(f"{p}_g", is_id=True)
        const = Sym(lemma.var(f"{p}_c")) if shape.op == "const" else 0
        k: int | Sym = shape.fan_in if shape.fan_in is not None else Sym(lemma.var(f"{p}_k"), low=1)
        if shape.fan_in is None:
            lemma.hyps.append(f"(>= {p}_k 1.0)")
        index = Sym(f"{p}_index") if shape.op == "input" else 0
        row = [smt(v) for v in row_of(self.construction, "gate", shape.op, {"id": Sym(g), "k": k, "c": const,
                                                                           "index": index})]
        if shape.op == "input" and any(f"{p}_index" in x for x in row):
            lemma.var(f"{p}_index", is_id=True)
        return self._values(lemma, row, p, values or {})

    def edge(self, lemma: Lemma, p: str, target: str | None = None, source: str | None = None,
             values: dict[str, str] | None = None, slot: int | str | Sym | None = None) -> list[str]:
        """Edge position ``p``: source u < target v (symbolic unless given), argument slot ``slot``
        (None: a symbolic slot ≥ 0, declared only if the row reads it).  The edge rows of this family
        do not depend on the source's kind (``schematic_scheme.py``): the add row serves."""
        u = source or lemma.var(f"{p}_u", is_id=True)
        v = target or lemma.var(f"{p}_v", is_id=True)
        lemma.hyps.append(f"(>= (- {v} {u}) 1.0)")
        s = f"{p}_slot"
        if slot == ABOVE:  # a symbolic slot from 2 on
            slot = Sym(lemma.var(s, is_id=True), low=2)
            lemma.hyps.append(f"(>= {s} 2.0)")
        params = {"src": Sym(u), "dst": Sym(v), "slot": Sym(s) if slot is None else slot, "k": 0, "c": 0}
        row = [smt(x) for x in row_of(self.construction, "edge", "add", params)]
        if slot is None and any(s in x for x in row):
            lemma.var(s, is_id=True)
        return self._values(lemma, row, p, values or {})

    def structural(self) -> list[int]:
        return [k for k, c in enumerate(self.coordinates) if c not in self.values]


def score(head: Any, i_row: Sequence[str], j_row: Sequence[str]) -> str:
    if isinstance(head.score, Bilinear):
        return bilinear_term(head.score.entries, i_row, j_row)
    return term(head.score, 0, list(i_row) + list(j_row))


def output(layer: Layer, c: int, focus: Sequence[str], pooled: Sequence[Sequence[str]]) -> str:
    return term(layer.activation, c, list(focus) + [x for row in pooled for x in row])


def claimed(intended: str, shape: Shape) -> bool:
    """Whether a head claims an argmax set at a reader of ``shape`` (slot-1: fan-in exactly 2)."""
    return shape.fan_in != 0 and (intended != "slot-1" or shape.fan_in == 2)


def members(intended: str, edges: list[list[str]]) -> list[list[str]] | None:
    """The intended set among a gate's in-edges in slot order (None: not claimed, the pooled vector is free)."""
    if intended == "in-edges":
        return edges
    if intended == "slot-0":
        return [edges[0]] if edges else []
    return edges[1:] if len(edges) == 2 else None


def pooled_over(pooling: str, members: Sequence[Sequence[str]]) -> list[str]:
    """The pooled row over a concrete multiset of member rows, by the head's rule (S7)."""
    if pooling == "rightmost":
        return list(members[-1])
    if pooling == "leftmost" or len(members) == 1:
        return list(members[0])
    return [f"(/ (+ {' '.join(col)}) {len(members)}.0)" for col in zip(*members)]


def pooled_in_edges(T: Any, lemma: Lemma, heads: Sequence[Any], sets: dict[str, str],
                    edges: list[list[str]]) -> list[list[str]]:
    """Each head's pooled row over its intended set among a reader's in-edges (a free row where it claims none)."""
    chosen = [members(sets.get(head.name, "in-edges"), edges) for head in heads]
    return [T.havoc(lemma, f"p{n}") if m is None else pooled_over(head.pooling, m)
            for n, (head, m) in enumerate(zip(heads, chosen))]


def last_slot(head: Any, intended: str) -> int | Sym:
    """The slot of the one in-edge a head pools at an add of symbolic fan-in i_k: the last, k − 1, for the rightmost
    of all in-edges; else the first (leftmost of all, or the slot-0 set)."""
    return Sym("(- i_k 1.0)", low=0) if head.pooling == "rightmost" and intended == "in-edges" else 0


def settled(y: str) -> dict[str, str]:
    """The values a settled edge out of a gate of value y carries (sq where the layout has one: ``Rows._values``)."""
    return {"val": y, "sq": f"(* {y} {y})"}


def symbolic_add(T: Rows, lemma: Lemma, heads: Sequence[Any], sets: dict[str, str], probes: tuple[list[str], list[str]],
                 in_edge: Callable[[str, str, int | Sym], list[str]]) -> tuple[str, list[list[str]]]:
    """P7 at an add of symbolic fan-in k ≥ 1 (``i_k``), both inductions: its sum S and each head's pooled row. An
    average over all k in-edges pools their mean m (m_val of the values, m_sq of the squares: uninterpreted sums,
    S = k·m_val); a structural coordinate the same at the two ``probes`` (in-edges) pools to itself, one that depends
    on the edge to a free variable. A head that pools one in-edge pools ``in_edge(p, y, slot)`` (its value y free) at
    slot 0, or k − 1 for the rightmost of all; a slot-1 set claims nothing (k may be 1)."""
    averaged = [h.pooling == "average" and sets.get(h.name, "in-edges") == "in-edges" for h in heads]
    total = "(* i_k m_val)" if any(averaged) else lemma.var("S")
    first, second = probes
    pooled = []
    for h, head in enumerate(heads):
        intended = sets.get(head.name, "in-edges")
        if intended == "slot-1":
            pooled.append(T.havoc(lemma, f"p{h}"))
        elif head.pooling != "average" or intended != "in-edges":
            pooled.append(in_edge(f"e{h}", lemma.var(f"y{h}"), last_slot(head, intended)))
        else:
            pooled.append([lemma.var(f"m_{name}", of=("m", name)) if name in T.values
                           else first[c] if first[c] == second[c] else lemma.var(f"m{h}_{name}", of=(f"m{h}", name))
                           for c, name in enumerate(T.coordinates)])
    return total, pooled


def gate_value(op: str, ys: Sequence[str]) -> str:
    """C_g from its operand values ``ys`` (fixed fan-in ≥ 1): add, mul or sign."""
    return {"add": ys[0] if len(ys) == 1 else f"(+ {' '.join(ys)})", "mul": f"(* {' '.join(ys)})",
            "sign": f"(sgn {ys[0]})"}[op]
