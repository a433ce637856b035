"""What a certificate states about its own proof, compared with what the kernel derived: its lemma list (S11,
P5, U4, V4), its derived counts and argmax-set summaries (S9), and for a per-circuit certificate its format,
version, claimed status and hashes (S1).  One comparison for every kind of certificate; and the room the lemma
list leaves the kernel's own texts (S11: past twice the list's text no list can match, a rejection; the room's
value feeds nothing but the next charge).

This code can only reject.  The kernel decides its *own* lemma texts (``discharge.py``), never the list's,
and states its theorem from its own derivation, with the hashes it computes of the objects it read; a proof object collected here is checked against the
kernel's own text of the lemma it is filed under (S12c), never believed.  So a bug here can make a verdict
*rejected* or *not checked*, never *accepted*: like the defence interpreter, it is counted apart from the
trusted base (``tests/test_trusted_base.py``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections import defaultdict
from itertools import chain, count
from typing import Any, Mapping, Sequence

from .data import MAX_K, as_dict, as_list, need, within
from .problems import Problem

FORMAT = "verified-aat/certificate"
VERSION = 3
VERSIONS = (2, 3)  # 3: the argmax digest of 64-bit numbers; 2, its text (still read)
TOP_KEYS = {"format", "version", "claim", "construction", "info", "hashes", "circuit", "transformer", "hints",
            "derived", "lemmas", "result"}
OPTIONAL_TOP_KEYS = {"netlist", "timings", "original", "construction_document"}
SCHEMATIC_KEYS = {"format", "version", "construction", "depth_bound", "transformer", "hashes", "lemmas", "result"}
SCHEMATIC_OPTIONAL = {"info", "timings", "hints", "construction_document", "instance"}


def stated_document(ctx: Any) -> list[str]:  # ctx: a context.Context, which imports derivation, which imports this
    """S1: a per-circuit certificate of this version, with the format's keys, that claims a proof."""
    doc = as_dict(ctx.doc, "$", TOP_KEYS, OPTIONAL_TOP_KEYS)
    need(doc["format"] == FORMAT, "$.format", f"must be {FORMAT!r}")
    need(type(doc["version"]) is int and doc["version"] in VERSIONS, "$.version",
         "this kernel checks versions 2 and 3 (regenerate older certificates with certify), got {given!r}",
         given=doc["version"])
    need(type(doc["claim"]) is str, "$.claim", "expected a string")
    need(type(doc["construction"]) is str, "$.construction", "expected a string")
    need(type(doc["info"]) is dict, "$.info", "expected an object")
    result = as_dict(doc["result"], "$.result", {"status"}, {"engine"})
    need(result["status"] == "proved", "$.result.status", "the certificate claims {status!r}, not 'proved'",
         status=result["status"])
    return []


def stated_depth_bound(ctx: Any) -> list[str]:
    """S1: the informational depth bound ``info.depth_bound``, when stated, is an integer 1 <= K <= MAX_K (no theorem
    reads it)."""
    bound = ctx.doc["info"].get("depth_bound")
    need(bound is None or (type(bound) is int and 1 <= bound), "$.info.depth_bound",
         "must be an integer K >= 1, got {bound}", bound=bound)
    within(bound is None or bound <= MAX_K, "$.info.depth_bound", f"K = {bound} (at most {MAX_K})")
    return []


def stated_schematic(doc: dict[str, Any], version: int) -> list[Problem]:
    """P1: a schematic certificate of this version, with the format's keys, that claims a proof."""
    need(type(doc) is dict and type(doc.get("version")) is int and doc["version"] == version, "$.version",
         f"this kernel checks schematic version {version}")
    result = as_dict(doc.get("result"), "$.result", {"status"})
    need(result["status"] == "proved", "$.result.status", "the certificate claims {status!r}", status=result["status"])
    as_dict(doc, "$", SCHEMATIC_KEYS, SCHEMATIC_OPTIONAL)
    return []


