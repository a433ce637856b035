"""Short ``repr`` and ``_repr_html_`` for the values people hold in a REPL or a notebook.

The auto-generated dataclass ``repr`` of a circuit prints every gate (130,000 characters for
c880; a schematic result's, its whole certificate), so circuits, transformers, encodings, results,
kernel reports and certificates print as one line of counts instead, and as a small table in Jupyter.  Everything here only reads the
values; equality and hashing stay the dataclasses' own.  This module imports nothing of
verified_aat: the IR modules call in here from their methods (a circuit computes its own rows).
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from .wording import plural

Rows = list[tuple[str, Any]]

_GREEN, _RED, _GREY = "#1a7f37", "#cf222e", "#6e7781"
_COLOURS = {"proved": _GREEN, "accepted": _GREEN, "passed": _GREEN, "refuted": _RED, "rejected": _RED, "failed": _RED,
            "unknown": _GREY, "not-checked": _GREY}
_MAX_LISTED = 5  # problems, rejections and counterexample steps shown in a table


def one_line(kind: str, title: str, rows: Rows) -> str:
    """``<Kind title: a, b, c>`` from the rows' values (a row whose value is None is left out)."""
    parts = [_part(label, value) for label, value in rows if value is not None and value != ""]
    return f"<{kind} {title}: {', '.join(parts)}>" if parts else f"<{kind} {title}>"


def _part(label: str, value: Any) -> str:
    """``K=3``, ``5 inputs``, ``0.12 s`` or ``class FNC0``."""
    if len(label) == 1:
        return f"{label}={value}"
    if label == "seconds":
        return f"{value} s"
    if isinstance(value, int) and not isinstance(value, bool) and label not in ("depth", "version"):
        return f"{value} {label}"
    return f"{label} {value}"


def html_table(kind: str, title: str, rows: Rows, status: str | None = None) -> str:
    """A small two-column HTML table; ``status`` is shown first, coloured by its meaning."""
    head = f"<b>{html.escape(kind)}</b> {html.escape(title)}"
    body = []
    if status is not None:
        colour = _COLOURS.get(str(status), "#000")
        body.append(f"<tr><th style='text-align:left'>status</th><td style='text-align:left;color:{colour}'>"
                    f"<b>{html.escape(str(status))}</b></td></tr>")
    for label, value in rows:
        if value is None or value == "" or (isinstance(value, (list, tuple)) and not value):
            continue
        if isinstance(value, (list, tuple)):
            shown = "<br>".join(html.escape(str(v)) for v in value)
        else:
            shown = html.escape(str(value))
        body.append(f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
                    f"<td style='text-align:left'>{shown}</td></tr>")
    return f"<table class='verified-aat'><caption style='text-align:left'>{head}</caption>{''.join(body)}</table>"


