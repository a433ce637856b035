"""The encoding hash (docs/certificates.md, "Encoding hash") as the engine and the kernel compute it, block by
block with one format string, equals its definition line by line, for any rows: ints, signed fractions, rows
of the wrong width (which take the line-by-line path), roles with and without source and slot."""

from __future__ import annotations

import hashlib
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from verified_aat.certificates.kernel_form import encoding_digest as engine_digest
from verified_aat.constructions.encoding import Encoding as EngineEncoding, Role as EngineRole
from verified_aat.kernel.agreement import encoding_digest as kernel_digest
from verified_aat.kernel.encoding import Encoding as KernelEncoding, Role as KernelRole

VALUES = st.one_of(st.integers(-10**30, 10**30), st.fractions(max_denominator=10**6).filter(lambda q: q.denominator > 1))


def _definition(coordinates, roles, rows, slots, readout) -> str:
    lines = ["coordinates " + " ".join(coordinates) + "\n"]
    for role, row in zip(roles, rows):
        source = "-" if role[2] is None else role[2]
        slot = "-" if role[3] is None else role[3]
        lines.append(f"role|{role[0]} {role[1]} {source} {slot}|{' '.join(map(str, row))}\n")
    lines += [f"slot|{p} {c} {i}\n" for p, c, i in slots] + [f"read|{p} {c}\n" for p, c in readout]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


@st.composite
def layouts(draw):  # type: ignore[no-untyped-def]
    width = draw(st.integers(0, 4))
    n = draw(st.integers(0, 9000 if draw(st.booleans()) else 12))  # past one block of 4,096 lines
    small = draw(st.booleans())
    rows = [tuple(draw(st.lists(VALUES, min_size=width, max_size=width))) if not small or i < 3 else (i % 7,) * width
            for i in range(n)]
    if n and draw(st.booleans()):
        rows[draw(st.integers(0, n - 1))] += (Fraction(1, 3),)  # one row of the wrong width
    roles = [draw(st.sampled_from([("gate", i, None, None), ("edge", i, i + 1, 0), ("sink", i, i, None), ("a%s", i, None, 2)]))
             if i < 5 else ("edge", i, i - 1, i % 3) for i in range(n)]
    coordinates = tuple(f"c{k}" for k in range(width))
    slots = [(i, 0, i) for i in range(min(n, 3))]
    readout = [(i, 0) for i in range(min(n, 2))]
    return coordinates, roles, rows, slots, readout


@settings(max_examples=60, deadline=None)
@given(layout=layouts())
def test_both_digests_equal_the_line_by_line_definition(layout):
    coordinates, roles, rows, slots, readout = layout
    want = _definition(*layout)
    engine = EngineEncoding("x", coordinates, tuple(rows), tuple(slots), tuple(readout),
                            tuple(EngineRole(*r) for r in roles), 0)
    kernel = KernelEncoding(coordinates, tuple(rows), tuple(KernelRole(*r) for r in roles), tuple(slots),
                            tuple(readout), ())
    assert engine_digest(engine) == want
    if len({len(row) for row in rows} | {len(coordinates)}) == 1:  # the kernel's own rows have one width
        assert kernel_digest(kernel) == want


@settings(max_examples=40, deadline=None)
@given(sets=st.lists(st.lists(st.integers(0, 40), min_size=1, max_size=3, unique=True).map(lambda s: tuple(sorted(s))),
                     max_size=30), repeat=st.integers(1, 5000))
def test_the_argmax_set_digest_is_the_same_in_the_engine_and_the_kernel(sets, repeat):
    """The kernel's summary (agreement.py, block by block) and the engine's sets_digest, past one block of lines."""
    from verified_aat.certificates.attention_digest import sets_digest
    from verified_aat.kernel.agreement import summary
    sets = sets * repeat if len(sets) * repeat <= 140_000 else sets
    number: dict = {}
    ids = [number.setdefault(s, len(number)) for s in sets]
    assert summary(sets)["digest"] == sets_digest(ids, list(number))


def _sets_definition(ids: list[int], distinct: list[tuple[int, ...]]) -> str:
    """docs/certificates.md's argmax digest (version 3), number by number with struct."""
    import struct
    numbers = [len(ids), len(distinct), *ids, *map(len, distinct), *(m for s in distinct for m in s)]
    return hashlib.sha256(b"".join(struct.pack("<q", n) for n in numbers)).hexdigest()


@settings(max_examples=15, deadline=None)
@given(sizes=st.lists(st.integers(0, 3), min_size=1, max_size=8), count=st.one_of(st.integers(1, 40),
                                                                                  st.integers(65_530, 70_000)),
       seed=st.integers(0, 9))
