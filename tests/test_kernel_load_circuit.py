"""The kernel's circuit loader takes a fast path for well-formed add/mul/sign and input gates; it must accept exactly
what the checked path accepts, and load the same circuit (hypothesis, against the loader's definition)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.kernel.data import NotChecked, Gate, Malformed, load_circuit

OPS = ["add", "mul", "sign", "input", "const", "max", 3]


def _definition(data: dict[str, Any], limit: int) -> tuple | None:
    """What the loader must give: the gates and outputs, or None where it must refuse (Malformed)."""
    gates, inputs = [], {}
    for g, entry in enumerate(data["gates"]):
        if not (type(entry) is list and len(entry) == 2 and type(entry[0]) is str):
            return None
        op, arg = entry
        if op == "input":
            if type(arg) is not int or not 0 <= arg <= limit or arg in inputs:
                return None
            inputs[arg] = g
            gates.append(Gate("input", index=arg))
        elif op == "const":
            if arg not in ("0", "1", "-2", "3/4"):
                return None
            gates.append(Gate("const", value={"0": 0, "1": 1, "-2": -2}.get(arg, arg) if arg != "3/4" else None))
        elif op in ("add", "mul", "sign"):
            if type(arg) is not list or len(arg) > limit or not all(type(a) is int and 0 <= a < g for a in arg):
                return None
            if (op == "sign" and len(arg) != 1) or (op == "mul" and len(arg) < 2):
                return None
            gates.append(Gate(op, tuple(arg)))
        else:
            return None
    if sorted(inputs) != list(range(len(inputs))):
        return None
    return tuple(g.op for g in gates), tuple(g.args for g in gates), tuple(g.index for g in gates)


entries = st.one_of(
    st.tuples(st.sampled_from(["add", "mul", "sign"]),
              st.one_of(st.lists(st.integers(-1, 6), max_size=4), st.just("x"), st.lists(st.booleans(), max_size=2))
              ).map(list),
    st.tuples(st.just("input"), st.one_of(st.integers(-1, 3), st.booleans(), st.just(2.0))).map(list),
    st.tuples(st.just("const"), st.sampled_from(["0", "1", "-2"])).map(list),
    st.tuples(st.sampled_from(OPS), st.integers(0, 2)).map(list),
    st.just(["add"]), st.just("add"), st.just(["add", [0], 1]))


@settings(max_examples=500, deadline=None)
@given(st.lists(entries, max_size=7), st.integers(7, 9))  # the list-length limit: the test below
def test_the_fast_path_accepts_exactly_what_the_checked_path_accepts(gates: list[Any], limit: int) -> None:
    data = {"gates": gates, "outputs": []}
    wanted = _definition(data, limit)
    try:
        C = load_circuit(data, "$c", limit=limit)
    except Malformed:
        assert wanted is None
        return
    assert wanted is not None, gates
    assert (tuple(g.op for g in C.gates), tuple(g.args for g in C.gates), tuple(g.index for g in C.gates)) == wanted
    assert len(C.input_gates) == C.n_inputs == sum(g.op == "input" for g in C.gates)
    assert all(C.gates[g].index == i for i, g in enumerate(C.input_gates))  # the gate of input i


def test_a_long_argument_list_is_refused_by_the_fast_path_too() -> None:
    try:  # a size limit: not checked (docs/soundness.md, Limits), never loaded
        load_circuit({"gates": [["input", 0], ["add", [0] * 5]], "outputs": []}, "$c", limit=4)
    except NotChecked as exc:
        assert "too long" in str(exc) and "past the kernel's limit" in str(exc)
    else:
        raise AssertionError("an add of 5 arguments past the limit of 4 was loaded")
