"""The kernel's fast paths give what the plain loops they replaced gave (issue 22, check at 10^6 gates).

Each reference below is the replaced code, kept here only to compare against: an argmax-set summary numbered by
tuple object (agreement.summary) and a sum that scales each coefficient object once (sparse_poly.add).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.kernel.agreement import summary
from verified_aat.kernel.data import MAX_BITS, bits
from verified_aat.kernel.sparse_poly import TooLarge, add, multiply


def _summary_reference(sets):  # type: ignore[no-untyped-def]
    number: dict = {}
    ids = []
    for s in sets:
        ids.append(number.setdefault(s, len(number)))
    digest = hashlib.sha256()
    digest.update("".join(f"{p}:{n}\n" for p, n in enumerate(ids)).encode())
    digest.update("".join(f"#{i}:" + " ".join(map(str, s)) + "\n" for i, s in enumerate(number)).encode())
    return {"positions": len(sets), "distinct": len(number), "members": sum(map(len, number)),
            "digest": digest.hexdigest()}


def _add_reference(out, q, c=1, shift=()):  # type: ignore[no-untyped-def]
    for m, v in q.items():
        key = tuple(sorted(m + shift)) if shift else m
        s = out.get(key, 0) + c * v
        if s:
            out[key] = s
            if bits(s) > MAX_BITS:
                raise TooLarge("bits")
        else:
            out.pop(key, None)
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=12).map(tuple), min_size=1, max_size=20),
       st.lists(st.tuples(st.integers(0, 100), st.booleans()), max_size=80))
def test_the_set_summary_is_the_plain_numbering(pool, picks) -> None:  # type: ignore[no-untyped-def]
    """Shared tuple objects, equal copies of them and wide sets: numbered by first use of the value (version 2's
    text digest; version 3's is the same numbering hashed as 64-bit numbers, tests/test_encoding_digest.py)."""
    sets = [tuple(list(pool[i % len(pool)])) if copy else pool[i % len(pool)] for i, copy in picks]
    assert summary(sets, version=2) == _summary_reference(sets)


coefficients = st.one_of(st.integers(-5, 5), st.fractions(max_denominator=7), st.sampled_from([Fraction(1, 3), 1, -1]))
polys = st.dictionaries(st.lists(st.integers(-4, 4), max_size=3).map(lambda m: tuple(sorted(m))), coefficients,
                        max_size=12).map(lambda p: {m: v for m, v in p.items() if v})


@settings(max_examples=500, deadline=None)
@given(polys, polys, coefficients, st.lists(st.integers(-4, 4), max_size=2).map(lambda m: tuple(sorted(m))))
def test_add_is_the_plain_sum(out, q, c, shift) -> None:  # type: ignore[no-untyped-def]
    shared = Fraction(2, 3)  # many terms holding one coefficient object, as a long sum's do
    q = {**q, **{(9, k): shared for k in range(3)}}
    mine, reference = add(dict(out), q, c, shift), _add_reference(dict(out), q, c, shift)
    assert mine == reference and all(type(mine[m]) is type(reference[m]) for m in mine)


def test_a_constant_times_a_long_sum_is_within_the_monomial_limit() -> None:
    """A product no larger than one of its factors is not refused for its size (a 333,333-term mean in the
    10^6-gate inner-product's last lemma, which Z3 decided in 1.7 GB)."""
    long = {(-1 - i,): Fraction(1, 3) for i in range(100_001)}
    assert multiply({(): 3}, long) == {m: 1 for m in long}


def test_the_normal_form_decides_a_mean_past_the_monomial_limit() -> None:
    """The 10^6-gate inner-product's last lemma in small: n times the mean of n gate values is their sum, for n past
    10^5 (was left to Z3, which took 1.7 GB at n = 333,333); a false variant stays undecided, never proved."""
    from verified_aat.kernel.identity import decide

    n = 120_000
    names = " ".join(f"y{i}" for i in range(n))
    head = "(set-logic QF_NRA)\n" + "".join(f"(declare-const y{i} Real)\n" for i in range(n))
    mean = f"(/ (+ {names}) {n}.0)"
    assert decide(head + f"(assert (not (= (* {n}.0 {mean}) (+ {names}))))\n(check-sat)\n") is True
    assert decide(head + f"(assert (not (= (* {n}.0 {mean}) (+ {names} 1.0))))\n(check-sat)\n") is None


def _circuit(output: int):  # type: ignore[no-untyped-def]
    from verified_aat.kernel.data import load_circuit
    return load_circuit({"gates": [["input", 0], ["input", 1]], "outputs": [output]}, "$")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-6, 6), st.integers(0, 3)), min_size=1, max_size=25))
def test_the_key_join_is_the_plain_argmin(rows) -> None:  # type: ignore[no-untyped-def]
    """attention.join (each row key once, from dict.fromkeys; issue 22) against argmin_j (rk_i - ck_j)^2 + pen_j on
    every pair, with row and column key the first coordinate and the penalty the second."""
    from verified_aat.kernel.attention import join

    sets = join(rows, {"row_key": _circuit(0), "col_key": _circuit(0), "col_penalty": _circuit(1)}, [10**9])
    for (a, _), chosen in zip(rows, sets):
        costs = [(a - k) ** 2 + pen for k, pen in rows]
        assert chosen == tuple(j for j, cost in enumerate(costs) if cost == min(costs))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 4), st.tuples(st.just(1), st.integers(1, 2), st.integers(-3, 3)),
                                max_size=4), min_size=1, max_size=6), st.lists(st.integers(0, 5), max_size=30))
def test_the_base_count_is_the_plain_count(shared, which) -> None:  # type: ignore[no-untyped-def]
    """agreement.count_base reads settle layers from the shared patterns (issue 22) as from each claims[p]."""
    from verified_aat.kernel.encoding import Role
    from verified_aat.kernel.agreement import count_base
    from verified_aat.kernel.schedule import Claims

    patterns = [shared[w % len(shared)] for w in which]
    claims = Claims(patterns, [Role("gate", p) for p in range(len(patterns))])
    assert count_base(claims) == sum(1 for p in range(len(claims)) for _, _, s in claims[p].values() if s <= 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 10**7), st.integers(0, 40), st.integers(-5, 100))
def test_a_seeded_value_is_the_plain_one(seed, j, c, before) -> None:  # type: ignore[no-untyped-def]
    """defence_sample.SEEDED (issue 22: made once) gives the value each step made from the hash."""
    from verified_aat.kernel.defence_compile import rational
    from verified_aat.kernel.defence_sample import SEEDED

    h = hash((seed, j, c, before))
    mine, plain = SEEDED[h % 19][h // 19 % 4], rational(Fraction(h % 19 - 9, h // 19 % 4 + 1))
    assert mine == plain and type(mine) is type(plain)
