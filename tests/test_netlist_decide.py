"""The netlist link's decision of a threshold lemma over its operands y ∈ {0,1}^k (``kernel/netlist_threshold.py``):
branch and bound over exact intervals, the same answer as every point, and wide gates with no solver."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.link_section import netlist_section
from verified_aat.kernel.context import Context
from verified_aat.kernel.data import load_circuit
from verified_aat.kernel.netlist_threshold import agree, bounds, over_operands
from verified_aat.kernel.netlist_link import link_report
from verified_aat.kernel.report import Options

pytestmark = pytest.mark.usefixtures("candidate_link")  # the link by candidates (netlist_link.py): its tests


def _value(order: list[Any], bits: tuple[int, ...], v: list[Fraction] | None = None) -> list[Fraction]:
    """The test's own evaluation of a node listing at a point of {0,1}^k (and the frontier variables at v)."""
    values: list[Any] = []
    for item in order:
        if item[0] in ("y", "n", "v"):
            values.append(bits[item[1]] if item[0] == "y" else item[1] if item[0] == "n" else v[item[1]])
        elif item[0] == "+":
            values.append(item[1] + sum(c * values[m] for m, c in item[2]))
        elif item[0] == "mul":
            values.append(math.prod(values[m] for m in item[1]))
        else:
            values.append((values[item[1][0]] > 0) - (values[item[1][0]] < 0))
    return values


@st.composite
def listings(draw: Any) -> tuple[list[Any], int]:
    """A random node listing over k ≤ 6 operands, each node over earlier ones (sums, products, signs)."""
    k = draw(st.integers(1, 6))
    order: list[Any] = [("y", i) for i in range(k)] + [("n", draw(st.sampled_from([0, 1, -1, 2, Fraction(1, 2)])))]
    _draw_nodes(draw, order, 10, [0, 1, -1, -3], [1, -1, 2, -2, Fraction(1, 2)])
    return order, k


def _draw_nodes(draw: Any, order: list[Any], most: int, constants: list[Any], coefficients: list[Any]) -> None:
    """Append 1 … ``most`` random nodes over earlier ones: sums, products and signs."""
    for _ in range(draw(st.integers(1, most))):
        earlier = st.integers(0, len(order) - 1)
        kind = draw(st.sampled_from(["+", "mul", "sign"]))
        if kind == "+":
            terms = sorted(set(draw(st.lists(earlier, min_size=1, max_size=4))))
            order.append(("+", draw(st.sampled_from(constants)),
                          tuple((m, draw(st.sampled_from(coefficients))) for m in terms)))
        elif kind == "mul":
            order.append(("mul", tuple(draw(st.lists(earlier, min_size=2, max_size=3)))))
        else:
            order.append(("sign", (draw(earlier),)))


@settings(max_examples=400, deadline=None)
@given(listings(), st.data())
def test_branch_and_bound_agrees_with_every_point(listing: tuple[list[Any], int], data: Any) -> None:
    order, k = listing
    lhs, rhs = data.draw(st.integers(0, len(order) - 1)), data.draw(st.integers(0, len(order) - 1))
    points = [_value(order, bits) for bits in itertools.product((0, 1), repeat=k)]
    assert agree(order, k, lhs, rhs, 1 << 16) == all(v[lhs] == v[rhs] for v in points)
    fixed = data.draw(st.integers(0, k))
    for prefix in itertools.product((0, 1), repeat=fixed):  # each interval holds every value it stands for
        box = bounds(order, prefix)
        for v in (p for bits, p in zip(itertools.product((0, 1), repeat=k), points) if bits[:fixed] == prefix):
            assert all(low <= x <= high for (low, high), x in zip(box, v))