def test_the_argmax_set_digest_is_its_definition_past_one_block_of_sets(sizes, count, seed):
    """Both digests (sets of mixed sizes and an empty one, past 65,536 distinct sets) equal the definition number by
    number; and version 2's, which the kernel still reads, its text: ``p:s`` per position, then ``#s:j1 j2 …``."""
    import random

    from verified_aat.certificates.attention_digest import sets_digest
    from verified_aat.kernel.agreement import summary
    rng = random.Random(seed)
    distinct = [()] + [(10 * i, *sorted(rng.sample(range(10 * i + 1, 10**8), sizes[i % len(sizes)]))) for i in range(count)]
    ids = list(range(len(distinct))) + [rng.randrange(len(distinct)) for _ in range(50)]
    expected = _sets_definition(ids, distinct)
    assert sets_digest(ids, distinct) == expected
    assert summary([distinct[i] for i in ids])["digest"] == expected
    text = "".join(f"{p}:{s}\n" for p, s in enumerate(ids)) + "".join(
        f"#{s}:{' '.join(map(str, members))}\n" for s, members in enumerate(distinct))
    assert summary([distinct[i] for i in ids], version=2)["digest"] == hashlib.sha256(text.encode()).hexdigest()


@settings(max_examples=60, deadline=None)
@given(sets=st.lists(st.lists(st.integers(0, 10**18), min_size=1, max_size=5, unique=True).map(lambda s: tuple(sorted(s))),
                     min_size=1, max_size=40), picks=st.lists(st.integers(0, 10**6), max_size=200),
       offset=st.sampled_from([0, 9, 10, 99_999, 10**12]))
def test_the_argmax_set_digest_of_arrays_is_its_sets_definition(sets, picks, offset):
    """The key joins' sets (int64 arrays: set ids, offsets, members) hash to the definition's digest, for numbers up
    to 10^18, sets of mixed sizes, an empty first set; and the kernel's summary of the same sets agrees."""
    import numpy as np

    from verified_aat.certificates.attention_digest import sets_digest
    from verified_aat.kernel.agreement import summary
    from verified_aat.transformer.key_join import _Members
    ids = [offset % len(sets) if not picks else (p + offset) % len(sets) for p in picks]
    offsets = np.array([0, *np.cumsum([len(s) for s in sets])], np.int64)
    members = np.array([m for s in sets for m in s], np.int64)
    assert sets_digest(np.array(ids, np.int64), _Members(offsets, members)) == _sets_definition(ids, sets)
    empty = _Members(np.array([0, *offsets.tolist()], np.int64), members)  # a first set with no member
    assert sets_digest(np.array(ids, np.int64) + 1, empty) == _sets_definition([i + 1 for i in ids], [(), *sets])
    if len(set(sets)) == len(sets) and sorted(set(ids)) == list(range(len(sets))) and \
            [ids.index(k) for k in range(len(sets))] == sorted(ids.index(k) for k in range(len(sets))):
        assert summary([sets[i] for i in ids])["digest"] == _sets_definition(ids, sets)  # numbered by first use


def test_wide_sets_shared_by_many_positions_are_numbered_by_content_in_linear_time():
    """Past 16 members a position the kernel hashes each tuple object once, not each position's: equal sets held by
    different objects still get one number (in order of first use), and the digest is the definition's."""
    from verified_aat.kernel.agreement import summary
    wide, twin = tuple(range(40_000)), tuple(range(40_000))
    assert wide is not twin
    sets = [(7,), wide, twin, (7,), (1, 2)] + [wide, twin] * 20_000
    assert sum(map(len, sets)) > 16 * len(sets) + 10**6  # the by-object route
    found = summary(sets)
    ids = [0, 1, 1, 0, 2] + [1, 1] * 20_000
    assert found["digest"] == _sets_definition(ids, [(7,), wide, (1, 2)])
    assert (found["positions"], found["distinct"], found["members"]) == (len(sets), 3, 40_003)


def test_a_version_2_certificate_is_still_checked_with_its_text_digest():
    """Version 3 changed only the argmax digest: a saved version-2 certificate (text digest) is accepted; a version
    number that does not match the digests' form is rejected at the derived counts (S9), both ways."""
    import json

    import mutants
    from checking import check
    from verified_aat.certificates.document import build_certificate, dumps_certificate
    from verified_aat.constructions.registry import get_construction
    from verified_aat.symbolic.certify import certify
    result = certify(mutants.probe_circuit(), get_construction("gate-edge"))
    v3 = json.loads(dumps_certificate(build_certificate(result, include_timings=False)))
    assert v3["version"] == 3 and check(v3).accepted
    v2 = json.loads(json.dumps(v3))
    v2["version"] = 2
    for claim, entry in zip(result.attention, v2["derived"]["attention"]):
        ids, distinct = [int(s) for s in claim.sets.set_ids], [tuple(map(int, s)) for s in claim.sets.distinct]
        text = "".join(f"{p}:{s}\n" for p, s in enumerate(ids)) + "".join(
            f"#{s}:{' '.join(map(str, members))}\n" for s, members in enumerate(distinct))
        entry["sets"]["digest"] = hashlib.sha256(text.encode()).hexdigest()
    assert v2["derived"] != v3["derived"] and check(v2).accepted
    for doc, version in ((v2, 3), (v3, 2)):
        doc["version"] = version
        report = check(doc)
        assert not report.accepted and "derived" in " ".join(report.reasons)
