"""Arithmetization of netlists: exact (polynomial over Q) and threshold (sign gates, {0,1})."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.arithmetize import arithmetize, import_netlist
from verified_aat.circuits.linear import gate_bound
from verified_aat.circuits.evaluate import compile_circuit, evaluate
from verified_aat.circuits.ir import Circuit, Domain, Kind
from verified_aat.circuits.measures import depth, measure
from verified_aat.circuits.netlists import BoolGate, Netlist, measure_netlist, parse_bench, parse_blif, \
    read_netlist, simulate_words
from verified_aat.errors import InputError

from netlist_helpers import SHARED, TABLE, needs_shared, netlists

MODES = ("exact", "threshold")
N_RANDOM = 2000


def poly_semantics(n: Netlist, xs: list[Fraction]) -> tuple[Fraction, ...]:
    """The exact mode's polynomial, computed gate by gate independently of the arithmetizer."""
    env = dict(zip(n.inputs, xs))
    for g in n.gates:
        v = [env[a] for a in g.args]
        prod = lambda ys: __import__("math").prod(ys, start=Fraction(1))  # noqa: E731
        if g.op == "CONST0" or g.op == "CONST1":
            r = Fraction(int(g.op == "CONST1"))
        elif g.op in ("BUFF", "NOT"):
            r = v[0] if g.op == "BUFF" else 1 - v[0]
        elif g.op in ("AND", "NAND"):
            r = prod(v) if g.op == "AND" else 1 - prod(v)
        elif g.op in ("OR", "NOR"):
            r = 1 - prod(1 - y for y in v) if g.op == "OR" else prod(1 - y for y in v)
        elif g.op in ("XOR", "XNOR"):
            r = v[0]
            for y in v[1:]:
                r = r + y - 2 * r * y
            r = r if g.op == "XOR" else 1 - r
        else:
            p = prod(y if lit == "1" else 1 - y for lit, y in zip(g.cube, v) if lit != "-")
            r = p if g.polarity else 1 - p
        env[g.name] = r
    return tuple(env[o] for o in n.outputs)


def step_depth(n: Netlist) -> int:
    """The netlist's depth counting a k-input gate as ceil(log2 k) levels (NOT, BUFF: none)."""
    d = dict.fromkeys(n.inputs, 0)
    for g in n.gates:
        d[g.name] = max((d[a] for a in g.args), default=0) + math.ceil(math.log2(max(len(g.args), 1)))
    return max((d[o] for o in n.outputs), default=0)


def check_strict(c: Circuit, mode: str) -> None:
    """FSAC⁰[sign]: binary muls only; exact mode has no sign gates."""
    assert all(g.fan_in == 2 for g in c.gates if g.kind is Kind.MUL)
    assert all(g.fan_in >= 2 for g in c.gates if g.kind is Kind.ADD)
    if mode == "exact":
        assert not any(g.kind is Kind.SIGN for g in c.gates)
    assert c.domain is (Domain.RATIONALS if mode == "exact" else Domain.BOOLEAN)


def agree_on_vectors(n: Netlist, c: Circuit, vecs: list[list[int]]) -> None:
    f = compile_circuit(c)
    words = [sum(v[i] << k for k, v in enumerate(vecs)) for i in range(len(n.inputs))]
    sim = simulate_words(n, words, len(vecs))
    for k, v in enumerate(vecs):
        assert f(*v) == tuple((w >> k) & 1 for w in sim), v


@needs_shared
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rel", sorted(TABLE))
def test_shared_netlists_arithmetize_correctly(rel: str, mode: str) -> None:
    path = str(SHARED / rel)
    c = import_netlist(path, mode)
    netlist, fmt = read_netlist(path)
    m = measure_netlist(netlist)
    check_strict(c, mode)
    assert c.n_inputs == len(netlist.inputs) and c.input_names == netlist.inputs
    assert c.output_names == netlist.outputs
    p = c.provenance
    assert p is not None and p.source_format == fmt and p.source_path == path and p.arithmetization == mode
    assert (p.netlist_gates, p.netlist_depth, p.netlist_max_fan_in) == (m.gates, m.depth, m.max_fan_in)
    assert p.netlist_gate_types == m.gate_types
    # at most 3 levels per binary step: a k-input gate is ceil(log2 k) steps deep, NOT/BUFF none
    assert depth(c) <= 3 * step_depth(netlist) + 2
    assert c.size <= gate_bound(netlist)
    if rel.endswith("c17.bench"):
        vecs = [list(v) for v in itertools.product((0, 1), repeat=5)]
    else:
        rng = random.Random(f"{rel}/{mode}")
        vecs = [[rng.randint(0, 1) for _ in netlist.inputs] for _ in range(N_RANDOM)]
    agree_on_vectors(netlist, c, vecs)


@needs_shared
@pytest.mark.parametrize("rel", ["iscas85/c17.bench", "epfl/dec.blif", "epfl/ctrl.blif"])
def test_exact_mode_is_the_polynomial_on_rationals(rel: str) -> None:
    netlist, _ = read_netlist(str(SHARED / rel))
    c = arithmetize(netlist, "exact")
    rng = random.Random(3)
    for _ in range(3):
        xs = [Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in netlist.inputs]
        assert evaluate(c, xs) == poly_semantics(netlist, xs)


