"""Circuit families: members compute their reference functions, stay in their
class, keep constant depth where promised, and bad requests are InputErrors."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.families import FAMILIES, MAX_N, build_family, family_names
from verified_aat.circuits.families.random_fsac import plan
from verified_aat.circuits.ir import Circuit, Domain, Kind
from verified_aat.circuits.measures import CircuitClass, classify, depth, first_gate_outside
from verified_aat.errors import InputError

ORDER = {CircuitClass.FNC0: 0, CircuitClass.FSAC0: 1, CircuitClass.FAC0: 2}
NAMES = sorted(FAMILIES)
BOOLEAN = [n for n in NAMES if FAMILIES[n].domain is Domain.BOOLEAN]

# Depth of the member n = 10, by hand from each builder's docstring.
DEPTH_AT_10 = {
    "sum": 1, "sum-tree": 4, "inner-product": 2, "sum-of-products": 3, "power-sum": 3,
    "product-tree": 4, "unbounded-product": 1, "polynomial-identity": 2, "relu": 3, "abs": 2,
    "compare": 6, "wide-sum-sign": 2, "max": 8, "min": 8, "argmax": 8, "threshold": 5,
    "majority": 5, "parity": 6, "random-fsac": 6,
    # tournaments 10 -> 5 -> 3 -> 2 -> 1: the odd one out (depth 5) meets the
    # depth-15 winner last; max negates it (+1), min negates the winner (+2)
    "max-tree": 19, "min-tree": 20,
}


def sizes(name: str) -> list[int]:
    """A few member sizes n to test, starting at the family's smallest."""
    low = FAMILIES[name].min_n
    return sorted({low, low + 1, low + 2, low + 3, 5, 8, 13} - set(range(low)))


@lru_cache(maxsize=None)
def member(name: str, n: int) -> Circuit:
    return build_family(name, n)


PLAIN = st.fractions(min_value=-20, max_value=20, max_denominator=12)
TIES = st.sampled_from([Fraction(v) for v in (-2, -1, Fraction(-1, 2), 0, Fraction(1, 3), 1, 2)])
RATIONALS = st.one_of(PLAIN, TIES)
BITS = st.sampled_from([Fraction(0), Fraction(1)])


def as_fractions(values: tuple) -> list[Fraction]:
    return [Fraction(v) for v in values]


# -- semantics --------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_member_matches_reference(name: str, data: st.DataObject) -> None:
    family = FAMILIES[name]
    n = data.draw(st.sampled_from(sizes(name)), label="n")
    elements = BITS if family.domain is Domain.BOOLEAN and data.draw(st.booleans()) else RATIONALS
    xs = data.draw(st.lists(elements, min_size=family.n_inputs(n), max_size=family.n_inputs(n)), label="xs")
    assert list(evaluate(member(name, n), xs)) == family.reference(xs)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fill", [0, 1, Fraction(-3, 4)])
def test_constant_inputs_all_ties(name: str, fill: Fraction) -> None:
    family = FAMILIES[name]
    for n in sizes(name):
        xs = [Fraction(fill)] * family.n_inputs(n)
        assert list(evaluate(member(name, n), xs)) == family.reference(xs), n


@pytest.mark.parametrize("name", BOOLEAN)
def test_boolean_family_exhaustively(name: str) -> None:
    family = FAMILIES[name]
    for n in range(family.min_n, 9):
        circuit = member(name, n)
        for bits in itertools.product((0, 1), repeat=family.n_inputs(n)):
            xs = as_fractions(bits)
            assert list(evaluate(circuit, xs)) == family.reference(xs), (n, bits)


def test_boolean_references_mean_what_they_say() -> None:
    for bits in itertools.product((0, 1), repeat=6):
        xs, ones = as_fractions(bits), sum(bits)
        assert FAMILIES["majority"].reference(xs) == [int(ones > 3)]
        assert FAMILIES["threshold"].reference(xs) == [int(ones >= 3)]  # theta = 6 // 3 + 1
        assert FAMILIES["parity"].reference(xs) == [ones % 2]


def test_max_min_argmax_pick_the_leftmost_extreme() -> None:
    xs = as_fractions((1, 3, Fraction(1, 2), 3, -4, 3))
    assert evaluate(member("max", 6), xs) == (3,)
    assert evaluate(member("min", 6), xs) == (-4,)
    assert evaluate(member("argmax", 6), xs) == (0, 1, 0, 0, 0, 0)
    assert evaluate(member("max-tree", 6), xs) == (3,)
    assert evaluate(member("min-tree", 6), xs) == (-4,)


def test_polynomial_identity_outputs_agree_pairwise() -> None:
    out = evaluate(member("polynomial-identity", 3), as_fractions((1, Fraction(-2, 3), 5, 7, 0, -5)))
    assert out == (64, 64, Fraction(4, 9), Fraction(4, 9), 0, 0)


# -- class, fan-in and depth --------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_class_of_members(name: str) -> None:
    family = FAMILIES[name]
    for n in sizes(name) + [20]:
        cls, has_sign = classify(member(name, n))
        assert ORDER[cls] <= ORDER[family.circuit_class], n
        assert has_sign <= family.has_sign, n
    cls, has_sign = classify(member(name, 20))
    assert (cls, has_sign) == (family.circuit_class, family.has_sign)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "unbounded-product"])
