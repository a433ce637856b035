"""The schematic lemma set of a transformer (docs/soundness.md, P4–P6), rendered from its own circuits.

Layers alternate *fetch* (edges read their source gate) and *gather* (gates read their in-edges).
For each distinct layer function of each phase the kernel renders attention, step and frame
lemmas over position templates (``schematic_lemmas.py``); identical texts are one lemma.
"""

from __future__ import annotations

from typing import Callable

from .obligations import Derivation, Function
from .schematic_lemmas import Lemma, Scheme, Shape, Templates, output, pooled_over, score

EDGE = None  # the edge template in lists of shapes


def _emit(derivation: Derivation, kind: str) -> Callable[[Lemma], None]:
    def use(lemma: Lemma) -> None:
        derivation.use(lemma.text(), kind, where=lemma.name)
    return use


def _label(shape: Shape | None) -> str:
    return "edge" if shape is None else shape.name


def derive(scheme: Scheme, phase_functions: dict[str, list[Function]]) -> Derivation:
    """Every lemma for the given layer functions of each phase."""
    derivation = Derivation()
    for fn in phase_functions.get("fetch", []):
        _fetch(scheme, fn, derivation)
        _frame(scheme, fn, "fetch", derivation)
    for fn in phase_functions.get("gather", []):
        _gather(scheme, fn, derivation)
        _frame(scheme, fn, "gather", derivation)
    return derivation


def _frame(scheme: Scheme, fn: Function, phase: str, derivation: Derivation) -> None:
    """P6: structural outputs equal the inputs, for any values and any pooled vectors."""
    T = Templates(scheme)
    use = _emit(derivation, "schematic:frame")
    for shape in scheme.shapes + (EDGE,):
        lemma = Lemma(f"function {fn.number} ({phase}) frame at a {_label(shape)} position")
        i = T.edge(lemma, "i") if shape is None else T.gate(lemma, shape, "i")
        pooled = [T.havoc(lemma, f"p{h}") for h in range(len(fn.layer.heads))]
        lemma.goals += [f"(= {output(fn.layer, c, i, pooled)} {i[c]})" for c in T.structural()]
        use(lemma)


def _fetch(scheme: Scheme, fn: Function, derivation: Derivation) -> None:
    T = Templates(scheme)
    val, has_sq = T.coordinates.index("val"), "sq" in T.values
    attention = _emit(derivation, "schematic:attention")
    step = _emit(derivation, "schematic:step")
    for head in fn.layer.heads:
        for source in scheme.shapes:
            for other in scheme.shapes + (EDGE,):
                lemma = Lemma(f"function {fn.number} (fetch) head {head.name}: an edge out of a {source.name} gate "
                              f"scores its source above every other {_label(other)} position")
                i = T.edge(lemma, "i")
                t = T.gate(lemma, source, "t", gid="i_u")
                if other is None:
                    j = T.edge(lemma, "j")
                else:
                    j = T.gate(lemma, other, "j")
                    lemma.hyps.append("(not (= j_g i_u))")
                lemma.goals.append(f"(< {score(head, i, j)} {score(head, i, t)})")
                attention(lemma)
    for source in scheme.shapes:
        lemma = Lemma(f"function {fn.number} (fetch) step: an edge out of a {source.name} gate copies its value")
        y = lemma.var("y")
        i = T.edge(lemma, "i")
        t = T.gate(lemma, source, "t", values={"val": y}, gid="i_u")
        pooled = [pooled_over(head.pooling, [t]) for head in fn.layer.heads]
        lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} {y})")
        if has_sq:
            lemma.goals.append(f"(= {output(fn.layer, T.coordinates.index('sq'), i, pooled)} (* {y} {y}))")
        step(lemma)
    for shape in scheme.shapes:
        step(_keep(T, fn, "fetch", shape))


def _keep(T: Templates, fn: Function, phase: str, shape: Shape | None) -> Lemma:
    """A position keeps its value coordinates whatever its heads pool."""
    lemma = Lemma(f"function {fn.number} ({phase}) step: a {_label(shape)} position keeps its values")
    kept = {c: lemma.var(f"y_{c}") for c in (T.values if shape is None else ("val",))}
    i = T.edge(lemma, "i", values=kept) if shape is None else T.gate(lemma, shape, "i", values=kept)
    pooled = [T.havoc(lemma, f"p{h}") for h in range(len(fn.layer.heads))]
    lemma.goals += [f"(= {output(fn.layer, T.coordinates.index(c), i, pooled)} {y})" for c, y in kept.items()]
    return lemma