def _listed(items: Sequence[Any]) -> list[str]:
    """At most a few items, and how many more there are."""
    shown = [str(item) for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        shown.append(f"… and {len(items) - _MAX_LISTED} more")
    return shown


# -- circuits -----------------------------------------------------------------------

def circuit_repr(circuit: Any) -> str:
    """``<Circuit 'c17': class FNC0, 5 inputs, 2 outputs, 6 gates … sha256 …>`` (the circuit's own ``repr``,
    whose rows :mod:`verified_aat.circuits.ir` computes)."""
    return repr(circuit)


def circuit_html(circuit: Any) -> str:
    return str(circuit._repr_html_())


# -- transformers and encodings -------------------------------------------------------

def _transformer_rows(transformer: Any) -> tuple[str, Rows]:
    poolings = sorted({head.pooling.value for layer in transformer.layers for head in layer.heads})
    gates = sum(layer.activation.size for layer in transformer.layers)
    rows: Rows = [("d", transformer.dimension), ("layers", transformer.n_layers), ("heads", transformer.n_heads),
                  ("pooling", "/".join(poolings) or None), ("activation gates", gates),
                  ("coordinates", " ".join(transformer.coordinates))]
    return repr(transformer.name), rows


def transformer_repr(transformer: Any) -> str:
    title, rows = _transformer_rows(transformer)
    return one_line("Transformer", title, rows[:-1])


def transformer_html(transformer: Any) -> str:
    """The counts, then one row per layer (heads, pooling, score kind, activation size), the
    first few layers only for deep transformers."""
    title, rows = _transformer_rows(transformer)
    layers = []
    for number, layer in enumerate(transformer.layers, start=1):
        heads = ", ".join(f"{h.name} ({h.pooling.value}, {'circuit' if hasattr(h.score, 'circuit') else 'bilinear'})"
                          for h in layer.heads)
        layers.append(f"{number}. {layer.name or 'layer'}: {heads or 'no heads'}; activation "
                      f"{plural(layer.activation.size, 'gate')}")
    return html_table("Transformer", title, rows + [("layers by number", _listed(layers))])


def encoding_repr(encoding: Any) -> str:
    rows: Rows = [("positions", encoding.length), ("coordinates", len(encoding.coordinates)),
                  ("inputs", encoding.n_inputs), ("outputs", len(encoding.readout))]
    return one_line("Encoding", encoding.construction, rows)


# -- results ---------------------------------------------------------------------------

def _certify_rows(result: Any) -> tuple[str, Rows]:
    lemmas = len(result.derivation.lemmas)
    rows: Rows = [("construction", result.construction), ("K", result.depth_bound), ("lemmas", lemmas),
                  ("solver calls", result.solver_calls),
                  ("obligations", sum(result.derivation.kinds.values())),
                  ("seconds", f"{result.seconds.get('total', 0.0):.3f}")]
    if getattr(result, "kernel", None) is not None:
        rows.append(("kernel", str(result.kernel)))
    return f"{result.status} for {result.circuit.name!r}", rows


def certify_repr(result: Any) -> str:
    title, rows = _certify_rows(result)
    return one_line("CertifyResult", title, rows)


def certify_html(result: Any) -> str:
    title, rows = _certify_rows(result)
    rows = [("circuit", circuit_repr(result.circuit)), *rows, ("problems", _listed(result.problems))]
    if getattr(result, "theorem", ""):
        rows.append(("theorem (the kernel's)", result.theorem))
    if result.counterexample is not None:
        rows += counterexample_rows(result.counterexample)
    return html_table("CertifyResult", title, rows, status=result.status)


def _instance_rows(result: Any) -> tuple[str, Rows]:
    rows: Rows = [("construction", result.construction), ("depth", result.depth),
                  ("every-K proof", str(result.schematic.status)), ("lemmas", result.schematic.lemmas),
                  ("seconds", f"{result.seconds.get('total', 0.0):.3f}"), ("kernel", result.kernel)]
    return f"{result.status} for {result.circuit.name!r} (every K)", rows


def instance_repr(result: Any) -> str:
    title, rows = _instance_rows(result)
    return one_line("InstanceResult", title, rows)


def instance_html(result: Any) -> str:
    title, rows = _instance_rows(result)
    rows = [("circuit", circuit_repr(result.circuit)), *rows, ("problems", _listed(result.problems)),
            ("theorem (the kernel's)", result.theorem or None)]
    return html_table("InstanceResult", title, rows, status=result.status)


def _schematic_rows(result: Any) -> tuple[str, Rows]:
    covers = "every K" if result.depth_bound is None else f"K ≤ {result.depth_bound}"
    return (f"{result.status} for {result.construction!r} ({covers})",
            [("lemmas", result.lemmas), ("seconds", f"{result.seconds:.3f}"),
             ("problems", len(result.problems) or None)])


def schematic_repr(result: Any) -> str:
    """``<SchematicResult proved for 'gate-edge' (every K): 102 lemmas, 0.812 s>``: not the certificate it holds."""
    title, rows = _schematic_rows(result)
    return one_line("SchematicResult", title, rows)


def schematic_html(result: Any) -> str:
    title, rows = _schematic_rows(result)
    rows = [*rows[:2], ("problems", _listed(result.problems)), ("theorem", result.theorem or None)]
    found = result.refutation.counterexample if result.refutation is not None else None
    return html_table("SchematicResult", title, rows + ([] if found is None else counterexample_rows(found)),
                      status=result.status)


def counterexample_rows(found: Any) -> Rows:
    """Inputs, outputs (circuit vs transformer) and the first mismatching gate of a counterexample."""
    mismatch = next((s for s in found.steps if not s.agrees), None)
    rows: Rows = [("inputs", ", ".join(f"{n} = {v}" for n, v in zip(found.input_names, found.inputs))),
                  ("outputs", [f"{n}: circuit {e}, transformer {a}" + ("" if e == a else "  ← differs")
                               for n, e, a in zip(found.output_names, found.expected, found.actual)])]
    if mismatch is not None:
        value = "(no value)" if mismatch.transformer_value is None else mismatch.transformer_value
        rows.append(("first mismatch", f"gate {mismatch.gate} ({mismatch.kind}) at layer {mismatch.layer}: circuit "
                                       f"{mismatch.circuit_value}, transformer {value}"))
    return rows


def refutation_repr(refutation: Any) -> str:
    """``<Refutation refuted: circuit 'c17' (20 gates), input (1, 0), 1 circuits tried, 0.01 s>``."""
    rows: Rows = [("circuits tried", refutation.circuits_tried), ("seconds", f"{refutation.seconds:.3f}")]
    if refutation.counterexample is not None:
        rows.insert(0, ("input", f"({', '.join(str(v) for v in refutation.counterexample.inputs)})"))
    if refutation.circuit is not None:
        rows.insert(0, ("circuit", f"{refutation.circuit.name!r} ({plural(refutation.circuit.size, 'gate')}"
                                   f"{shrunk_note(refutation)})"))
    return one_line("Refutation", str(refutation.status), rows)


def shrunk_note(refutation: Any) -> str:
    """``, shrunk from 44 gates, 51 edges and 8 outputs`` when the witness is the first failing candidate shrunk, else
    empty."""
    first = refutation.shrunk_from()
    return "" if first is None else f", shrunk from {shrunk_size(first)}"


def shrunk_size(first: dict[str, int]) -> str:
    """``44 gates, 51 edges and 8 outputs``: a circuit's size as ``shrunk_from`` gives it."""
    return (f"{plural(first['gates'], 'gate')}, {plural(first['edges'], 'edge')} and "
            f"{plural(first['outputs'], 'output')}")


def refutation_html(refutation: Any) -> str:
    rows: Rows = [("circuit", None if refutation.circuit is None else circuit_repr(refutation.circuit)
                   + shrunk_note(refutation)),
                  ("circuits tried", refutation.circuits_tried), ("seconds", f"{refutation.seconds:.3f}")]
    if refutation.counterexample is not None:
        rows += counterexample_rows(refutation.counterexample)
    else:
        rows.append(("note", "no counterexample found: this is not a proof (use certify)"))
    return html_table("Refutation", "", rows, status=refutation.status)


def _report_rows(report: Any) -> Rows:
    return [("lemmas", report.lemmas), ("obligations", report.obligations), ("solver runs", report.solver_runs),
            ("checks", len(report.checks)), ("seconds", f"{report.seconds:.3f}")]


def report_repr(report: Any) -> str:
    return one_line("CheckReport", str(report.outcome), _report_rows(report))


def report_html(report: Any) -> str:
    rows = [("theorem", report.theorem), *_report_rows(report), ("defence", report.defence),
            ("reasons", _listed(report.reasons))]
    return html_table("CheckReport", "(trusted kernel)", rows, status=report.outcome)


def _certificate_rows(doc: dict[str, Any]) -> tuple[str, Rows]:
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    hashes = doc.get("hashes") if isinstance(doc.get("hashes"), dict) else {}
    lemmas = doc.get("lemmas")
    rows: Rows = [("version", doc.get("version")), ("construction", doc.get("construction")),
                  ("K", info.get("depth_bound")), ("lemmas", len(lemmas) if isinstance(lemmas, list) else None),
                  ("circuit sha256", str(hashes.get("circuit", ""))[:12] or None),
                  ("netlist", "embedded" if "netlist" in doc else None)]
    return repr(info.get("circuit", "?")), rows


def certificate_repr(doc: dict[str, Any]) -> str:
    title, rows = _certificate_rows(doc)
    return one_line("Certificate", title, rows)


def certificate_html(doc: dict[str, Any]) -> str:
    title, rows = _certificate_rows(doc)
    result = doc.get("result") if isinstance(doc.get("result"), dict) else {}
    return html_table("Certificate", title, rows + [("claim", doc.get("claim"))], status=result.get("status"))


# -- audits ------------------------------------------------------------------------------

def _audit_rows(report: Any) -> Rows:
    independent = report.depth_independent
    return [("d", report.dimension), ("layers", report.layers), ("heads", report.heads),
            ("lengths", ",".join(str(row.n) for row in report.rows)),
            ("depth independent of N", None if independent is None else ("yes" if independent else "no")),
            ("problems", len(report.problems))]


def audit_repr(report: Any) -> str:
    """``<AuditReport passed for 'T': d=5, 12 layers, …>``; *passed* means tested, not proved."""
    return one_line("AuditReport", f"{'passed' if report.ok else 'failed'} for {report.transformer!r}",
                    _audit_rows(report))


def audit_html(report: Any) -> str:
    rows = _audit_rows(report)[:-1]  # the problems themselves follow
    for row in report.rows:
        rows.append((f"N = {row.n}", f"{row.class_name}, depth {row.depth}, {plural(row.size, 'gate')} (bound "
                                     f"{row.size_bound}), {plural(row.samples, 'sample')}, "
                                     f"{plural(row.mismatches, 'mismatch', 'mismatches')}"
                                     + ("" if row.ok else " — FAILED")))
    rows.append(("problems", _listed(report.problems)))
    return html_table("AuditReport", f"{report.transformer!r} (tested, not proved)", rows,
                      status="passed" if report.ok else "failed")