def stated_hash(doc: dict[str, Any], what: str, mine: str) -> list[Problem]:
    """P1: the hash the certificate states for an embedded object is the kernel's."""
    given = as_dict(doc["hashes"], "$.hashes", {what})[what]
    return [] if given == mine else [Problem("the embedded {what} has hash {mine:16}, the certificate says {given:16}",
                                             {"what": what, "mine": mine, "given": given})]


def stated_hashes(ctx: Any) -> list[Problem]:
    """S1: the hashes the certificate states are the ones the kernel computed (the theorem names the kernel's); once
    enc(C) is built (S2), its hash too, which nothing else reads."""
    given = as_dict(ctx.doc["hashes"], "$.hashes", {"circuit", "transformer", "encoding"})
    if ctx.encoding is not None:
        ctx.hashes["encoding"] = encoding_digest(ctx.encoding)
    return [Problem("enc(C) as the kernel builds it for {name} has hash {mine:16}, the certificate's proof was about "
                    "an encoding with hash {given:16}", {"name": ctx.doc["construction"], "mine": v, "given": given[k]})
            if k == "encoding" else Problem("the embedded {what} has hash {mine:16}, the certificate says {given:16}",
                                            {"what": k, "mine": v, "given": given[k]})
            for k, v in ctx.hashes.items() if k in given and given[k] != v]


