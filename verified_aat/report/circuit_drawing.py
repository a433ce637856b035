"""The circuit as an inline SVG: Graphviz ``dot`` when it is installed, else our own layered layout.

Gates are filled by kind (hue) and depth (lighter near the inputs, darker near the outputs);
outputs have a double border and the gate of a counterexample's first mismatch a thick red one.
Circuits above :data:`MAX_DRAWN` gates are drawn in part: the gates nearest the outputs
(a backward breadth-first sample), and the page says how many of how many are shown.
The fallback needs nothing but Python and is labelled as such on the page.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from collections import deque
from dataclasses import dataclass

from ..circuits.ir import Circuit, Kind
from ..circuits.measures import gate_depths
from ..circuits.rationals import format_rational_short

MAX_DRAWN = 150
"""Gates drawn at most; larger circuits are sampled."""
MAX_ARGS = 8
"""Arguments of one gate the sample follows at most (a 50,000-operand sum shows 8 and ``+49,992``)."""
MAX_ROWS = 30
"""Gates per column of the pure-Python layout; taller columns wrap into sub-columns (the page stays short)."""
DOT_TIMEOUT = 60
"""Seconds ``dot`` may take before the pure-Python layout is used instead."""
MAX_DOT_SPAN = 2_000
"""Ranks the drawn edges may span in all (:func:`rank_span`, the virtual nodes ``dot`` lays out) for ``dot`` to be
run; past it the pure-Python layout draws the sample and the page says why.  A 1,500-deep chain whose every gate
also reads the input x draws as 150 gates spanning 11,323 ranks: ``dot`` took 21-25 s on it (5,150: 0.5 s;
1,890: 0.09 s), while the samples of c432, c880, FP-add and FP-mul span 86 to 571."""

KIND_HUES = {Kind.INPUT: (0.58, "input"), Kind.CONST: (0.0, "const"), Kind.ADD: (0.33, "add"),
             Kind.MUL: (0.08, "mul"), Kind.SIGN: (0.78, "sign")}


@dataclass(frozen=True)
class Drawing:
    """An SVG (no XML prolog, ready to inline), which layout made it, and which gates it shows."""

    svg: str
    layout: str  # "graphviz dot" or "pure-Python layered layout (Graphviz dot not found)"
    shown: tuple[int, ...]
    total: int


def kind_colour(kind: Kind, depth: int, max_depth: int) -> str:
    """Fill colour: the kind's hue, lightness falling with depth (exact HSL → hex)."""
    import colorsys

    hue, _ = KIND_HUES[kind]
    saturation = 0.0 if kind is Kind.CONST else 0.55
    lightness = 0.88 - 0.38 * (depth / max(1, max_depth))
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def sample_gates(circuit: Circuit, limit: int = MAX_DRAWN) -> tuple[int, ...]:
    """All gates if few, else the ``limit`` gates nearest the outputs (breadth-first over at most
    :data:`MAX_ARGS` arguments per gate, so a wide sum does not fill the whole sample)."""
    if circuit.size <= limit:
        return tuple(range(circuit.size))
    seen: set[int] = set()
    queue = deque(dict.fromkeys(circuit.outputs))
    while queue and len(seen) < limit:
        g = queue.popleft()
        if g in seen:
            continue
        seen.add(g)
        queue.extend([a for a in dict.fromkeys(circuit.gates[g].args) if a not in seen][:MAX_ARGS])
    return tuple(sorted(seen))


def hidden_args(circuit: Circuit, shown: tuple[int, ...]) -> dict[int, int]:
    """Per drawn gate, how many of its (distinct) arguments are not drawn (the page marks them ``+N``)."""
    keep = set(shown)
    counts = {g: sum(a not in keep for a in dict.fromkeys(circuit.gates[g].args)) for g in shown}
    return {g: k for g, k in counts.items() if k}


def _label(circuit: Circuit, g: int, names: list[str] | None = None) -> str:
    gate = circuit.gates[g]
    name = names[g] if names else circuit.gate_name(g)
    if gate.kind is Kind.CONST:
        return f"{name}\n= {format_rational_short(gate.value)}"  # type: ignore[arg-type]
    return f"{name}\n{gate.kind.value}" if gate.kind is not Kind.INPUT else name


