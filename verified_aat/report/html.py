"""The report page: one self-contained HTML file (inline CSS, inline SVG, PNG data URIs, MathML).

No script and no external resource, so it opens offline and anywhere.  Every section has an
``id`` (``verdict``, ``counterexample``, ``edits``, ``circuit``, ``layout``, ``attention``,
``obligations``, ``trusted-base``) that tests and readers can find.
"""

from __future__ import annotations

from collections import Counter, defaultdict
import re
from html import escape
from typing import Any

from ..circuits.measures import depth as circuit_depth
from ..circuits.rationals import format_rational_short
from .circuit_drawing import KIND_HUES, MAX_ARGS, draw_circuit, kind_colour
from .data import ReportData
from .formulas import lemma_formulas
from ..wording import plural

FORMULAS_PER_KIND = 2
"""Lemmas rendered as formulas per obligation kind (the most used first); the rest as a list."""
MAX_HEATMAPS = 12
"""Heat-maps drawn at most (distinct layer functions × heads)."""
SMT_SHOWN = 20_000
"""Characters of a lemma's SMT-LIB text shown at most."""
ENCODING_ROWS = 40
"""Rows of the encoding shown."""
DEPTH_ROWS = 40
"""Rows of the gates-by-depth table at most (deeper circuits get ranges of depths)."""

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:1em 2em 3em}
h1{font-size:1.6em;margin:.4em 0}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.2em .7em;border-radius:1em;color:#fff;font-weight:bold;text-transform:uppercase}
.status-proved,.status-accepted{background:#1a7f37}.status-refuted,.status-rejected{background:#c62828}
.status-unknown,.status-not-checked{background:#8a6d00}
tr.mismatch td,tr.failed td{background:#ffd7d7;font-weight:bold}.not-proved{color:#c62828}tr.agrees td.mark{color:#1a7f37}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}
pre{background:#f3f3f3;padding:.5em;overflow:auto;max-height:24em}
table.diff td{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;white-space:pre-wrap;word-break:break-all;
max-width:520px;vertical-align:top}
table.diff tr.edited td.new{background:#fff3b0}table.diff tr.edited td.old{background:#ffe0e0}
table.diff tr.gap td{color:#888;text-align:center}
.figure{overflow:auto;max-height:80vh;border:1px solid #ddd;background:#fff;padding:.5em}
.legend span{display:inline-block;padding:0 .6em;margin-right:.4em;border:1px solid #999;border-radius:4px}
.heatmaps{display:flex;flex-wrap:wrap;gap:1em}.heatmaps figure{margin:0;background:#fff;border:1px solid #ddd;padding:.4em}
.note{color:#555;font-size:.9em}details{margin:.3em 0}math{font-size:1.05em}.formula{max-width:100%;overflow-x:auto;padding:.2em 0;line-height:2.4}
.formula math{margin-right:.25em;white-space:nowrap}
"""


def render_page(data: ReportData, layout: str = "auto") -> str:
    """The whole HTML document of ``data``."""
    parts = [_header(data)]
    if data.counterexample:
        parts.append(_counterexample(data))
    if data.diff is not None:
        parts.append(_edits(data))
    parts += [_circuit(data, layout), _layout(data), _attention(data), _obligations(data), _trusted_base(data)]
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>verified-aat report: {escape(data.title)}</title><style>{CSS}</style></head>"
            f"<body><main>{''.join(parts)}</main></body></html>\n")
    return _CONTROLS.sub(lambda m: f"\\x{ord(m[0]):02x}", page)  # a name's controls shown, never raw: HTML forbids them


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def layer_list(layers: tuple[int, ...] | list[int]) -> str:
    """Layer numbers, compactly: ``1, 3, 5`` or ``1, 3, …, 3111 (step 2, 1,556 layers)``."""
    layers = list(layers)
    if len(layers) <= 8:
        return ", ".join(map(str, layers))
    steps = {b - a for a, b in zip(layers, layers[1:])}
    if len(steps) == 1:
        step = steps.pop()
        return f"{layers[0]}, {layers[1]}, …, {layers[-1]} (step {step}, {len(layers):,} layers)"
    return f"{', '.join(map(str, layers[:4]))}, …, {layers[-1]} ({len(layers):,} layers)"


def _table(header: list[str], rows: list[list[Any]], cls: str = "", row_classes: list[str] | None = None) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for k, row in enumerate(rows):
        rc = f' class="{row_classes[k]}"' if row_classes and row_classes[k] else ""
        cells = "".join(f'<td class="num">{v:,}</td>' if isinstance(v, int) and not isinstance(v, bool) else
                        f"<td>{escape(str(v))}</td>" for v in row)
        body.append(f"<tr{rc}>{cells}</tr>")
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _header(data: ReportData) -> str:
    c, t = data.circuit, data.transformer
    facts = [["circuit", f"{c.name}: {plural(c.size, 'gate')}, {plural(c.n_edges, 'edge')}, "
                         f"{plural(c.n_inputs, 'input')}, {plural(len(c.outputs), 'output')}, "
                         f"depth {circuit_depth(c)}"],
             ["construction", f"{data.construction}, depth bound K = {data.depth_bound}"]]
    if t is not None:
        length = f", {plural(data.encoding.length, 'position')}" if data.encoding is not None else ""
        facts.append(["transformer", f"dimension {t.dimension}, {plural(t.n_layers, 'layer')}, "
                                     f"{plural(t.n_heads, 'head')}{length}"])
    if data.timings:
        facts.append(["time", ", ".join(f"{k} {v:.2f} s" for k, v in data.timings)])
    facts.append(["source", data.source])
    lines = "".join(f"<li>{escape(line)}</li>" for line in data.verdict if line)
    return (f'<h1>verified-aat report: {escape(data.title)}</h1>'
            f'<section id="verdict" data-status="{escape(data.status)}" data-gates="{c.size}">'
            f'<p>Verdict: <span class="badge status-{escape(data.status)}">{escape(data.status)}</span></p>'
            f'<ul>{lines}</ul>{_table(["", ""], facts)}</section>')


def _counterexample(data: ReportData) -> str:
    cex = data.counterexample or {}
    inputs = [[name, value] for name, value in (cex.get("inputs") or {}).items()]
    steps = [_renamed(s, data) for s in cex.get("steps") or []]
    rows, classes = [], []
    for s in steps:
        rows.append([s["gate"], s["kind"], s["layer"], s["position"], s["circuit_value"],
                     "—" if s["transformer_value"] is None else s["transformer_value"],
                     "ok" if s["agrees"] else "MISMATCH"])
        classes.append("agrees" if s["agrees"] else "mismatch")
    first = _renamed(cex.get("first_mismatch"), data)
    where = (f'<p id="first-mismatch" data-position="{first["position"]}" data-gate="{escape(str(first["gate"]))}">'
             f'First mismatch: gate <b>{escape(str(first["gate"]))}</b> ({escape(str(first["kind"]))}) at position '
             f'<b>{first["position"]}</b>, layer {first["layer"]}: the circuit computes '
             f'{escape(str(first["circuit_value"]))}, the transformer holds {escape(str(first["transformer_value"]))}.'
             f'</p>') if first else '<p>Every traced gate agrees; the outputs differ (below).</p>'
    outputs = [[o["name"], o["circuit"], o["transformer"], "yes" if o["agrees"] else "NO"]
               for o in cex.get("outputs") or []]
    kind = "rational, replayed exactly: it refutes the claim over every ring Q ⊆ R ⊆ ℝ" if cex.get("rational") \
        else "not rational"
    return (f'<section id="counterexample"><h2>Counterexample</h2><p class="note">{escape(kind)}.</p>'
            f'<h3>Inputs</h3>{_table(["input", "value"], inputs)}{where}'
            f'<h3>Gate by gate: circuit vs transformer at the scheduled layer, up to the first mismatch</h3>'
            f'{_table(["gate", "kind", "layer", "position", "circuit", "transformer", ""], rows, "trace", classes)}'
            f'<h3>Outputs</h3>{_table(["output", "circuit", "transformer", "agrees"], outputs)}</section>')


def _renamed(step: Any, data: ReportData) -> Any:
    """A trace step with the page's name for its gate (found by its position), so one naming scheme is used."""
    if not step or data.encoding is None or not data.names or not 0 <= step["position"] < data.encoding.length:
        return step
    role = data.encoding.roles[step["position"]]
    return {**step, "gate": data.names[role.gate]} if role.kind == "gate" else step


def _edits(data: ReportData) -> str:
    d = data.diff
    assert d is not None
    if not d.rows:
        return (f'<section id="edits"><h2>Edited lines of {escape(d.file)}</h2><p>None: the file is the '
                f'construction\'s own T_K for K = {data.depth_bound}.</p></section>')
    body = []
    for r in d.rows:
        cls = "gap" if r.tag == "gap" else "equal" if r.tag == "equal" else "edited"
        old_cls = "old" if r.old_number else "absent"  # one side of an insertion or deletion is empty: not coloured
        new_cls = "new" if r.new_number else "absent"
        body.append(f'<tr class="{cls}" data-line="{r.new_number or ""}"><td class="num">{r.old_number or ""}</td>'
                    f'<td class="{old_cls}">{escape(r.old)}</td><td class="num">{r.new_number or ""}</td>'
                    f'<td class="{new_cls}">{escape(r.new)}</td></tr>')
    note = " (the file was re-indented as `compile` writes it; line numbers are of that form)" if d.reindented else ""
    more = '<p class="note">… more changes not shown.</p>' if d.truncated else ""
    lines = ", ".join(map(str, d.edited_lines[:30])) + (" …" if len(d.edited_lines) > 30 else "")
    return (f'<section id="edits"><h2>Edited lines of {escape(d.file)}</h2>'
            f'<p>Against the construction\'s own T_K (K = {data.depth_bound}) as <code>verified-aat compile</code> '
            f'writes it{escape(note)}: {plural(len(d.edited_lines), "edited line")}: {lines}.</p>'
            f'<table class="diff"><thead><tr><th>#</th><th>T_K</th><th>#</th><th>{escape(d.file)}</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>{more}</section>')


def _circuit(data: ReportData, layout: str) -> str:
    c = data.circuit
    first = (data.counterexample or {}).get("first_mismatch")
    highlight = None
    if first and data.encoding is not None:
        role = data.encoding.roles[first["position"]] if first["position"] < data.encoding.length else None
        highlight = role.gate if role is not None else None
    drawing = draw_circuit(c, layout, highlight, list(data.names) or None)
    legend = "".join(f'<span style="background:{kind_colour(k, 0, 1)}">{name}</span>'
                     for k, (_, name) in KIND_HUES.items())
    shown = (f"all {plural(c.size, 'gate')}" if len(drawing.shown) == c.size else
             f"a sample of {len(drawing.shown):,} of {c.size:,} gates: those nearest the outputs, at most {MAX_ARGS} "
             f"arguments per gate (+N: arguments not drawn)")
    depths = _kinds_by_depth(c)
    return (f'<section id="circuit" data-layout="{escape(drawing.layout)}"><h2>The circuit</h2>'
            f'<p>Drawn by <b>{escape(drawing.layout)}</b>; {shown}. Fill: gate kind, darker with depth; double '
            f'border: output{"; red: the first mismatch" if highlight is not None else ""}.</p>'
            f'{f"<p class=note>{escape(data.naming)}</p>" if data.naming else ""}'
            f'<p class="legend">{legend}</p><div class="figure">{drawing.svg}</div>'
            f'<h3>Gates by kind and depth</h3>{depths}</section>')


def _kinds_by_depth(circuit: Any) -> str:
    from ..circuits.measures import gate_depths

    depths = gate_depths(circuit)
    width = max(1, -(-(max(depths, default=0) + 1) // DEPTH_ROWS))  # depths per row: at most DEPTH_ROWS rows
    table: dict[int, Counter[str]] = defaultdict(Counter)
    for g, d in enumerate(depths):
        table[d // width][circuit.gates[g].kind.value] += 1
    kinds = [name for _, name in KIND_HUES.values()]
    label = (lambda b: b) if width == 1 else (lambda b: f"{b * width}–{b * width + width - 1}")
    rows = [[label(b)] + [table[b][k] for k in kinds] + [sum(table[b].values())] for b in sorted(table)]
    rows.append(["all"] + [sum(table[d][k] for d in table) for k in kinds] + [circuit.size])
    return _table(["depth"] + kinds + ["gates"], rows, "kinds")


def _layout(data: ReportData) -> str:
    t = data.transformer
    if t is None:
        return '<section id="layout"><h2>Transformer layout</h2><p>Not available for this input.</p></section>'
    parts = ['<section id="layout"><h2>Transformer layout</h2>',
             *layout_tables(t, data.construction, data.construction_document)]
    if data.encoding is not None:
        from .heatmaps import role_labels

        labels = role_labels(data.circuit, data.encoding, list(data.names) or None)
        rows = [[p, data.encoding.roles[p].kind, labels[p], *map(format_rational_short, row)]
                for p, row in enumerate(data.encoding.rows[:ENCODING_ROWS])]
        more = data.encoding.length - len(rows)
        parts += [f"<h3>Encoding enc(C, x): the first {len(rows)} of {data.encoding.length:,} positions</h3>",
                  _table(["position", "role", "gate / edge", *t.coordinates], rows),
                  f'<p class="note">… {plural(more, "more position")}.</p>' if more > 0 else ""]
    parts.append("</section>")
    return "".join(parts)


def layout_tables(t: Any, construction: str | None, document: Any = None) -> list[str]:
    """The coordinates (described by the construction's layout, when it is a known one or its document is
    given) and the layers by distinct layer function, with their heads and pooling."""
    from ..constructions.registry import CONSTRUCTIONS, construction_of_record
    from ..symbolic.obligations import layer_functions

    known = CONSTRUCTIONS.get(construction) if construction and document is None else None
    if document is not None and construction:
        known = construction_of_record(construction, document)
    doc = {c: (g, e) for c, g, e in known.description().layout} if known is not None else {}
    coords = [[c, *doc.get(c, ("", ""))] for c in t.coordinates]
    layers = []
    for fn in layer_functions(t):
        heads = "; ".join(f"{h.name} ({h.pooling.value}, {type(h.score).__name__.replace('Score', '').lower()} "
                          f"score)" for h in fn.layer.heads)
        layers.append([layer_list(fn.layers), fn.layer.name, heads])
    return [f"<h3>Coordinates (dimension {t.dimension})</h3>",
            _table(["coordinate", "gate position", "edge position"], coords),
            f"<h3>Layers ({t.n_layers}), by distinct layer function</h3>",
            _table(["layers", "name", "heads (pooling, score)"], layers)]


def _attention(data: ReportData) -> str:
    from .heatmaps import heat_map

    if not data.attention or data.encoding is None:
        return ('<section id="attention"><h2>Attention</h2><p>No argmax sets for this input (the transformer is '
                'not the construction\'s own and could not be scored).</p></section>')
    figures, notes = [], []
    for hs in data.attention[:MAX_HEATMAPS]:
        layers = layer_list(hs.layers)
        if hs.sets is None:
            notes.append(f"<li>head {escape(hs.head)} (layers {layers}): not shown: {escape(hs.note)}</li>")
            continue
        title = f"head {hs.head} ({hs.pooling}), layers {layers}"
        hm = heat_map(hs.sets, hs.pooling, data.circuit, data.encoding, f"head {hs.head} ({hs.pooling})",
                      hs.ignored, list(data.names) or None)
        what = "position × position" if hm.kind == "positions" else "role group × role group (mean weight)"
        grey = (f" Grey rows ({hm.greyed:,}): {'positions' if hm.kind == 'positions' else 'groups'} whose "
                f"activation ignores this head, so their attention cannot affect the result."
                if hm.greyed else "")
        figures.append(f'<figure class="heatmap" data-head="{escape(hs.head)}" data-greyed-rows="{hm.greyed}">'
                       f'<img alt="{escape(title)}" src="data:image/png;base64,{hm.png_base64}"><figcaption>'
                       f'{escape(title)}: {what}; {plural(hm.distinct_sets, "distinct set")}, mean size '
                       f'{hm.mean_set_size:.2f}; by {escape(hs.method)}.{escape(grey)}</figcaption></figure>')
        if hs.ignored is None and hs.ignored_note:
            notes.append(f"<li>head {escape(hs.head)}: no row greyed ({escape(hs.ignored_note)})</li>")
    if len(data.attention) > MAX_HEATMAPS:
        notes.append(f"<li>{plural(len(data.attention) - MAX_HEATMAPS, 'more head')} not drawn</li>")
    long = data.encoding.length > 300
    return (f'<section id="attention"><h2>Attention: argmax sets per layer</h2><p>Per distinct layer function and '
            f'head (layers listed), the weight position p gives position j. '
            f'{"The sequence is long: positions are grouped by role. " if long else ""}'
            f'Only positions whose attention result the activation reads matter: a row is grey when folding the '
            f'layer\'s activation, with the position\'s structural coordinates fixed to their encoded values (which '
            f'every layer provably keeps), leaves no output depending on the head, for every input.</p>'
            f'<div class="heatmaps">{"".join(figures)}</div><ul>{"".join(notes)}</ul></section>')


def _obligations(data: ReportData) -> str:
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for lemma in data.lemmas:
        by_kind[lemma.kind].append(lemma)
    counts = dict(data.obligations)
    kinds = sorted(set(counts) | set(by_kind))
    rows = [[k, counts.get(k, 0), len(by_kind.get(k, [])), sum(l.status != "proved" for l in by_kind.get(k, [])),
             ", ".join(sorted({l.engine for l in by_kind.get(k, [])}))] for k in kinds]
    parts = ['<section id="obligations"><h2>Obligations by kind</h2>',
             _table(["kind", "obligations", "distinct lemmas", "not proved", "closed by"], rows, "obligations",
                    ["failed" if row[3] else "" for row in rows]),
             f"<p>{plural(len(data.lemmas), 'distinct lemma')} in all. Each lemma below is shown as the identity it "
             f"claims for every real value of its variables (y: gate values, h: values not yet settled, f: free); "
             f"lemmas that were not proved come first.</p>"]
    for kind in sorted(by_kind):
        lemmas = sorted(by_kind[kind], key=lambda l: (l.status == "proved", -l.uses, l.id))  # failures first
        parts.append(f'<h3>{escape(kind)}</h3>')
        for lemma in lemmas[:FORMULAS_PER_KIND]:
            formulas = lemma_formulas(lemma.smt2)
            shown = "".join(f'<p class="note">{escape(f.label)}:</p>{f.mathml}' for f in formulas) or \
                '<p class="note">(too large to typeset; SMT-LIB text below)</p>'
            verdict = f"closed by {escape(lemma.engine)}" if lemma.status == "proved" else \
                f'<b class="not-proved">{escape(lemma.status.upper())}</b> ({escape(lemma.engine)})'
            parts.append(f'<div class="lemma" data-kind="{escape(kind)}" data-status="{escape(lemma.status)}"><p>lemma '
                         f'<code>{lemma.id[:16]}</code>, used {plural(lemma.uses, "time")}, {verdict}</p>{shown}'
                         f'<details><summary>SMT-LIB</summary><pre>{escape(_clipped(lemma.smt2))}</pre></details></div>')
        if len(lemmas) > FORMULAS_PER_KIND:
            rest = ", ".join(f"{l.id[:12]} ({l.uses})" for l in lemmas[FORMULAS_PER_KIND:FORMULAS_PER_KIND + 40])
            parts.append(f'<p class="note">{len(lemmas) - FORMULAS_PER_KIND} more of this kind (id, uses): '
                         f'{escape(rest)}{" …" if len(lemmas) > FORMULAS_PER_KIND + 40 else ""}</p>')
    parts.append("</section>")
    return "".join(parts)


def _clipped(text: str) -> str:
    """At most :data:`SMT_SHOWN` characters of a lemma's text (a 50,000-operand sum's lemma is megabytes)."""
    if len(text) <= SMT_SHOWN:
        return text
    return f"{text[:SMT_SHOWN]}\n… {len(text) - SMT_SHOWN:,} more characters (the certificate holds the whole lemma)"


def _trusted_base(data: object = None) -> str:
    from .trusted import trusted_base

    items = "".join(f"<li>{escape(line)}</li>" for line in trusted_base())
    return f'<section id="trusted-base"><h2>Trusted base</h2><ul>{items}</ul></section>'
