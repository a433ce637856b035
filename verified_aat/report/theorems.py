"""Reports of the two certificate kinds whose theorem is not about one circuit.

A schematic certificate (``prove-construction``) proves T_K correct for every circuit of depth
≤ K (or for every K); an audit certificate (``audit --prove``) proves U_N = T for the audited
lengths N.  Neither holds a circuit or an encoding, so the page has no circuit drawing and no
heat-maps: verdict and theorem, what the theorem covers, the transformer's layout, the lemmas
by kind, the trusted base.  The trusted kernel (``check_certificate``) gives the verdict.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from ..errors import InputError
from ..wording import plural
from ..transformer.model import Transformer
from .data import LemmaView, transformer_from_form
from .fields import count, listing, mapping, stated_status

SCHEMATIC_FORMAT = "verified-aat/schematic-certificate"
AUDIT_FORMAT = "verified-aat/audit-certificate"
FAMILY_FORMAT = "verified-aat/audit-family-certificate"
FORMATS = (SCHEMATIC_FORMAT, AUDIT_FORMAT, FAMILY_FORMAT)
LEMMAS_SHOWN_PER_KIND = 2
"""Lemmas typeset per kind (the most used first); the rest are listed by id and uses."""


@dataclass(frozen=True)
class ScopedLemma:
    """One lemma of a schematic or audit certificate, with the lengths it holds for (audit: ``all N`` or ``N = 3``)."""

    lemma: LemmaView
    scope: str


@dataclass(frozen=True)
class TheoremData:
    """Everything a schematic or audit report shows."""

    kind: str                              # "schematic" or "audit"
    title: str
    status: str                            # accepted / rejected / not-checked (kernel) or the certificate's own
    verdict: tuple[str, ...]
    construction: str | None               # a registered construction, when the certificate names one
    covers: tuple[tuple[str, str], ...]    # (what, text) rows of the coverage table
    unrolled: tuple[tuple[int, int, int], ...]  # audit: (N, gates, depth) of U_N
    transformer: Transformer | None
    lemmas: tuple[ScopedLemma, ...]
    source: str = ""


def is_theorem_certificate(doc: Any) -> bool:
    """Whether ``doc`` is a schematic or an audit certificate (by its ``format``)."""
    return isinstance(doc, dict) and doc.get("format") in FORMATS


def from_theorem_certificate(doc: dict[str, Any], kernel_report: Any = None,
                             source: str = "certificate") -> TheoremData:
    """The report of a schematic or audit certificate; ``kernel_report`` (a kernel Report) gives the verdict."""
    from ..constructions.registry import CONSTRUCTIONS

    if not is_theorem_certificate(doc):
        raise InputError("not a schematic or audit certificate", source)
    kind = "schematic" if doc["format"] == SCHEMATIC_FORMAT else "audit"
    info = mapping(doc.get("info"))
    if kernel_report is not None:
        status = kernel_report.outcome
        verdict = ((kernel_report.theorem,) if kernel_report.accepted else ()) + tuple(kernel_report.reasons)
    else:
        status = stated_status(doc)
        verdict = (("the certificate says so; not re-checked here (run `verified-aat check` for the kernel's "
                    "verdict)"),)
    lemmas = tuple(ScopedLemma(LemmaView(str(l.get("id")), str(l.get("kind")), count(l.get("uses")),
                                         str(l.get("engine") or "solver"), str(l.get("smt2"))),
                               str(l.get("scope") or ("every K" if kind == "schematic" else "all N"
                                                      if doc["format"] == FAMILY_FORMAT else "")))
                   for l in listing(doc.get("lemmas")) if type(l) is dict)
    unrolled: tuple[tuple[int, int, int], ...] = ()
    read = transformer_from_form(doc.get("transformer"))
    if kind == "schematic":
        name = doc.get("construction") if isinstance(doc.get("construction"), str) else None
        every = info.get("every_K") is True
        k = info.get("depth_bound")
        covers = [("construction", str(name)),
                  ("depth bound", "every K ≥ 1: one block of T, repeated K times, is T_K" if every else f"K = {k}"),
                  ("circuits", "every FSAC⁰[sign] circuit of depth ≤ K, every input x")]
        title = f"{name} for {'every K' if every else f'K = {k}'} (schematic certificate)"
    elif doc["format"] == FAMILY_FORMAT:
        label = str(info.get("transformer") or "T")
        first = label.split()[0] if label.split() else ""
        name = first if first in CONSTRUCTIONS else None
        measures = mapping(doc.get("measures"))
        covers = [("transformer", _sizes(label, read, info)),
                  ("claim", str(doc.get("claim") or "")),
                  ("lengths N", "every N ≥ 1 (one uniform family, no lemma mentions N)"),
                  ("depth of U_N", f"{measures['depth']} for every N ≥ 2" if type(measures.get("depth")) is int
                   else "not stated by the certificate"),
                  ("non-constant gates of U_N (N⁰ … N³)", ", ".join(map(str, listing(measures.get("gates_cubic")))))]
        title = f"{label} unrolled for every N (all-N audit certificate)"
    else:
        label = str(info.get("transformer") or "T")
        first = label.split()[0] if label.split() else ""
        name = first if first in CONSTRUCTIONS else None
        lengths = [n for n in listing(doc.get("lengths")) if type(n) is int]
        unrolled = tuple((count(u.get("n")), count(u.get("gates")), count(u.get("depth")))
                         for u in listing(doc.get("unrolled")) if type(u) is dict)
        scopes = _kinds_by_scope(lemmas)
        covers = [("transformer", _sizes(label, read, info)),
                  ("claim", str(doc.get("claim") or "")),
                  ("audited lengths N", ", ".join(map(str, lengths))),
                  ("kinds holding for all N", ", ".join(scopes["all"]) or "none"),
                  ("kinds checked per N", ", ".join(scopes["per"]) or "none")]
        title = f"{label} unrolled for N in {{{', '.join(map(str, lengths))}}} (audit certificate)"
    depth = info.get("depth_bound") if kind == "schematic" else _audited_k(str(info.get("transformer") or ""))
    transformer = _with_layer_names(read, name, depth)
    return TheoremData(kind, title, status, verdict, name, tuple(covers), unrolled, transformer, lemmas, source)


def _sizes(label: str, t: Transformer | None, info: dict[str, Any]) -> str:
    """T's layers, heads and dimension, counted in the certificate's own transformer (the object the kernel
    judges); without a readable one, as its ``info`` states them, and a count it does not state is left out
    (it showed as "'?' layers")."""
    if t is not None:
        return f"{label}: {plural(t.n_layers, 'layer')}, {plural(t.n_heads, 'head')}, dimension {t.dimension}"
    stated = [plural(info[key], noun) for key, noun in (("layers", "layer"), ("heads", "head"))
              if type(info.get(key)) is int and info[key] >= 0]
    stated += [f"dimension {info.get('dimension')}"] * (type(info.get("dimension")) is int)
    if not stated:
        return f"{label} (the certificate holds no readable transformer and states no size)"
    return f"{label}: {', '.join(stated)} (as the certificate's info states; it holds no readable transformer)"


def _audited_k(label: str) -> int | None:
    """K of an audited construction's T_K, from the label ``audit`` stores (``gate-edge K=6``)."""
    match = re.fullmatch(r"\S+ K=([0-9]{1,4})", label)
    return int(match.group(1)) if match else None


