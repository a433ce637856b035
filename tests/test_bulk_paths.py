"""The bulk paths of the witness replay (issue 20, a witness of 10⁶ padding inputs) give what the
position-by-position paths give: circuits checked in bulk, gate rows and roles built by columns, claims made
in bulk, the engine's activation step over every position."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import circuits
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.ir import Circuit, Gate, Kind, gate_depths
from verified_aat.constructions.claims import PatternTable
from verified_aat.constructions.encoding import Role
from verified_aat.constructions.registry import get_construction
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.exact_reference import run_exact_reference


def _padded(n: int, op: str) -> Circuit:
    b = CircuitBuilder(f"{op}-padded")
    xs = b.inputs([f"x{i}" for i in range(n)])
    b.output(b.sign(xs[-1]) if op == "sign" else getattr(b, op)(xs[-2], xs[-1]))
    return b.build()


def test_bulk_inputs_are_the_gates_input_makes():
    b = CircuitBuilder("one by one")
    for i in range(5):
        b.input(f"x{i}")
    assert _padded(5, "add").gates[:5] == b.build().gates


def test_a_circuit_checked_in_bulk_still_names_its_problems():
    good = [Gate(Kind.INPUT, index=i) for i in range(3)]
    assert Circuit(tuple(good), (2,)).input_gates == (0, 1, 2)
    with pytest.raises(ValueError, match="used twice"):
        Circuit(tuple(good + [Gate(Kind.INPUT, index=1)]), (0,))
    with pytest.raises(ValueError, match="not an earlier gate"):
        Circuit(tuple(good + [Gate(Kind.ADD, (0, 4))]), (0,))
    with pytest.raises(ValueError, match="input needs an index"):
        Circuit((Gate(Kind.INPUT, index=-1),), (0,))
    with pytest.raises(ValueError, match="takes no arguments"):
        Circuit((Gate(Kind.INPUT, (), index=0), Gate(Kind.INPUT, (0,), index=1)), (0,))
    with pytest.raises(ValueError, match="output refers"):
        Circuit(tuple(good), (7,))


def _one_by_one(construction, circuit):  # type: ignore[no-untyped-def]
    """The gate group's rows and roles as the position-by-position encoder made them."""
    rows, roles = [], []
    fns = construction._rows["gate"]
    for g, gate in enumerate(circuit.gates):
        value = Fraction(gate.value) if gate.kind is Kind.CONST else 0
        value = value.numerator if isinstance(value, Fraction) and value.denominator == 1 else value
        rows.append(fns[gate.kind]((g, gate.fan_in, value, gate.index if gate.kind is Kind.INPUT else 0)))
        roles.append(Role("gate", g))
    return rows, roles


@settings(max_examples=60, deadline=None)
@given(circuit=circuits(max_gates=30, max_inputs=6), name=st.sampled_from(["gate-edge", "unique-hard"]))
def test_bulk_encoding_and_schedule_equal_the_per_position_ones(circuit, name):
    construction = get_construction(name)
    try:
        encoding = construction.encode(circuit)
    except Exception:  # noqa: BLE001 - outside the class
        return
    rows, roles = _one_by_one(construction, circuit)
    assert list(encoding.rows[:len(rows)]) == rows and list(encoding.roles[:len(roles)]) == roles
    schedule = construction.schedule(circuit, encoding)
    made = PatternTable(circuit, gate_depths(circuit), construction.schedule_rules(), encoding.coordinates)
    expected = list(map(made.one, encoding.roles))
    assert [schedule.claims[p] for p in range(len(expected))] == expected  # made one at a time
    assert list(schedule.claims) == expected and len(schedule.claims) == len(expected)  # made all at once
    assert schedule.settle_layers() == [() if c is None else c.pattern.settle_pattern for c in expected]


@pytest.mark.parametrize("op", ["add", "mul", "sign"])
def test_a_padded_witness_replays_as_the_reference_does(op):
    construction = get_construction("gate-edge")
    circuit = _padded(300, op)
    encoding = construction.encode(circuit)
    xs = [0] * 298 + [3, Fraction(-5, 2)]
    sequence = encoding.instantiate(xs)
    T = construction.transformer(1)
    forget = construction.schedule(circuit, encoding).settle_layers()
    assert (encoding.read(run_exact(T, sequence, forget=forget, needed=encoding.readout).outputs)
            == encoding.read(run_exact_reference(T, sequence).outputs))