def test_c17_nand_on_rationals() -> None:
    n = parse_bench("INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NAND(a, b)\n")
    c = arithmetize(n, "exact")
    for a, b in [(Fraction(1, 3), Fraction(-2)), (Fraction(5, 7), Fraction(7, 5)), (Fraction(0), Fraction(9))]:
        assert evaluate(c, [a, b]) == (1 - a * b,)
    # 1 − ab is irreducible and −ab needs depth 2 (mul(mul(−1, a), b)), so 3 is optimal
    assert depth(c) == 3 and measure(c).size == 7  # a, b, ab, 1, -1, -ab, 1 - ab


def test_outputs_that_are_inputs_or_constants() -> None:
    n = parse_blif(".model m\n.inputs a b\n.outputs b one zero a nb\n.names one\n1\n.names zero\n"
                   ".names b nb\n0 1\n.end\n", "m.blif")
    for mode in MODES:
        c = arithmetize(n, mode)
        assert c.outputs[0] == c.input_gates[1] and c.outputs[3] == c.input_gates[0]
        assert c.gates[c.outputs[1]].kind is Kind.CONST and c.gates[c.outputs[1]].value == 1
        assert c.gates[c.outputs[2]].kind is Kind.CONST and c.gates[c.outputs[2]].value == 0
        assert c.output_names == ("b", "one", "zero", "a", "nb")
        for a, b in itertools.product((0, 1), repeat=2):
            assert evaluate(c, [a, b]) == (b, 1, 0, a, 1 - b)


def test_buffers_and_double_negation_cost_nothing() -> None:
    n = parse_bench("INPUT(a)\nINPUT(b)\nOUTPUT(y)\nt = BUFF(a)\nu = NOT(t)\nv = NOT(u)\ny = AND(v, b)\n")
    for mode in MODES:
        c = arithmetize(n, mode)
        assert depth(c) == 1 and c.size == 3  # a, b, a*b


@pytest.mark.parametrize(("op", "bound"), [("OR", 3), ("NOR", 4), ("AND", 3), ("NAND", 4)])
def test_threshold_mode_uses_sign_for_wide_gates(op: str, bound: int) -> None:
    names = [f"x{i}" for i in range(20)]
    n = parse_bench("".join(f"INPUT({x})\n" for x in names) + f"OUTPUT(y)\ny = {op}({', '.join(names)})\n")
    c = arithmetize(n, "threshold")
    assert any(gate.kind is Kind.SIGN for gate in c.gates)
    assert depth(c) <= bound < depth(arithmetize(n, "exact"))
    rng = random.Random(op)
    vecs = [[0] * 20, [1] * 20] + [[int(i == j) for i in range(20)] for j in range(20)]
    vecs += [[int(i != j) for i in range(20)] for j in range(20)]
    agree_on_vectors(n, c, vecs + [[rng.randint(0, 1) for _ in range(20)] for _ in range(300)])


@needs_shared
@pytest.mark.parametrize("cap", [1, 4, 64])
def test_other_caps_stay_correct(cap: int) -> None:
    netlist, _ = read_netlist(str(SHARED / "iscas85/c880.bench"))
    rng = random.Random(cap)
    vecs = [[rng.randint(0, 1) for _ in netlist.inputs] for _ in range(200)]
    for mode in MODES:
        c = arithmetize(netlist, mode, cap=cap)
        check_strict(c, mode)
        agree_on_vectors(netlist, c, vecs)


def test_bad_mode_and_bad_files(tmp_path: Path) -> None:
    n = parse_bench("INPUT(a)\nOUTPUT(a)\n")
    with pytest.raises(InputError):
        arithmetize(n, "fuzzy")
    path = tmp_path / "junk.blif"
    path.write_bytes(b".model m\n.inputs a\n\x00\x00\n")
    with pytest.raises(InputError) as err:
        import_netlist(str(path))
    assert err.value.line == 3 and err.value.file == str(path)
    path.write_bytes(b".model m\n.inputs a\n.outputs a\n\xff\n")
    with pytest.raises(InputError) as err:
        import_netlist(str(path), "threshold")
    assert err.value.line == 4


@settings(max_examples=150, deadline=None)
@given(netlists(), st.integers(1, 20), st.randoms(use_true_random=False))
def test_random_netlists_agree_with_simulation(n: Netlist, cap: int, rnd: random.Random) -> None:
    vecs = [list(v) for v in itertools.product((0, 1), repeat=len(n.inputs))]
    for mode in MODES:
        c = arithmetize(n, mode, cap=cap)
        check_strict(c, mode)
        agree_on_vectors(n, c, vecs)
        if mode == "exact":
            xs = [Fraction(rnd.randint(-5, 5), rnd.randint(1, 4)) for _ in n.inputs]
            assert evaluate(c, xs) == poly_semantics(n, xs)