def _with_layer_names(t: Transformer | None, construction: str | None, depth: Any) -> Transformer | None:
    """The kernel form has no layer names: take the construction's own (display only), when its T_K has the
    same heads and pooling layer by layer; else leave them blank."""
    from ..constructions.registry import CONSTRUCTIONS

    if t is None or construction not in CONSTRUCTIONS or type(depth) is not int or depth < 1:
        return t
    own = CONSTRUCTIONS[construction].transformer(depth)

    def heads(layer: Any) -> list[tuple[str, str]]:
        return [(h.name, h.pooling.value) for h in layer.heads]

    if len(own.layers) != len(t.layers) or any(heads(a) != heads(b) for a, b in zip(own.layers, t.layers)):
        return t
    return replace(t, layers=tuple(replace(a, name=b.name) for a, b in zip(t.layers, own.layers)))


def _kinds_by_scope(lemmas: tuple[ScopedLemma, ...]) -> dict[str, list[str]]:
    """Lemma kinds whose every lemma holds for all N, and kinds with a lemma per N."""
    scopes: dict[str, set[str]] = defaultdict(set)
    for s in lemmas:
        scopes[s.lemma.kind].add(s.scope)
    return {"all": sorted(k for k, v in scopes.items() if v == {"all N"}),
            "per": sorted(k for k, v in scopes.items() if v != {"all N"})}


def render_theorem_page(data: TheoremData) -> str:
    """The whole HTML document of ``data``: same style as the per-circuit report, no script, no network."""
    from .html import CSS, _trusted_base

    parts = [_header(data), _covers(data), _layout(data), _lemmas(data), _trusted_base()]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>verified-aat report: {escape(data.title)}</title><style>{CSS}</style></head>"
            f"<body><main>{''.join(parts)}</main></body></html>\n")


