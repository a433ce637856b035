"""refute shrinks the witness it found among the candidates (``refutation/shrink.py``): each move is a smaller circuit
whose meaning is the old one's with one output, a gate read as its operand or an operand dropped, and a move is kept
only when the caller's replayed search still fails on it."""

from __future__ import annotations

import json
import time
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import circuits, input_vectors
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Circuit, Kind, sign
from verified_aat.circuits.measures import depth
from verified_aat.refutation.candidates import _basic, stacked
from verified_aat.refutation.shrink import _moves, _rebuild, shrink


def _values(circuit: Circuit, xs: list[Fraction], bypass: dict[int, int], dropped: tuple[int, int] | None) -> list:
    """Every gate's value, written apart from ``shrink``: gate g of ``bypass`` takes its operand's value, gate
    ``dropped[0]`` reads its operands without the ``dropped[1]``-th."""
    values: list = []
    for g, gate in enumerate(circuit.gates):
        args = list(gate.args)
        if dropped is not None and dropped[0] == g:
            del args[dropped[1]]
        got = [values[a] for a in args]
        if g in bypass:
            values.append(values[bypass[g]])
        elif gate.kind is Kind.INPUT:
            values.append(xs[gate.index])  # type: ignore[index]
        elif gate.kind is Kind.CONST:
            values.append(gate.value)
        elif gate.kind is Kind.SIGN:
            values.append(sign(got[0]))
        elif gate.kind is Kind.ADD:
            values.append(sum(got, Fraction(0)))
        else:
            product = Fraction(1)
            for v in got:
                product *= v
            values.append(product)
    return values


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_rebuilt_circuit_computes_what_its_move_says(data: st.DataObject) -> None:
    """With a gate bypassed (read as one of its operands) or an operand dropped, on one output or all: the rebuilt
    circuit's outputs at the kept inputs are the old circuit's so edited, its gates are the outputs' cone only, its
    inputs are the ones it reads, in their old order, and it is no deeper."""
    circuit = data.draw(circuits(max_gates=14))
    xs = data.draw(input_vectors(circuit.n_inputs))
    outputs = data.draw(st.sampled_from([circuit.outputs, circuit.outputs[:1]]))
    cone, stack = set(), list(outputs)  # a move inside what the outputs read
    while stack:
        if (g := stack.pop()) not in cone:
            cone.add(g)
            stack += circuit.gates[g].args
    gates = sorted(g for g in cone if circuit.gates[g].args)
    bypass: dict[int, int] = {}
    dropped = None
    if gates and data.draw(st.booleans()):
        g = data.draw(st.sampled_from(gates))
        bypass = {g: data.draw(st.sampled_from(circuit.gates[g].args))}
    elif gates:
        g = data.draw(st.sampled_from([g for g in gates if circuit.gates[g].kind is Kind.ADD or
                                       circuit.gates[g].fan_in >= 3] or gates))
        if circuit.gates[g].kind is Kind.ADD or circuit.gates[g].fan_in >= 3:
            dropped = (g, data.draw(st.integers(0, circuit.gates[g].fan_in - 1)))
    smaller, kept = _rebuild(circuit, outputs, bypass, dropped)
    want = _values(circuit, xs, bypass, dropped)
    assert list(evaluate(smaller, [xs[i] for i in kept])) == [want[o] for o in outputs]
    assert kept == sorted(kept) and len(set(kept)) == len(kept) == smaller.n_inputs
    assert smaller.size <= circuit.size and depth(smaller) <= depth(circuit)
    assert all(g in smaller.outputs or any(g in gate.args for gate in smaller.gates) for g in range(smaller.size))


@settings(max_examples=80, deadline=None)
@given(circuits(max_gates=12))
def test_every_move_is_strictly_smaller(circuit: Circuit) -> None:
    """Gates, then operands, then outputs: each move shrinks that measure, so the greedy loop ends."""
    whole = (circuit.size, circuit.n_edges, len(circuit.outputs))
    for smaller, kept in _moves(circuit):
        assert (smaller.size, smaller.n_edges, len(smaller.outputs)) < whole
        assert len(kept) == smaller.n_inputs


def _sign_read_out(circuit: Circuit, xs: list[Fraction]):  # type: ignore[no-untyped-def]
    """A stand-in for a replayed search: "fails" where a sign gate is read out as −1 (the input tried first)."""
    outs = evaluate(circuit, xs)
    if any(circuit.gates[o].kind is Kind.SIGN and v == -1 for o, v in zip(circuit.outputs, outs)):
        return xs, ("found on", circuit.size)
    return None