def encoding_digest(encoding: Any) -> str:  # an encoding.Encoding (not imported: reject-only)
    """sha256 of the encoding's canonical lines (docs/certificates.md, "Encoding hash")::

        coordinates c1 c2 …
        role|kind gate source slot|v1 v2 …     (one line per position; None as '-')
        slot|p c i                              (input slots)
        read|p c                                (read-out)
    """
    h = hashlib.sha256()
    h.update(("coordinates " + " ".join(encoding.coordinates) + "\n").encode())
    width = len(encoding.coordinates)  # the kernel's own rows: each of this width
    line = "role|%s %s %s %s|" + " ".join(["%s"] * width) + "\n"  # one format string per block of lines
    for start in range(0, len(encoding.rows), 4096):
        fields: list = []
        for role, row in zip(encoding.roles[start:start + 4096], encoding.rows[start:start + 4096]):
            fields += (role.kind, role.gate, "-" if role.source is None else role.source, "-" if role.slot is None else role.slot, *row)
        h.update((line * (len(fields) // (4 + width)) % tuple(fields)).encode())
    lines = [f"slot|{p} {c} {i}\n" for p, c, i in encoding.input_slots]
    lines += [f"read|{p} {c}\n" for p, c in encoding.readout]
    h.update("".join(lines).encode())
    return h.hexdigest()


def _differences(digest: str, entry: dict[str, Any], shown: dict[str, Any], keys: set[str]) -> list[Problem]:
    """Each field of a lemma entry that differs from the kernel's, in words (a text by where it first differs)."""
    out = []
    for key in sorted(k for k in keys if not _same(entry[k], shown[k])):
        given, mine = entry[key], shown[key]
        if key == "smt2" and type(given) is str:
            at = next((i for i, (a, b) in enumerate(zip(given, mine)) if a != b), min(len(given), len(mine)))
            out.append(Problem("lemma {id:12}: its text differs from the kernel's from character {at}",
                               {"id": digest, "at": at}))
        else:
            out.append(Problem("lemma {id:12}: its {field} is {given:40}, the kernel's {mine:40}",
                               {"id": digest, "field": {"uses": "use count", "smt2": "text"}.get(key, key),
                                "given": json.dumps(given), "mine": json.dumps(mine)}))
    return out


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # true != 1, 1.0 != 1


def entries(derivation: Any) -> dict[str, dict[str, Any]]:
    """A derivation's lemmas (``derivation.Derivation``) as lemma-list entries, by id (per-circuit and schematic)."""
    return {d: {"id": d, "kind": x.kind, "uses": x.uses, "smt2": x.text, "where": x.where}
            for d, x in derivation.lemmas.items()}


def match_lemmas(raw: Any, mine: Mapping[str, dict[str, Any]], keys: set[str], optional: set[str] = frozenset(),
                 proofs: dict[str, Any] | None = None, limit: int = 10_000_000) -> list[Problem]:
    """The certificate's lemma list ``raw`` must hold exactly the entries ``mine`` (lemma id → its entry, with
    ``keys``; ``where`` and ``kind`` of it name a missing lemma), each with at most the ``optional`` keys besides.
    A ``proof`` entry goes to ``proofs`` under its lemma's id."""
    listed: dict[str, dict[str, Any]] = {}
    for k, item in enumerate(as_list(raw, "$.lemmas", limit)):
        entry = dict(as_dict(item, f"$.lemmas[{k}]", keys, set(optional)))
        need(type(entry["id"]) is str and entry["id"] not in listed, f"$.lemmas[{k}].id", "ids must be distinct strings")
        if proofs is not None and "proof" in entry:
            proofs[entry["id"]] = entry["proof"]
        listed[entry["id"]] = {key: value for key, value in entry.items() if key in keys}
    problems = []
    for digest, expected in mine.items():
        entry = listed.pop(digest, None)
        shown = {key: value for key, value in expected.items() if key in keys}
        if entry is None:
            problems.append(Problem("the kernel's {kind} lemma {id:12} ({where:80}) is missing (dropped or edited)",
                                    {"id": digest, "kind": expected.get("kind"), "where": expected.get("where", "")}))
        elif not _same(entry, shown):
            problems += _differences(digest, entry, shown, keys)
    return problems + [Problem("lemma {id:12} ({kind!r:40}) is not a lemma the kernel derives (not an obligation of this proof)", {"id": d, "kind": e["kind"]})
                       for d, e in listed.items()]


def lemma_room(listed: Any) -> int:
    """Twice the characters of the certificate's lemma texts, and 10^7: its lemmas must be the kernel's (S11, P5), so
    no more is rendered (a 178 KB certificate had the kernel render 10^4 texts of 75 KB, 38 s and 1 GB: red team 9)."""
    return 2 * sum(len(e["smt2"]) for e in listed if type(e) is dict and type(e.get("smt2")) is str) + 10**7 \
        if type(listed) is list else 10**7


def charge(left: int | None, size: int) -> int | None:
    """``left`` less ``size`` characters of new lemma text (None: no bound); past the room, no list can match."""
    need(left is None or size <= left, "$.lemmas", "the kernel's lemmas hold more than twice the text of all of the "
         "certificate's lemmas, so the list cannot be the kernel's (docs/soundness.md S11)")
    return None if left is None else left - size


def summary(sets: Sequence[tuple[int, ...]], version: int = VERSION) -> dict[str, Any]:
    """An argmax-set list as the certificate states it: positions, distinct sets, their members, and the
    digest of docs/certificates.md (version 3: of little-endian 64-bit numbers; version 2: of text lines)."""
    number: dict[tuple[int, ...], int] = defaultdict(count().__next__)  # numbered in order of first use
    if sum(map(len, sets)) <= 16 * len(sets) + 10**6:  # each position's set hashed: linear in the members read
        ids = list(map(number.__getitem__, sets))
    else:  # wide sets shared by many positions: one hash per tuple object, taken in order of first use (no n²)
        first = dict(zip(map(id, sets), sets))
        ids = list(map(dict(zip(first, map(number.__getitem__, first.values()))).__getitem__, map(id, sets)))
    distinct = list(number)
    digest = hashlib.sha256()
    if version >= 3:
        for numbers in ([len(sets), len(distinct)], ids, map(len, distinct), chain.from_iterable(distinct)):
            digest.update(_little_endian(array("q", numbers)))
    else:
        _text_digest(digest, ids, distinct)
    return {"positions": len(sets), "distinct": len(number), "members": sum(map(len, number)),
            "digest": digest.hexdigest()}


def _little_endian(numbers: array) -> bytes:
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers.tobytes()


def _text_digest(digest: Any, ids: list[int], distinct: list[tuple[int, ...]]) -> None:
    """Version 2's digest: lines ``p:s``, then ``#s:members``, each block by one format string."""
    for start in range(0, len(ids), 65536):
        part = ids[start:start + 65536]
        pairs: list[int] = [0] * (2 * len(part))
        pairs[0::2], pairs[1::2] = range(start, start + len(part)), part
        digest.update((("%d:%d\n" * len(part)) % tuple(pairs)).encode())
    for start in range(0, len(distinct), 65536):
        part, flat = distinct[start:start + 65536], []
        for i, s in enumerate(part, start):
            flat.append(i)
            flat.extend(s)
        formats = {n: "#%d:" + " ".join(["%d"] * n) + "\n" for n in set(map(len, part))}
        digest.update(("".join(map(formats.__getitem__, map(len, part))) % tuple(flat)).encode())


def layers_needed(claims: Sequence[dict[int, tuple[Any, ...]]], readout: Sequence[tuple[int, int]]) -> int:
    """The first layer by which every output's claim holds, as the certificate states it."""
    return max((claims[p][c][2] for p, c in readout if c in claims[p]), default=0)


def count_base(claims: Any) -> int:
    """The claims settled at a layer <= 0 (a schedule.Claims: one count per shared pattern, as issue 22 wants)."""
    settled = {id(x): sum(s <= 0 for *_, s in x.values()) for x in {id(x): x for x in claims.patterns}.values()}
    return sum(map(settled.__getitem__, map(id, claims.patterns)))


def compare_derived(ctx: Any) -> list[Problem]:
    """S9: the certificate's ``derived`` section must be the kernel's own counts, key for key: T's layers, the layer
    by which every output's claim holds, the obligations by kind, each head's method and argmax-set summary."""
    n = len(ctx.rows)
    ctx.derivation.counts.update({"structure": n, "base": count_base(ctx.claims), "schedule": len(ctx.circuit.outputs),
                                  "attention": n * sum(len(fn.layer.heads) for fn in ctx.functions),
                                  "frame:structure": n * len(ctx.structural) * len(ctx.functions)})
    attention = [{"function": fn.number, "head": head.name, "layers": list(fn.layers),
                  "method": ctx.attention_methods[(fn.number, h)], "sets": summary(ctx.sets[(fn.number, h)], ctx.doc["version"])}
                 for fn in ctx.functions for h, head in enumerate(fn.layer.heads)]
    mine = {"layers": len(ctx.transformer.layers),
            "layers_needed": layers_needed(ctx.claims, ctx.encoding.readout),
            "obligations": {k: v for k, v in sorted(ctx.derivation.counts.items()) if v}, "attention": attention}
    derived = as_dict(ctx.doc["derived"], "$.derived", set(mine))
    return [Problem("{key}: the kernel derives {mine:160}, the certificate says {given:160}",
                    {"key": key, "mine": json.dumps(mine[key]), "given": json.dumps(derived[key])})
            for key in mine if not _same(derived[key], mine[key])]


def other_netlist(section: Any, given: tuple[str, bytes] | None) -> list[Problem]:
    """N: a netlist given with --circuit whose sha256 is not the one a link by candidates states (a link read only
    with --candidate-link): rejected as that link, and the link by steps, reject it."""
    stated = section.get("sha256") if type(section) is dict else None
    if given is None or type(stated) is not str or hashlib.sha256(given[1]).hexdigest() == stated:
        return []
    return [Problem("the given netlist {given} (sha256 {given_sha:16}) is not the certificate's embedded netlist "
                    "{name} (sha256 {sha:16})", {"given": given[0], "given_sha": hashlib.sha256(given[1]).hexdigest(),
                                                "name": str(section.get("file")), "sha": stated})]
