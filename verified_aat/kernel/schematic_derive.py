"""The schematic lemma set of a transformer (docs/soundness.md P4–P7), rendered from its own circuits: attention,
step and frame lemmas for each distinct layer function of each phase (fetch, gather) over ``schematic_lemmas.py``'s
templates."""

from __future__ import annotations

from .derivation import Derivation, Function
from .schematic_relevance import Needs
from .schematic_lemmas import (ABOVE, Lemma, Scheme, Shape, Templates, claimed, gate_value, output, pooled_in_edges,
                               pooled_over, score, settled, symbolic_add)

EDGE = None  # the edge template in lists of shapes


def _label(shape: Shape | None) -> str:
    return "edge" if shape is None else shape.name


def _slot(slot: int | None) -> str:
    return "" if slot is None else f" (slot {slot})"


def derive(scheme: Scheme, phase_functions: dict[str, list[Function]], needs: Needs,
           chosen: dict[str, str] | None = None, room: int | None = None) -> Derivation:
    """Every lemma for the given layer functions of each phase, claiming what ``needs`` says the read-out
    needs (P9); ``chosen`` overrides a gather head's default intended set (a hint: the lemmas prove it)."""
    derivation = Derivation(room=room)
    sets = dict(chosen or {})
    for fn in phase_functions.get("fetch", []):
        _fetch(scheme, fn, derivation, needs)
        _frame(scheme, fn, "fetch", derivation, needs)
    for fn in phase_functions.get("gather", []):
        _gather(scheme, fn, derivation, sets, needs)
        _frame(scheme, fn, "gather", derivation, needs)
    for fn in phase_functions.get("trailing", []):
        _frame(scheme, fn, "trailing", derivation, needs)
    return derivation


def _frame(scheme: Scheme, fn: Function, phase: str, derivation: Derivation, needs: Needs) -> None:
    """P7: structural outputs equal the inputs, for any values and any pooled vectors; P9: a trailing layer (after
    the 2K) keeps every needed coordinate of every gate's row, whatever its heads pool."""
    T, trailing = Templates(scheme), phase == "trailing"
    focus = [(s, None) for s in scheme.shapes] + [(EDGE, slot) for slot in scheme.edge_slots()] * (not trailing)
    for shape, slot in focus:
        lemma = Lemma(f"function {fn.number} (trailing) keeps a {_label(shape)} gate's row" if trailing else
                      f"function {fn.number} ({phase}) frame at a {_label(shape)} position{_slot(slot)}")
        i = T.edge(lemma, "i", slot=slot) if shape is None else T.gate(lemma, shape, "i")
        pooled = [T.havoc(lemma, f"p{h}") for h in range(len(fn.layer.heads))]
        kept = range(len(T.coordinates)) if trailing else T.structural()
        lemma.goals += [f"(= {output(fn.layer, c, i, pooled)} {i[c]})" for c in kept if needs.claims(fn, c)]
        lemma.use_in(derivation, "schematic:trailing" if trailing else "schematic:frame")


def _fetch(scheme: Scheme, fn: Function, derivation: Derivation, needs: Needs) -> None:
    T = Templates(scheme)
    val, has_sq = T.coordinates.index("val"), "sq" in T.values
    slots = scheme.edge_slots()
    others = [(s, None) for s in scheme.shapes] + [(EDGE, slot) for slot in slots]
    for head in (h for n, h in enumerate(fn.layer.heads) if needs.attends(fn, n)):
        for source in scheme.shapes:
            for slot in slots:
                for other, j_slot in others:
                    lemma = Lemma(f"function {fn.number} (fetch) head {head.name}: an edge{_slot(slot)} out of a "
                                  f"{source.name} gate scores its source above every other {_label(other)} "
                                  f"position{_slot(j_slot)}")
                    i = T.edge(lemma, "i", slot=slot)
                    t = T.gate(lemma, source, "t", gid="i_u")
                    if other is None:
                        j = T.edge(lemma, "j", slot=j_slot)
                    else:
                        j = T.gate(lemma, other, "j")
                        lemma.hyps.append("(not (= j_g i_u))")
                    lemma.goals.append(f"(< {score(head, i, j)} {score(head, i, t)})")
                    lemma.use_in(derivation, "schematic:attention")
    for source in scheme.shapes:
        for slot in slots:
            lemma = Lemma(f"function {fn.number} (fetch) step: an edge{_slot(slot)} out of a {source.name} gate "
                          f"copies its value")
            y = lemma.var("y")
            i = T.edge(lemma, "i", slot=slot)
            t = T.gate(lemma, source, "t", values={"val": y}, gid="i_u")
            pooled = [pooled_over(head.pooling, [t]) for head in fn.layer.heads]
            if needs.claims(fn, val):
                lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} {y})")
            if has_sq and needs.claims(fn, T.coordinates.index("sq")):
                lemma.goals.append(f"(= {output(fn.layer, T.coordinates.index('sq'), i, pooled)} (* {y} {y}))")
            lemma.use_in(derivation, "schematic:step")
    for shape in scheme.shapes:
        _keep(T, fn, "fetch", shape, needs).use_in(derivation, "schematic:step")


