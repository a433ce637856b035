"""The netlist link section: the engine's trace that lets the trusted kernel prove that an
arithmetized netlist's circuit C equals the netlist (``verified_aat/kernel/netlist_link.py``).

The section (plain JSON) embeds the netlist file's text and sha256, and for every
netlist signal the affine *candidate forms* the arithmetizer kept for it (over gates of
C), each with the operand candidates it was built from; ``outputs[j]`` is the
candidate that C's output j materializes.  Gates that C pruned but a form mentions are
*shadow* gates, numbered after C's.  *Annotations* claim that a gate equals an affine
form over lower gates (scaled twins ``t = c·w`` and materialized sums ``m = F``): the
kernel proves them too, and uses them to keep every local lemma small.

The linear construction (:mod:`.linear`, the default) gives every signal one candidate,
a literal α + β·w, and needs no annotations; the depth-aware one (``cap=N``) proposes up to
three candidates per signal and annotations for its scaled twins and materialized sums.
The section is a pure function of the netlist text, the format, the mode and ``cap``: the
same inputs give byte-identical sections.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from dataclasses import replace
from fractions import Fraction
from typing import Any

from .affine import Engine, Form
from .ir import Circuit, Kind
from .json_format import circuit_sha256
from .netlists import Netlist

MAX_MEET = 100_000  # gates met on both sides of one annotation's lemma (the kernel's MAX_NODES)


def _q(value: Any) -> str:
    return str(Fraction(value))


def link_file(name: str) -> str:
    """The netlist file's base name as the section's ``file``, which the kernel prints in its theorem: every character
    that is not printable (``str.isprintable``: controls, format characters such as a bidirectional override,
    separators but the ASCII space), '/' or '\\' as '_', at most 255 characters, as the kernel's reader takes it (it
    refused a backslash or a tab and printed an ANSI escape raw: red team 20).  A label only: the section's sha256
    identifies the netlist, and ``check --circuit FILE`` compares bytes."""
    name = "".join(c if c.isprintable() and c not in "/\\" else "_" for c in name)[:255]
    return name if name not in ("", ".", "..") else "netlist"


def link_section(circuit: Circuit, eng: Engine, netlist: Netlist, cands: dict[str, list[tuple[Form, list[int]]]],
                 chosen: list[int], *, file: str, fmt: str, mode: str, data: bytes, text: str) -> dict[str, Any]:
    """The link section for ``circuit``, which ``eng`` has just built (``eng.final`` maps its wires)."""
    index = dict(eng.final)
    n = len(circuit.gates)
    # shadow gates: pruned wires the candidate forms mention, and what they are built from
    stack = [w for forms in cands.values() for form, _ in forms for w, _ in form.terms if w not in index]
    pruned: set[int] = set()
    while stack:
        w = stack.pop()
        if w not in pruned:
            pruned.add(w)
            stack.extend(a for a in eng.args[w] if a not in index and a not in pruned)
    order = sorted(pruned)
    for k, w in enumerate(order):
        index[w] = n + k
    shadow: list[list[Any]] = []
    for w in order:
        kind = eng.kinds[w]
        assert kind is not Kind.INPUT  # inputs are always kept
        shadow.append(["const", _q(eng.values[w])] if kind is Kind.CONST
                      else [kind.value, [index[a] for a in eng.args[w]]])

    def form_json(const: Any, terms: list[tuple[int, Any]]) -> list[Any]:
        return [_q(const), [[g, _q(c)] for g, c in sorted(terms)]]

    # annotations: scaled twins (the higher gate in terms of the lower), then materialized sums
    notes: dict[int, list[Any]] = {}
    for (w, c), t in eng._scaled.items():
        if t == w or w not in index or t not in index or Kind.CONST in (eng.kinds[w], eng.kinds[t]):
            continue
        if index[t] > index[w]:
            notes.setdefault(index[t], form_json(0, [(index[w], c)]))
        else:
            notes.setdefault(index[w], form_json(0, [(index[t], Fraction(1) / Fraction(c))]))
    alias: dict[int, tuple[Fraction, int]] = {}  # gate -> (c, base): a chain of one-term notes
    for g in sorted(notes):
        (w, c), = notes[g][1]
        k, base = alias.get(w, (Fraction(1), w))
        alias[g] = (Fraction(c) * k, base)
    for form, m in eng._mat.items():
        if m not in index or eng.kinds[m] is Kind.CONST or index[m] in notes:
            continue
        if any(w not in index for w, _ in form.terms):
            continue
        terms: dict[int, Fraction] = {}  # the sum over lower gates: shadows may be aliases of C's gates
        for w, c in form.terms:
            k, g = alias.get(index[w], (Fraction(1), index[w])) if index[w] > index[m] else (Fraction(1), index[w])
            terms[g] = terms.get(g, Fraction(0)) + c * k
        if all(g < index[m] for g in terms):
            notes[index[m]] = form_json(form.const, [(g, c) for g, c in terms.items() if c])
    signals = {name: [[form_json(f.const, [(index[w], c) for w, c in f.terms]), list(origin)]
                      for f, origin in cands[name]]
               for name in list(netlist.inputs) + [g.name for g in netlist.gates]}
    args = [g.args if g.kind is not Kind.INPUT else None for g in circuit.gates] + [
        () if s[0] == "const" else s[1] for s in shadow]  # a shadow gate is never an input (the assert above)
    deps = {g: [h for h, _ in form[1]] for g, form in notes.items()}
    return {"file": link_file(file), "format": fmt, "mode": mode, "sha256": hashlib.sha256(data).hexdigest(), "text": text,
            "shadow": shadow, "annotations": [[g, notes[g], _meet(g, deps, args)] for g in sorted(notes)],
            "signals": signals, "outputs": list(chosen)}


def _meet(t: int, notes: dict[int, list[int]], args: list[Any]) -> list[int]:
    """The cut the kernel proves annotation ``t`` at: the gates where t's definition and its annotation meet
    when both are expanded highest gate first (an annotated gate other than t by its annotation, an input
    (``args`` None) never).  Past MAX_MEET gates, the part met so far: any cut is sound, the kernel tries
    deeper ones where a lemma fails at it (docs/soundness.md N)."""
    def deps(g: int) -> list[int]:
        return notes[g] if g != t and g in notes else list(args[g] or ())
    left, right = set(deps(t)), set(notes[t])
    heap = [-g for g in left | right]
    heapq.heapify(heap)
    cut: set[int] = set()
    while heap and len(left) + len(right) <= MAX_MEET:
        g = -heapq.heappop(heap)
        if heap and -heap[0] == g:
            continue
        sides = [side for side in (left, right) if g in side]
        if len(sides) == 2 or args[g] is None:
            cut.add(g)
            continue
        for h in deps(g):
            if h not in sides[0]:
                sides[0].add(h)
                heapq.heappush(heap, -h)
    return sorted(cut)



def attach_link(circuit: Circuit, section: dict[str, Any]) -> Circuit:
    """``circuit`` whose provenance carries ``section`` (valid for this exact structure only)."""
    assert circuit.provenance is not None
    link = json.dumps({"circuit": circuit_sha256(circuit), "section": section}, separators=(",", ":"),
                      ensure_ascii=False)
    return replace(circuit, provenance=replace(circuit.provenance, netlist_link=link))


def netlist_section(circuit: Circuit) -> dict[str, Any] | None:
    """The link section ``circuit`` carries, or None (none, or made for another structure)."""
    prov = circuit.provenance
    if prov is None or prov.netlist_link is None:
        return None
    link = json.loads(prov.netlist_link)
    return link["section"] if link["circuit"] == circuit_sha256(circuit) else None


def carry_link(source: Circuit, target: Circuit) -> Circuit:
    """``target`` with ``source``'s link section when both have the same structure (else as it is)."""
    section = netlist_section(source)
    if section is None or target.provenance is None or circuit_sha256(target) != circuit_sha256(source):
        return target
    return replace(target, provenance=replace(target.provenance, netlist_link=source.provenance.netlist_link))