def _header(data: TheoremData) -> str:
    from .html import _table

    lines = "".join(f"<li>{escape(line)}</li>" for line in data.verdict if line)
    facts = [["certificate", f"{data.kind} certificate"], ["lemmas", f"{len(data.lemmas):,} distinct"],
             ["source", data.source]]
    return (f'<h1>verified-aat report: {escape(data.title)}</h1>'
            f'<section id="verdict" data-status="{escape(data.status)}" data-kind="{data.kind}">'
            f'<p>Verdict: <span class="badge status-{escape(data.status)}">{escape(data.status)}</span></p>'
            f'<ul>{lines}</ul>{_table(["", ""], facts)}</section>')


def _covers(data: TheoremData) -> str:
    from .html import _table

    parts = ['<section id="covers"><h2>What the theorem covers</h2>',
             _table(["", ""], [list(row) for row in data.covers], "covers")]
    if data.unrolled:
        parts += ["<h3>The unrollings U_N (arithmetic circuits, one per audited length)</h3>",
                  _table(["N", "gates", "depth"], [list(u) for u in data.unrolled], "unrolled")]
    parts.append("</section>")
    return "".join(parts)


def _layout(data: TheoremData) -> str:
    from .html import layout_tables

    if data.transformer is None:
        return ('<section id="layout"><h2>Transformer layout</h2><p>Not available: the certificate\'s '
                'transformer is not in kernel form (the kernel judges the form).</p></section>')
    what = ("one block of T (T_K repeats it K times)" if data.kind == "schematic" else
            "the audited transformer T")
    return (f'<section id="layout"><h2>Transformer layout</h2><p class="note">{escape(what)}.</p>'
            f'{"".join(layout_tables(data.transformer, data.construction))}</section>')


def _lemmas(data: TheoremData) -> str:
    from .formulas import hypothesis_formulas
    from .html import _table

    by_kind: dict[str, list[ScopedLemma]] = defaultdict(list)
    for s in data.lemmas:
        by_kind[s.lemma.kind].append(s)
    rows = [[k, len(v), sum(s.lemma.uses for s in v), ", ".join(sorted({s.scope for s in v}, key=_scope_order))]
            for k, v in sorted(by_kind.items())]
    parts = ['<section id="obligations"><h2>Lemmas by kind</h2>',
             _table(["kind", "distinct lemmas", "uses", "holds for"], rows, "obligations"),
             (f"<p>{plural(len(data.lemmas), 'distinct lemma')} in all. Each lemma below is shown as its hypotheses and "
              "the claim that holds for every real value of its variables satisfying them (the solver proved "
              "the negation unsatisfiable); too large ones as SMT-LIB text.</p>")]
    for kind, group in sorted(by_kind.items()):
        group.sort(key=lambda s: (-s.lemma.uses, s.lemma.id))
        parts.append(f"<h3>{escape(kind)}</h3>")
        for s in group[:LEMMAS_SHOWN_PER_KIND]:
            lemma = s.lemma
            formulas = hypothesis_formulas(lemma.smt2)
            shown = "".join(f'<p class="note">{escape(f.label)}:</p>{f.mathml}' for f in formulas) or \
                f'<p class="note">(not typeset; SMT-LIB text)</p><pre>{escape(lemma.smt2)}</pre>'
            scope = f", holds for {escape(s.scope)}" if s.scope else ""
            parts.append(f'<div class="lemma" data-kind="{escape(kind)}"><p>lemma <code>{escape(lemma.id[:16])}'
                         f'</code>, used {plural(lemma.uses, "time")}{scope}</p>{shown}'
                         f'<details><summary>SMT-LIB</summary><pre>{escape(lemma.smt2)}</pre></details></div>')
        if len(group) > LEMMAS_SHOWN_PER_KIND:
            rest = ", ".join(f"{s.lemma.id[:12]} ({s.lemma.uses})" for s in group[LEMMAS_SHOWN_PER_KIND:][:40])
            parts.append(f'<p class="note">{len(group) - LEMMAS_SHOWN_PER_KIND} more of this kind (id, uses): '
                         f'{escape(rest)}{" …" if len(group) > LEMMAS_SHOWN_PER_KIND + 40 else ""}</p>')
    parts.append("</section>")
    return "".join(parts)


def _scope_order(scope: str) -> tuple[int, str]:
    """``all N`` first, then ``N = 2``, ``N = 3``, … numerically."""
    tail = scope.rsplit(" ", 1)[-1]
    return (0, scope) if not tail.isdigit() else (1, tail.zfill(12))