def test_a_stacked_witness_shrinks_to_the_one_gate_that_fails() -> None:
    """The sign shape computed at every depth to 9 and carried on (45 gates, 9 outputs) shrinks to x0 and its sign,
    and what is returned is the stand-in search's last answer, on that circuit."""
    shape = next(c for c in _basic() if c.name == "sign")
    whole = stacked(shape, 9)
    calls: list[int] = []

    def fails(c: Circuit, xs: list[Fraction]):  # type: ignore[no-untyped-def]
        calls.append(c.size)
        return _sign_read_out(c, xs)

    small, found = shrink(whole, [Fraction(-3, 2)], ("found on", whole.size), fails, time.perf_counter() + 60)
    assert [g.kind for g in small.gates] == [Kind.INPUT, Kind.SIGN] and small.outputs == (1,)
    assert found == ("found on", 2) and whole.size > 40 and len(calls) >= 2


def test_a_move_the_search_does_not_replay_is_never_kept() -> None:
    """A search that never fails again leaves the circuit and its counterexample as found; so does a deadline
    already passed (no move is even tried)."""
    shape = next(c for c in _basic() if c.name == "sign-of-sum")
    whole = stacked(shape, 5)
    tried: list[Circuit] = []
    small, found = shrink(whole, [Fraction(1), Fraction(-3)], "first", lambda c, xs: tried.append(c), time.perf_counter() + 60)
    assert small is whole and found == "first" and len(tried) > whole.size
    small, found = shrink(whole, [Fraction(1), Fraction(-3)], "first", _sign_read_out, time.perf_counter() - 1)
    assert small is whole and found == "first"


def test_refute_reports_the_shrunk_witness_and_the_candidate_it_came_from(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """gate-edge's T_8 with its 4th gather layer's sign read as the gathered value: first found on the sign shape at
    every depth to 8 (44 gates, 8 outputs), reported on a copy of at most 8 gates and one output, replayed exactly;
    ``--json`` says what it was shrunk from.  A circuit the user gives is reported as given."""
    from verified_aat.api import construction
    from verified_aat.cli.main import main
    from verified_aat.transformer.exact_engine import run_exact
    from verified_aat.transformer.spec import transformer_from_json, transformer_to_json

    gate_edge = construction("gate-edge")
    data = transformer_to_json(gate_edge.transformer(8))
    body = list(data["functions"][data["layers"][7]["activation"]])
    body[body.index("sign_value = sign gather.val")] = "sign_value = add gather.val"
    data["functions"]["edited"], data["layers"][7]["activation"] = body, "edited"
    model = tmp_path / "edited.json"
    model.write_text(json.dumps(data))
    assert main(["refute", str(model), "--json", "--budget", "240"]) == 1
    out = json.loads(capsys.readouterr().out)
    circuit = out["circuit"]
    first = circuit["shrunk_from"]
    assert (first["gates"], first["outputs"]) == (44, 8) and first["edges"] >= 43 and circuit["gates"] <= 8
    from verified_aat.circuits.text_format import parse_circuit_text
    small = parse_circuit_text(circuit["text"])
    assert len(small.outputs) == 1 and depth(small) <= 8
    xs = [Fraction(v) for v in out["counterexample"]["input_vector"]]
    transformer = transformer_from_json(data)
    encoding = gate_edge.encode(small)
    got = encoding.read(run_exact(transformer, encoding.instantiate(xs)).outputs)
    assert tuple(got) != tuple(evaluate(small, xs))
    from verified_aat.report.data import from_refute_json
    result = tmp_path / "refuted.json"
    result.write_text(json.dumps(out))
    page = from_refute_json(json.loads(result.read_text()), str(result))
    assert (f"the circuit is the candidate first found (44 gates, {first['edges']} edges, 8 outputs) shrunk, each step "
            "replayed") in page.verdict
    given_file = tmp_path / "given.circ"
    given_file.write_text(circuit["text"].replace("output", "s = sign x0\noutput s"))
    assert main(["refute", str(model), str(given_file), "--json", "--budget", "60"]) == 1
    again = json.loads(capsys.readouterr().out)["circuit"]
    assert again["shrunk_from"] is None and again["gates"] == circuit["gates"] + 1
