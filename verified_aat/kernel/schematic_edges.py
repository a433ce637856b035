"""Schematic lemmas for the edge-only layouts (``edge-only``, ``edge-k``; docs/soundness.md, "P6–P7 for the edge
layouts"): edges u → v in slot s and sinks g → ⊥, every layer one *step*."""

from __future__ import annotations

from dataclasses import dataclass

from .layouts import Construction
from .derivation import Derivation, Function
from .schematic_lemmas import (Lemma, Rows, Shape, Sym, claimed, gate_value, output, pooled_in_edges, row_of, score,
                               settled, smt, symbolic_add)
from .schematic_relevance import Needs

SLOT_CLASSES = (0, 1, None)  # slot 0, a symbolic slot s ≥ 1, sink


@dataclass(frozen=True, eq=False)
class EdgeScheme:
    """What the kernel reads off an edge-and-sink construction document for the schematic proof."""

    construction: Construction
    shapes: tuple[Shape, ...]
    extra_layers: int                       # T_K has K + extra_layers layers
    circuit_class: str
    values: tuple[str, ...]
    names: tuple[str, ...]                  # the coordinates, the value ones named val and sq
    phases: tuple[str, ...] = ("step",)


def _slot(c: int | None) -> str:
    return {0: "slot-0 edge", 1: "slot-≥1 edge", None: "sink"}[c]


class EdgeTemplates(Rows):
    """The edge layout's edge and sink positions, their rows on the source's shape."""

    def __init__(self, scheme: EdgeScheme):
        super().__init__(scheme)
        sink = self.construction.group("sink")
        self.sink_target = 0 if sink is None else sink.target

    def _row(self, lemma: Lemma, shape: Shape, p: str, u: str, v: str | int, slot: int | Sym | None,
             position_name: str) -> list[str]:
        """The document's row of an edge (slot 0 or a symbolic slot ≥ 1) or sink (slot None) out of u."""
        const = Sym(lemma.var(f"{p}_c")) if shape.op == "const" else 0
        k: int | Sym = shape.fan_in if shape.fan_in is not None else Sym(lemma.var(f"{p}_k"), low=1)
        if shape.fan_in is None:
            lemma.hyps.append(f"(>= {p}_k 1.0)")
        s = f"{position_name}_slot"
        position = slot if isinstance(slot, Sym) else 0 if slot == 0 or slot is None else Sym(s, low=1)
        params = {"src": Sym(u), "dst": Sym(v) if isinstance(v, str) else v, "slot": position, "k": k, "c": const}
        row = [smt(x) for x in row_of(self.construction, "sink" if slot is None else "edge", shape.op, params)]
        if isinstance(position, Sym) and any(s in x for x in row) and s not in lemma.names:
            lemma.var(s, is_id=True)
            lemma.hyps.append(f"(>= {s} 1.0)")
        return row

    def edge(self, lemma: Lemma, p: str, shape: Shape | None, slot: int | Sym | None, target: str | None = None,
             values: dict[str, str] | None = None) -> list[str]:
        """Edge (or sink) ``p`` out of a gate of ``shape`` (None: any shape) into ``target``."""
        u = lemma.var(f"{p}_u", is_id=True)
        if slot is None:
            v: str | int = self.sink_target
        else:
            v = target or lemma.var(f"{p}_v", is_id=True)
            lemma.hyps.append(f"(>= (- {v} {u}) 1.0)")
        if shape is not None:
            row = self._row(lemma, shape, p, u, v, slot, p)
        else:
            rows = [self._row(lemma, s, f"{p}{n}", u, v, slot, p) for n, s in enumerate(self.scheme.shapes)]
            row = list(rows[0])
            varying = [c for c in range(len(row)) if self.coordinates[c] not in self.values
                       and any(r[c] != rows[0][c] for r in rows)]
            for c in varying:
                row[c] = lemma.var(f"{p}_{self.coordinates[c]}", of=(p, self.coordinates[c]))
            if varying:
                cases = [f"(and {' '.join(f'(= {row[c]} {r[c]})' for c in varying)})" for r in rows]
                lemma.hyps.append(f"(or {' '.join(cases)})")
        return self._values(lemma, row, p, values or {})