def _gather(scheme: Scheme, fn: Function, derivation: Derivation) -> None:
    T = Templates(scheme)
    attention = _emit(derivation, "schematic:attention")
    step = _emit(derivation, "schematic:step")
    readers = [s for s in scheme.shapes if s.fan_in != 0]
    for head in fn.layer.heads:
        for shape in readers:
            for other in ("self", "in-edge", "edge") + scheme.shapes:
                label = other if isinstance(other, str) else f"{other.name} gate"
                lemma = Lemma(f"function {fn.number} (gather) head {head.name}: a {shape.name} gate scores its "
                              f"in-edges {'alike' if other == 'in-edge' else 'above every other ' + label}")
                i = T.gate(lemma, shape, "i")
                e = T.edge(lemma, "e", target="i_g")
                if other == "self":
                    j = i
                elif other == "in-edge":
                    j = T.edge(lemma, "j", target="i_g")
                elif other == "edge":
                    j = T.edge(lemma, "j")
                    lemma.hyps.append("(not (= j_v i_g))")
                else:
                    j = T.gate(lemma, other, "j")  # type: ignore[arg-type]
                    lemma.hyps.append("(not (= j_g i_g))")
                relation = "=" if other == "in-edge" else "<"
                lemma.goals.append(f"({relation} {score(head, i, j)} {score(head, i, e)})")
                attention(lemma)
    step(_keep(T, fn, "gather", EDGE))
    for shape in scheme.shapes:
        step(_compute(T, fn, shape))


def _compute(T: Templates, fn: Function, shape: Shape) -> Lemma:
    """P5: a gate's new value is its operation on its operands' values."""
    if shape.op in ("input", "const"):
        return _keep(T, fn, "gather", shape)
    lemma = Lemma(f"function {fn.number} (gather) step: a {shape.name} gate computes its operation")
    val = T.coordinates.index("val")
    heads = fn.layer.heads
    if shape.fan_in == 0:
        i = T.gate(lemma, shape, "i")
        pooled = [T.havoc(lemma, f"p{h}") for h in range(len(heads))]
        lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} 0.0)")
        return lemma
    if shape.fan_in is None:
        return _symbolic_add(T, fn, lemma)
    ys = [lemma.var(f"y{s}") for s in range(shape.fan_in)]
    i = T.gate(lemma, shape, "i")
    edges = [T.edge(lemma, f"e{s}", target="i_g", values=_settled(T, y), slot=s) for s, y in enumerate(ys)]
    pooled = [pooled_over(head.pooling, edges) for head in heads]
    expected = {"add": ys[0] if len(ys) == 1 else f"(+ {' '.join(ys)})", "mul": f"(* {' '.join(ys)})",
                "sign": f"(sgn {ys[0]})"}[shape.op]
    lemma.goals.append(f"(= {output(fn.layer, val, i, pooled)} {expected})")
    return lemma


def _settled(T: Templates, y: str) -> dict[str, str]:
    """What a settled edge out of a gate of value y carries."""
    return {"val": y, "sq": f"(* {y} {y})"} if "sq" in T.values else {"val": y}


def _symbolic_add(T: Templates, fn: Function, lemma: Lemma) -> Lemma:
    """An add of symbolic fan-in k ≥ 1: its k in-edges carry values summing to S (squares to Q); the mean
    is S/k, written m with k·m = S.  A structural coordinate that is the same at every in-edge pools to
    itself; one that depends on the edge's source pools to a free variable."""
    i = T.gate(lemma, Shape("add", None), "i")
    k, total, squares = "i_k", lemma.var("S"), lemma.var("Q")
    probe = Lemma("probe")
    first, second = T.edge(probe, "a", target="i_g"), T.edge(probe, "b", target="i_g")
    pooled = []
    for h, head in enumerate(fn.layer.heads):
        if head.pooling != "average":  # one in-edge, value unrelated to S: an over-approximation
            y = lemma.var(f"y{h}")
            pooled.append(T.edge(lemma, f"e{h}", target="i_g", values=_settled(T, y)))
            continue
        row = []
        for c, name in enumerate(T.coordinates):
            if name in ("val", "sq"):
                mean = lemma.var(f"m{h}_{name}")
                lemma.hyps.append(f"(= (* {k} {mean}) {total if name == 'val' else squares})")
                row.append(mean)
            elif first[c] == second[c]:
                row.append(first[c])
            else:
                row.append(lemma.var(f"m{h}_{name}"))
        pooled.append(row)
    lemma.goals.append(f"(= {output(fn.layer, T.coordinates.index('val'), i, pooled)} {total})")
    return lemma