def test_gate_ir_is_used_as_given() -> None:
    """An arithmetized netlist built directly (no file) records mode and netlist measures."""
    n = Netlist("direct", ("x", "y"), ("z",), (BoolGate("z", "CUBE", ("x", "y"), "1-", 0),))
    c = arithmetize(n, "exact")
    assert c.name == "direct" and c.provenance is not None and c.provenance.source_format is None
    assert c.provenance.netlist_gate_types == ("CUBE",)
    assert [evaluate(c, [x, y]) for x, y in itertools.product((0, 1), repeat=2)] == [(1,), (1,), (0,), (0,)]


# -- the linear construction (the default) ------------------------------------------------------

def non_constant_gates(c: Circuit) -> int:
    return sum(g.kind not in (Kind.INPUT, Kind.CONST) for g in c.gates)


@settings(max_examples=300, deadline=None)
@given(netlists(), st.randoms(use_true_random=False))
def test_linear_arithmetization_is_exact_and_within_its_bound(n: Netlist, rnd: random.Random) -> None:
    """Every gate kind (multi-input, XOR/XNOR, BLIF cubes): the circuit equals the netlist on
    {0,1}ⁿ (exact mode: the polynomial on Qⁿ) and has at most
    n_in + 4·Σ max(k−1, 0) + 2·n_out + 5 gates; in exact mode 4·Σ max(k−1, 0) + 2·n_out
    non-constant gates and at most 5 constants, all in {−2, −1, 0, 1, 2}."""
    vecs = [list(v) for v in itertools.product((0, 1), repeat=len(n.inputs))]
    steps = sum(max(len(g.args) - 1, 0) for g in n.gates)
    for mode in MODES:
        c = arithmetize(n, mode)
        check_strict(c, mode)
        agree_on_vectors(n, c, vecs)
        assert c.size <= gate_bound(n) == len(n.inputs) + 4 * steps + 2 * len(n.outputs) + 5
        assert non_constant_gates(c) - c.n_inputs <= 4 * steps + 2 * len(n.outputs)
        assert all(len(set(g.args)) == len(g.args) for g in c.gates if g.kind is Kind.ADD)  # no repeated edges
        assert depth(c) <= 3 * step_depth(n) + 2
        if mode == "exact":
            consts = [g.value for g in c.gates if g.kind is Kind.CONST]
            assert len(consts) <= 5 and set(consts) <= {-2, -1, 0, 1, 2}
            xs = [Fraction(rnd.randint(-5, 5), rnd.randint(1, 4)) for _ in n.inputs]
            assert evaluate(c, xs) == poly_semantics(n, xs)


def xor_chain(n: int) -> Netlist:
    gates = [BoolGate("x1", "XOR", ("a0", "a1"))] + [BoolGate(f"x{i + 1}", "XOR", (f"x{i}", f"a{i + 1}"))
                                                    for i in range(1, n)]
    return Netlist("chain", tuple(f"a{i}" for i in range(n + 1)), (f"x{n}",), tuple(gates))


@pytest.mark.parametrize("n", [1, 2, 7, 40, 1000])
def test_an_xor_chain_costs_three_gates_a_step(n: int) -> None:
    net = xor_chain(n)
    c = arithmetize(net, "exact")
    # inputs, one constant −2, and per XOR: mul(x, a), mul(−2, ·), add(x, a, ·)
    assert c.size == (n + 1) + 1 + 3 * n and depth(c) == 3 * n
    assert sum(g.fan_in for g in c.gates) == 2 * n + 2 * n + 3 * n
    rng = random.Random(n)
    agree_on_vectors(net, c, [[rng.randint(0, 1) for _ in net.inputs] for _ in range(50)])
    assert arithmetize(net, "threshold").size == c.size  # XOR stays polynomial


def test_cap_mode_is_shallower_but_guarded() -> None:
    """cap=N: the depth-aware construction where it stays within GUARD × the linear bound,
    else the linear one (a long XOR chain expands too much)."""
    from verified_aat.circuits.arithmetize import GUARD
    net = xor_chain(7)
    assert depth(arithmetize(net, "exact", cap=16)) < depth(arithmetize(net, "exact"))
    long = xor_chain(200)
    capped = arithmetize(long, "exact", cap=16)
    assert capped.size <= GUARD * gate_bound(long) and sum(g.fan_in for g in capped.gates) <= 3 * GUARD * gate_bound(long)
    with pytest.raises(InputError, match="cap must be a positive integer"):
        arithmetize(net, "exact", cap=0)


def test_generated_multipliers_multiply_and_stay_linear() -> None:
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from netlist_generators import array_multiplier
    for style in ("xor", "nor"):
        net = parse_bench(array_multiplier(16, style), f"mul16{style}.bench")
        for mode in MODES:
            c = arithmetize(net, mode)
            assert c.size <= gate_bound(net)
            f = compile_circuit(c)
            rng = random.Random(style + mode)
            for _ in range(10):
                x, y = rng.randrange(2 ** 16), rng.randrange(2 ** 16)
                out = f(*[(x >> i) & 1 for i in range(16)], *[(y >> i) & 1 for i in range(16)])
                assert sum(int(v) << k for k, v in enumerate(out)) == x * y