def draw_circuit(circuit: Circuit, layout: str = "auto", highlight: int | None = None,
                 names: list[str] | None = None) -> Drawing:
    """The SVG drawing; ``layout`` is ``auto`` (dot if found), ``graphviz`` or ``python``; gates labelled by
    ``names`` (default: the circuit's own)."""
    shown = sample_gates(circuit)
    depths = gate_depths(circuit)
    span = rank_span(circuit, shown)
    if layout in ("auto", "graphviz") and shutil.which("dot") and span > MAX_DOT_SPAN:
        reason = (f"Graphviz dot not run: the drawn edges span {span:,} ranks, past the limit of {MAX_DOT_SPAN:,} "
                  "(circuit_drawing.MAX_DOT_SPAN; dot's time grows fast past it)")
    elif layout in ("auto", "graphviz") and shutil.which("dot"):
        try:
            return Drawing(_graphviz_svg(circuit, shown, depths, highlight, names), "graphviz dot", shown, circuit.size)
        except Exception as exc:  # dot crashed or timed out: fall back, and say so
            reason = f"Graphviz dot failed: {type(exc).__name__}"
    else:
        reason = "Graphviz dot not found" if layout != "python" else "asked for"
    return Drawing(_python_svg(circuit, shown, depths, highlight, names), f"pure-Python layered layout ({reason})",
                   shown, circuit.size)


def rank_span(circuit: Circuit, shown: tuple[int, ...]) -> int:
    """Σ over the drawn edges a → g of rank(g) − rank(a), each gate ranked one past its highest drawn argument (as
    ``dot`` ranks them): the virtual nodes ``dot`` adds to route long edges, on which its time grows fast."""
    keep, rank = set(shown), {}
    for g in shown:  # in increasing order, so arguments first
        rank[g] = 1 + max((rank[a] for a in circuit.gates[g].args if a in keep), default=0)
    return sum(rank[g] - rank[a] for g in shown for a in circuit.gates[g].args if a in keep)


def _graphviz_svg(circuit: Circuit, shown: tuple[int, ...], depths: list[int], highlight: int | None,
                  names: list[str] | None = None) -> str:
    import graphviz

    top = max(depths) if depths else 0
    graph = graphviz.Digraph("circuit", graph_attr={"rankdir": "LR", "bgcolor": "transparent", "nodesep": "0.15",
                                                    "ranksep": "0.35"},
                             node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                        "fontsize": "10", "margin": "0.05,0.02", "height": "0.3"},
                             edge_attr={"arrowsize": "0.5", "color": "#555555"})
    keep = set(shown)
    outputs = set(circuit.outputs)
    for g in shown:
        attrs = {"fillcolor": kind_colour(circuit.gates[g].kind, depths[g], top), "tooltip": f"depth {depths[g]}"}
        if g in outputs:
            attrs["peripheries"] = "2"
        if g == highlight:
            attrs.update(color="#d00000", penwidth="3")
        graph.node(f"g{g}", _label(circuit, g, names), **attrs)
        for a in circuit.gates[g].args:
            if a in keep:
                graph.edge(f"g{a}", f"g{g}")
    for g, k in hidden_args(circuit, shown).items():
        graph.node(f"more{g}", f"+{k:,} not drawn", shape="plaintext", style="", fontsize="9", fontcolor="#555555")
        graph.edge(f"more{g}", f"g{g}", style="dashed")
    # dot itself, with a time limit (graphviz.pipe has none); the graphviz package writes the quoted source
    done = subprocess.run([shutil.which("dot") or "dot", "-Tsvg"], input=graph.source.encode("utf-8"),
                          capture_output=True, timeout=DOT_TIMEOUT, check=True)
    return fit_width(_strip_prolog(done.stdout.decode("utf-8")))


def fit_width(svg: str) -> str:
    """The root ``<svg>`` scaled to the page: ``width="100%"``, height from its ``viewBox``, never wider than
    drawn (its own width becomes ``max-width``), so no drawing needs a horizontal scrollbar."""
    match = re.match(r"<svg\b[^>]*>", svg)
    if match is None or "viewBox" not in match.group(0):
        return svg
    tag = match.group(0)
    width = re.search(r'\swidth="([0-9.]+)(pt|px)?"', tag)
    natural = f"max-width:{width.group(1)}{width.group(2) or 'px'};" if width else ""
    tag = re.sub(r'\s(width|height)="[^"]*"', "", tag)
    tag = tag[:-1] + f' width="100%" style="{natural}height:auto" preserveAspectRatio="xMinYMin meet">'
    return tag + svg[match.end():]