def derive_edges(scheme: EdgeScheme, functions: list[Function], needs: Needs,
                 chosen: dict[str, str] | None = None, room: int | None = None) -> Derivation:
    """Every lemma, claiming what ``needs`` says the read-out needs (P9); ``chosen`` overrides a head's
    default intended set (a hint: the lemmas prove it)."""
    derivation = Derivation(room=room)
    sets = dict(chosen or {})
    for fn in functions:
        _step_function(scheme, fn, derivation, sets, needs)
    return derivation


def _step_function(scheme: EdgeScheme, fn: Function, derivation: Derivation, sets: dict[str, str],
                   needs: Needs) -> None:
    T = EdgeTemplates(scheme)
    structural = [c for c, name in enumerate(T.coordinates) if name not in T.values and needs.claims(fn, c)]
    for head in (h for n, h in enumerate(fn.layer.heads) if needs.attends(fn, n)):
        intended = sets.get(head.name, "in-edges")
        for shape in (s for s in scheme.shapes if claimed(intended, s)):
            for slot in SLOT_CLASSES:
                for kind, j_slot in (("in", 0), ("in", 1), ("other", 0), ("other", 1), ("sink", None)):
                    lemma = Lemma(f"function {fn.number} head {head.name} ({intended}): a {_slot(slot)} out of a "
                                  f"{shape.name} gate against a {kind} {_slot(j_slot)}")
                    i = T.edge(lemma, "i", shape, slot)
                    e = T.edge(lemma, "e", None, 1 if intended == "slot-1" else 0, target="i_u")
                    j = T.edge(lemma, "j", None, j_slot, target="i_u" if kind == "in" else None)
                    if kind == "other":
                        lemma.hyps.append("(not (= j_v i_u))")
                    member = kind == "in" and (intended == "in-edges" or j_slot == int(intended == "slot-1"))
                    lemma.goals.append(f"({'=' if member else '<'} {score(head, i, j)} {score(head, i, e)})")
                    lemma.use_in(derivation, "schematic:attention")
    for shape in scheme.shapes:
        for slot in SLOT_CLASSES:
            _step(T, fn, shape, slot, sets, needs).use_in(derivation, "schematic:step")
            lemma = Lemma(f"function {fn.number} frame at a {_slot(slot)} out of a {shape.name} gate")
            i = T.edge(lemma, "i", shape, slot)
            pooled = [T.havoc(lemma, f"p{h}") for h in range(len(fn.layer.heads))]
            lemma.goals += [f"(= {output(fn.layer, c, i, pooled)} {i[c]})" for c in structural]
            lemma.use_in(derivation, "schematic:frame")


def _step(T: EdgeTemplates, fn: Function, shape: Shape, slot: int | None, sets: dict[str, str], needs: Needs
          ) -> Lemma:
    lemma = Lemma(f"function {fn.number} step: a {_slot(slot)} out of a {shape.name} gate")
    val = T.coordinates.index("val")
    sq = T.coordinates.index("sq") if "sq" in T.values else None
    heads = fn.layer.heads
    if shape.op in ("input", "const") or shape.fan_in == 0:
        keep = shape.fan_in != 0 or shape.op != "add"
        y = lemma.var("y") if keep else "0.0"
        i = T.edge(lemma, "i", shape, slot, values={"val": y} if keep else None)
        pooled = [T.havoc(lemma, f"p{h}") for h in range(len(heads))]
    elif shape.fan_in is None:  # symbolic_add, the probes at slots 0 and ≥ 1
        i = T.edge(lemma, "i", shape, slot)
        probe = Lemma("probe")
        y, pooled = symbolic_add(T, lemma, heads, sets, (T.edge(probe, "a", None, 0, target="i_u"),
                                                         T.edge(probe, "b", None, 1, target="i_u")),
                                 lambda p, v, s: T.edge(lemma, p, None, s, target="i_u", values=settled(v)))
    else:
        ys = [lemma.var(f"y{s}") for s in range(shape.fan_in)]
        i = T.edge(lemma, "i", shape, slot)
        edges = [T.edge(lemma, f"e{s}", None, min(s, 1), target="i_u", values=settled(y)) for s, y in enumerate(ys)]
        pooled = pooled_in_edges(T, lemma, heads, sets, edges)
        y = gate_value(shape.op, ys)
    if needs.claims(fn, val):
        lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} {y})")
    if sq is not None and needs.claims(fn, sq):
        lemma.goals.append(f"(= {output(fn.layer, sq, i, pooled)} (* {y} {y}))")
    return lemma