def _keep(T: Templates, fn: Function, phase: str, shape: Shape | None, needs: Needs, slot: int | None = None
          ) -> Lemma:
    """A position keeps its (needed) value coordinates whatever its heads pool."""
    lemma = Lemma(f"function {fn.number} ({phase}) step: a {_label(shape)} position{_slot(slot)} keeps its values")
    kept = {c: lemma.var(f"y_{c}", of=("y", c)) for c in (T.values if shape is None else ("val",))
            if needs.claims(fn, T.coordinates.index(c))}
    i = T.edge(lemma, "i", values=kept, slot=slot) if shape is None else T.gate(lemma, shape, "i", values=kept)
    pooled = [T.havoc(lemma, f"p{h}") for h in range(len(fn.layer.heads))]
    lemma.goals += [f"(= {output(fn.layer, T.coordinates.index(c), i, pooled)} {y})" for c, y in kept.items()]
    return lemma


def _gather(scheme: Scheme, fn: Function, derivation: Derivation, sets: dict[str, str], needs: Needs) -> None:
    T = Templates(scheme)
    slots = scheme.edge_slots()
    others = ([("self", None)] + [(kind, slot) for kind in ("in-edge", "edge") for slot in slots]
              + [(s, None) for s in scheme.shapes])
    for head in (h for n, h in enumerate(fn.layer.heads) if needs.attends(fn, n)):
        intended = sets.get(head.name, "in-edges")
        comparator = {"in-edges": slots[0], "slot-0": 0, "slot-1": 1}[intended]
        for shape in (s for s in scheme.shapes if claimed(intended, s)):
            for other, j_slot in others:
                if other == "in-edge" and shape.fan_in is not None and (j_slot == ABOVE or (j_slot or 0) >= shape.fan_in):
                    continue  # a gate of fan-in n has no in-edge at slot n or above
                label = f"{other}{_slot(j_slot)}" if isinstance(other, str) else f"{other.name} gate"
                member = other == "in-edge" and (intended == "in-edges" or j_slot == comparator)
                lemma = Lemma(f"function {fn.number} (gather) head {head.name} ({intended}): a {shape.name} gate "
                              f"scores its intended in-edges {'alike' if member else 'above every other ' + label}")
                i = T.gate(lemma, shape, "i")
                e = T.edge(lemma, "e", target="i_g", slot=comparator)
                if other == "self":
                    j = i
                elif other == "in-edge":
                    j = T.edge(lemma, "j", target="i_g", slot=j_slot)
                elif other == "edge":
                    j = T.edge(lemma, "j", slot=j_slot)
                    lemma.hyps.append("(not (= j_v i_g))")
                else:
                    j = T.gate(lemma, other, "j")  # type: ignore[arg-type]
                    lemma.hyps.append("(not (= j_g i_g))")
                lemma.goals.append(f"({'=' if member else '<'} {score(head, i, j)} {score(head, i, e)})")
                lemma.use_in(derivation, "schematic:attention")
    for slot in slots:
        _keep(T, fn, "gather", EDGE, needs, slot).use_in(derivation, "schematic:step")
    for shape in scheme.shapes:
        if needs.claims(fn, T.coordinates.index("val")):
            _compute(T, fn, shape, sets, needs).use_in(derivation, "schematic:step")


def _compute(T: Templates, fn: Function, shape: Shape, sets: dict[str, str], needs: Needs) -> Lemma:
    """P7: a gate's new value is its operation on its operands' values."""
    if shape.op in ("input", "const"):
        return _keep(T, fn, "gather", shape, needs)
    lemma = Lemma(f"function {fn.number} (gather) step: a {shape.name} gate computes its operation")
    val = T.coordinates.index("val")
    heads = fn.layer.heads
    if shape.fan_in == 0:
        i = T.gate(lemma, shape, "i")
        pooled = [T.havoc(lemma, f"p{h}") for h in range(len(heads))]
        lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} 0.0)")
        return lemma
    if shape.fan_in is None:
        return _symbolic_add(T, fn, lemma, sets)
    ys = [lemma.var(f"y{s}") for s in range(shape.fan_in)]
    i = T.gate(lemma, shape, "i")
    edges = [T.edge(lemma, f"e{s}", target="i_g", values=settled(y), slot=s) for s, y in enumerate(ys)]
    pooled = pooled_in_edges(T, lemma, heads, sets, edges)
    lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} {gate_value(shape.op, ys)})")
    return lemma


def _symbolic_add(T: Templates, fn: Function, lemma: Lemma, sets: dict[str, str]) -> Lemma:
    """An add of symbolic fan-in k ≥ 1 gets its sum S (``symbolic_add``; the probes: two in-edges at symbolic slots)."""
    i = T.gate(lemma, Shape("add", None), "i")
    probe = Lemma("probe")
    total, pooled = symbolic_add(T, lemma, fn.layer.heads, sets, (T.edge(probe, "a", target="i_g"),
                                                                   T.edge(probe, "b", target="i_g")),
                                 lambda p, y, slot: T.edge(lemma, p, target="i_g", values=settled(y), slot=slot))
    lemma.goals.append(f"(= {output(fn.layer, T.coordinates.index('val'), i, pooled)} {total})")
    return lemma