def _strip_prolog(svg: str) -> str:
    """The ``<svg>`` element alone: no XML declaration, no DOCTYPE (whose DTD address the page must not hold)."""
    start = svg.find("<svg")
    return re.sub(r"<!--.*?-->", "", svg[start:], flags=re.S) if start >= 0 else svg


def drawn_columns(circuit: Circuit, shown: tuple[int, ...]) -> dict[int, int]:
    """A column per drawn gate: its longest path from a drawn gate without drawn arguments, then each such
    source moved right next to its first consumer (as ``dot`` ranks them).  A sample's columns are its own
    depth, not the circuit's: 150 gates near the outputs of a depth-40 circuit need a dozen columns, not 40."""
    keep = set(shown)
    column: dict[int, int] = {}
    for g in shown:  # gate order is topological
        args = [column[a] for a in circuit.gates[g].args if a in keep]
        column[g] = 1 + max(args) if args else 0
    consumers: dict[int, list[int]] = {}
    for g in shown:
        for a in circuit.gates[g].args:
            if a in keep:
                consumers.setdefault(a, []).append(column[g])
    for g in shown:
        if column[g] == 0 and g in consumers:
            column[g] = max(0, min(consumers[g]) - 1)
    return column


def _python_svg(circuit: Circuit, shown: tuple[int, ...], depths: list[int], highlight: int | None,
                names: list[str] | None = None) -> str:
    """Columns by depth, rows ordered by the mean row of each gate's drawn arguments (one barycentre pass)."""
    top = max(depths) if depths else 0
    keep = set(shown)
    columns: dict[int, list[int]] = {}
    for g, column in drawn_columns(circuit, shown).items():
        columns.setdefault(column, []).append(g)
    row: dict[int, float] = {}
    for d in sorted(columns):
        gates = columns[d]
        def bary(g: int) -> float:
            args = [row[a] for a in circuit.gates[g].args if a in row]
            return sum(args) / len(args) if args else float(g)
        gates.sort(key=bary)
        for i, g in enumerate(gates):
            row[g] = i % MAX_ROWS
    w, h, dx, dy = 96, 30, 140, 44
    left, x0 = {}, 0  # a column of more than MAX_ROWS gates is wrapped into side-by-side sub-columns
    for d in sorted(columns):
        left[d], x0 = x0, x0 + -(-len(columns[d]) // MAX_ROWS)
    xy = {g: (50 + (left[d] + i // MAX_ROWS) * dx, 20 + (i % MAX_ROWS) * dy)
          for d, gates in columns.items() for i, g in enumerate(gates)}
    width = 70 + max(1, x0) * dx
    height = 40 + min(MAX_ROWS, max((len(c) for c in columns.values()), default=1)) * dy
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" class="fallback-layout" font-family="Helvetica,Arial,sans-serif" '
             f'font-size="10">']
    parts[0] = fit_width(parts[0] + "</svg>")[:-len("</svg>")]
    for g in shown:
        for a in circuit.gates[g].args:
            if a in keep:
                (x1, y1), (x2, y2) = xy[a], xy[g]
                parts.append(f'<line x1="{x1 + w}" y1="{y1 + h / 2}" x2="{x2}" y2="{y2 + h / 2}" stroke="#555" '
                             f'stroke-width="0.8"/>')
    outputs = set(circuit.outputs)
    hidden = hidden_args(circuit, shown)
    for g in shown:
        x, y = xy[g]
        stroke = ' stroke="#d00000" stroke-width="3"' if g == highlight else \
            (' stroke="#000" stroke-width="2"' if g in outputs else ' stroke="#333" stroke-width="0.8"')
        fill = kind_colour(circuit.gates[g].kind, depths[g], top)
        if g in hidden:
            parts.append(f'<text class="more" x="{x - 3}" y="{y + h / 2 + 3}" text-anchor="end" font-size="8" '
                         f'fill="#555">+{hidden[g]:,}</text>')
        parts.append(f'<g class="node" id="g{g}"><title>depth {depths[g]}</title>'
                     f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{fill}"{stroke}/>')
        for k, text in enumerate(_label(circuit, g, names).split("\n")):
            parts.append(f'<text x="{x + w / 2}" y="{y + 12 + 11 * k}" text-anchor="middle">'
                         f'{html.escape(text[:18])}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