def test_every_multiplication_is_binary(name: str) -> None:
    for n in sizes(name) + [20]:
        circuit = member(name, n)
        assert all(g.fan_in == 2 for g in circuit.gates if g.kind is Kind.MUL), n
        assert first_gate_outside(circuit, max_add=None, max_mul=2) is None


@pytest.mark.parametrize("n", [3, 4, 17])
def test_unbounded_product_is_fac0_and_outside_fsac0(n: int) -> None:
    circuit = member("unbounded-product", n)
    assert classify(circuit) == (CircuitClass.FAC0, False)
    muls = [g for g in circuit.gates if g.kind is Kind.MUL]
    assert [g.fan_in for g in muls] == [n]
    assert first_gate_outside(circuit, max_add=None, max_mul=2) is not None


@pytest.mark.parametrize("name", ["sum-tree", "product-tree", "max-tree", "min-tree", "compare", "relu", "abs"])
def test_bounded_fan_in_families_are_fnc0(name: str) -> None:
    circuit = member(name, 20)
    assert first_gate_outside(circuit, max_add=2, max_mul=2) is None
    assert classify(circuit)[0] is CircuitClass.FNC0


@pytest.mark.parametrize("name", NAMES)
def test_depth_at_10(name: str) -> None:
    assert depth(member(name, 10)) == DEPTH_AT_10[name]


@pytest.mark.parametrize("name", [n for n in NAMES if FAMILIES[n].constant_depth])
def test_constant_depth_does_not_grow(name: str) -> None:
    big = 300 if FAMILIES[name].max_n >= 10**5 else 60
    assert depth(member(name, 8)) == depth(member(name, 29)) == depth(member(name, big))


@pytest.mark.parametrize("name,per_level", [("sum-tree", 1), ("product-tree", 1), ("max-tree", 5),
                                            ("min-tree", 5)])
def test_tree_depth_is_logarithmic(name: str, per_level: int) -> None:
    for n in (2, 3, 7, 8, 9, 100):
        assert depth(member(name, n)) <= per_level * math.ceil(math.log2(n)), n
    for k in (1, 3, 6):
        assert depth(member(name, 2**k)) == per_level * k
    assert depth(member(name, 1)) == 0


def test_random_fsac_depth_six_and_deterministic() -> None:
    for n in range(2, 60):
        assert depth(member("random-fsac", n)) == 6, n
    assert build_family("random-fsac", 17) == build_family("random-fsac", 17)
    assert plan(17) == plan(17) and plan(17) != plan(18)


def test_sizes_in_closed_form() -> None:
    for n in (1, 10, 1000):
        assert member("inner-product", n).size == 3 * n + 1
        assert member("sum", n).size == n + 1
        assert member("relu", n).size == 5 * n + 1            # per x: x/2, sign, mul, add; const 1/2
    assert member("unbounded-product", 10).size == 11
    # max: n inputs, n negations, const -1, n-1 consts 2j, 6 gates per pair, n adds, n signs, n muls, 1
    assert member("max", 10).size == 10 + 10 + 1 + 9 + 6 * 45 + 3 * 10 + 1


# -- the registry -------------------------------------------------------------
def test_registry_entries_are_consistent() -> None:
    assert family_names() == NAMES and len(NAMES) >= 15
    for name, family in FAMILIES.items():
        assert family.name == name and family.description
        circuit = member(name, max(family.min_n, 4))
        assert circuit.n_inputs == family.n_inputs(max(family.min_n, 4))
        assert circuit.domain is family.domain
        assert family.build(max(family.min_n, 4)) == circuit


def test_unknown_family_lists_the_known_ones() -> None:
    with pytest.raises(InputError) as info:
        build_family("inner_product", 3)
    message = str(info.value)
    assert "inner_product" in message and info.value.file is None
    for name in NAMES:
        assert name in message


@pytest.mark.parametrize("name", NAMES)
def test_sizes_out_of_range_are_input_errors(name: str) -> None:
    family = FAMILIES[name]
    if family.min_n > 0:
        with pytest.raises(InputError, match="at least"):
            build_family(name, family.min_n - 1)
    with pytest.raises(InputError, match="at most"):
        build_family(name, family.max_n + 1)
    assert family.max_n <= MAX_N


@pytest.mark.parametrize("n", [-1, 2.5, "3", True])
def test_bad_n_is_an_input_error(n: object) -> None:
    with pytest.raises(InputError):
        build_family("sum", n)  # type: ignore[arg-type]


def test_sum_of_nothing_is_zero() -> None:
    circuit = build_family("sum", 0)
    assert circuit.n_inputs == 0 and evaluate(circuit, []) == (0,)


# -- scale ----------------------------------------------------------------------
@pytest.mark.parametrize("name,n", [("inner-product", 33_333), ("sum", 100_000), ("relu", 20_000)])
def test_hundred_thousand_gate_members_build(name: str, n: int) -> None:
    """Large members build and evaluate correctly (their speed is measured in benchmarks/, not here)."""
    circuit = build_family(name, n)
    assert circuit.size >= 100_000
    x = [1] * circuit.n_inputs
    assert len(evaluate(circuit, x)) == len(circuit.outputs)