def test_a_wide_and_closes_in_a_chain_and_the_budget_is_kept() -> None:
    """AND of k operands as 1 + sgn(Σy − k) against Π y: one branch per operand, not 2^k; with too small a
    budget the answer is None (the lemma then goes on to the next procedure), never True; False only for a point."""
    k = 40
    ys = [("y", i) for i in range(k)]
    order = ys + [("+", -k, tuple((i, 1) for i in range(k))), ("sign", (k,)), ("+", 1, ((k + 1, 1),)),
                  ("mul", tuple(range(k)))]
    assert agree(order, k, k + 2, k + 3, 2 * k + 1)
    assert agree(order, k, k + 2, k + 3, k // 2) is None  # out of budget: undecided, not false
    wrong = order[:-1] + [("mul", tuple(range(k - 1)))]  # one operand left out: wrong where only it is 0
    assert agree(wrong, k, k + 2, k + 3, 1 << 16) is False  # a point where they differ


def _wide_bench(tmp_path: Path, k: int, body: str) -> Path:
    ins = [f"x{i}" for i in range(k)]
    path = tmp_path / "wide.bench"
    path.write_text("\n".join([f"INPUT({x})" for x in ins] + ["OUTPUT(g)", body.format(", ".join(ins))]) + "\n")
    return path


@pytest.mark.parametrize("op", ["AND", "NOR", "NAND", "OR"])
def test_a_gate_of_24_inputs_is_linked_in_threshold_mode_with_no_solver(tmp_path: Path, op: str,
                                                                       no_solver_at_all: None) -> None:
    """Before: past 12 operands a threshold lemma went to the solvers, and Z3 timed out on a 16-input NOR."""
    circuit = import_netlist(str(_wide_bench(tmp_path, 24, f"g = {op}({{}})")), "threshold")
    ctx = Context({"netlist": netlist_section(circuit)}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    problems, theorem, stats = link_report(ctx)
    assert not problems and not ctx.unchecked and "{0,1}^24" in theorem
    assert stats["solver_runs"] == 0


def test_the_solvers_total_time_on_a_netlist_link_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemmas the kernel's own procedures leave open go to the solvers; past TOTAL_FACTOR per-lemma limits in
    all, the rest are not asked (each lemma had a limit, the link none)."""
    from types import SimpleNamespace

    from verified_aat.kernel import netlist_link, netlist_smt, netlist_threshold, solvers
    asked, clock = [], [0.0]  # the solvers' clock: each answer takes 19 ms of a 20 ms limit (no wall clock read)

    def slow_unsat(text: str, timeout_ms: int) -> str:
        asked.append(text)
        clock[0] += 0.019
        return solvers.UNSAT

    monkeypatch.setitem(solvers.SOLVERS, "z3", slow_unsat)
    for module in (solvers, netlist_smt):
        monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(solvers, "TOTAL_FACTOR", 2)
    monkeypatch.setattr(netlist_threshold, "agree", lambda *args: None)  # branch and bound decides nothing,

    def too_large(*args: Any) -> None:
        raise netlist_link.TooLarge("the test's limit")

    monkeypatch.setattr(netlist_link, "difference", too_large)  # nor the polynomial identity
    ops = ["AND", "OR", "NAND", "NOR", "AND", "OR"]
    path = tmp_path / "six.bench"
    path.write_text("".join(f"INPUT(x{i})\n" for i in range(5)) + "".join(f"OUTPUT(g{j})\n" for j in range(6))
                    + "".join(f"g{j} = {op}(x{j % 5}, x{(j + 1) % 5}, x{(j + 3) % 5})\n" for j, op in enumerate(ops)))
    circuit = import_netlist(str(path), "threshold")
    ctx = Context({"netlist": netlist_section(circuit)}, Options(timeout_ms=20))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    problems, theorem, stats = link_report(ctx)
    assert not problems and len(asked) == 3 < stats["lemmas"]  # at 0, 19 and 38 ms of 40 (ctx.unchecked: not checked)
    assert any("solvers ran past 2 times the limit per lemma" in u for u in ctx.unchecked)


@st.composite
def operand_lemmas(draw: Any) -> tuple[list[Any], int, int, list[int], list[tuple[int, Any, Any]]]:
    """A threshold lemma with frontier variables v: operand forms F_i = α + β·v_j (F_j the first to name v_j,
    later ones may name it again, so that y = F(v) rules out points of {0,1}^k), then sums, products and signs
    over the v and the y; (listing, lhs, rhs, the F_i's nodes, each F_i's (j, α, β))."""
    k = draw(st.integers(1, 4))
    nv = draw(st.integers(1, k))
    order: list[Any] = [("v", j) for j in range(nv)]
    forms, bs = [], []
    for i in range(k):
        j = i if i < nv else draw(st.integers(0, nv - 1))
        alpha, beta = draw(st.sampled_from([0, 1, -1])), draw(st.sampled_from([1, -1, 2, Fraction(1, 2)]))
        order.append(("+", alpha, ((j, beta),)))
        forms.append((j, alpha, beta))
        bs.append(len(order) - 1)
    order += [("y", i) for i in range(k)]
    _draw_nodes(draw, order, 8, [0, 1, -1, -2], [1, -1, 2])
    return order, len(order) - 1, draw(st.integers(0, len(order) - 1)), bs, forms


@settings(max_examples=500, deadline=None)
@given(operand_lemmas())
def test_sides_over_the_operands_decide_the_lemma_at_every_point_it_covers(lemma: Any) -> None:
    """The lemma holds at every (v, y) with y ∈ {0,1}^k and y = F(v) exactly when branch and bound over the y,
    with the hypotheses y = F pruning branches, says so (c432, c499, c880, ctrl, int2float and FP-mul in
    threshold mode had lemmas left to Z3 for want of this: FP-mul's 0 = y_0·y_1 where y_0 = v, y_1 = 1 − v)."""
    order, lhs, rhs, bs, forms = lemma
    sides = over_operands(order, lhs, rhs, bs)
    assert sides is not None and not any(item[0] == "v" for item in sides[0])
    holds = True
    for bits in itertools.product((0, 1), repeat=len(bs)):
        v = [(bits[j] - forms[j][1]) / Fraction(forms[j][2]) for j in range(len({j for j, _, _ in forms}))]
        values = _value(order, bits, v)
        if all(values[b] == bits[i] for i, b in enumerate(bs)):  # the point satisfies y = F(v)
            holds = holds and values[lhs] == values[rhs]
    assert len(sides[3]) == len(bs)  # every F_i is over the y once its v is solved
    assert agree(sides[0], len(bs), sides[1], sides[2], 1 << 16, sides[3]) == holds


def test_a_variable_no_operand_form_solves_leaves_the_lemma_to_the_next_procedure() -> None:
    order = [("v", 0), ("v", 1), ("+", 1, ((0, 1), (1, 1))), ("y", 0), ("mul", (0, 3))]
    assert over_operands(order, 4, 3, [2]) is None  # F_0 = 1 + v0 + v1 names two variables
    assert over_operands([("v", 0), ("y", 0), ("mul", (0, 1))], 2, 1, [0]) is not None  # F_0 = v0


@pytest.mark.parametrize("name", ["iscas85/c432.bench", "iscas85/c499.bench", "iscas85/c880.bench",
                                  "epfl/int2float.blif", "epfl/ctrl.blif", "bristol/FP-mul.txt"])
def test_the_shared_netlists_link_in_threshold_mode_with_no_solver(name: str, no_solver_at_all: None) -> None:
    from netlist_helpers import SHARED
    if not SHARED.is_dir():
        pytest.skip(f"benchmark netlists not found at {SHARED}")
    circuit = import_netlist(str(SHARED / name), "threshold")
    ctx = Context({"netlist": netlist_section(circuit)}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    problems, theorem, stats = link_report(ctx)
    assert not problems and not ctx.unchecked and "{0,1}^" in theorem and stats["solver_runs"] == 0
