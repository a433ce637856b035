"""Red team, round 30: refute's witness shrinking (``refutation/shrink.py``) and what shows it.

Tried: 122 single-line edits of compiled transformers (a constant, an operand, add for mul, mul for add, an operand
dropped, sign read as add; half of them in one layer's own copy of its activation) of the seven built-in constructions
at K = 2, 3, 4, 6, 8, 10 and 12 through ``refute`` (budgets 6 to 20 s): 100 refuted, 68 of them on a shrunk witness,
22 unknown; each witness replayed by the independent reference run (``audit/reference.py``), checked in the class and
of depth ≤ K, and timed; the first 40 run twice (same witness each time). 17 odd shapes the shrinker makes (no inputs,
an output that is an input or a constant, repeated outputs, an add of fan-in 0 or 1, a sign of a constant) through
``_still_fails`` under the seven constructions and under 72 edited construction documents (schedule ref, scale,
offset, claim powers, read-out coordinate, input slot: 888 runs); a needle edit wrong only at the value 7 shrunk from
the ``constants`` candidate to a circuit with no inputs, then printed, drawn (``--report``) and put in ``--json``;
shrinking a 90-gate stacked witness of T_12 with a deadline of 0.5 s (overshoot 0.01 s); ``prove-construction``
(text and ``--json``) of middle-layer edits of gate-edge's T_2 and T_4 that only the candidate search refutes.

Held: no crash, every witness replayed, none outside the class or deeper than K, no shrink past its share of the
budget by more than one search's run; encoders and schedules raise only InputError (or nothing) on every odd shape.

Found: (1) a shrunk witness kept its candidate's name: ``refute`` reported ``circuit 'add-of-two' (1 gate, shrunk from
3 gates …)`` on ``input x0 / output x0``, and "sign-at-every-depth-to-4" on one sign carried on; now ``<name>-shrunk``.
(2) ``_rebuild`` named a repeated output by its first occurrence: outputs (y, y) named ``a``, ``b`` became ``a``,
``a`` (latent: no candidate names its outputs). (3) ``prove-construction`` reported a shrunk witness as found (no
"shrunk from" note) and its ``--json`` circuit had no ``shrunk_from``, though docs/cli.md says its ``circuit`` is "as
for refute"; both now share ``Refutation.circuit_json`` (with the report page).

Left, then mended at merge (stop 54): a shrink that only drops a repeated operand (``add x0 x0 x1`` → ``add x0 x1``)
would be noted "shrunk from 3 gates and 1 output" on a circuit of 3 gates and 1 output (``shrunk_from`` now has the
edges too); the report page (``--report``) now says the witness was shrunk; a counterexample on a circuit with no
inputs printed an
empty "inputs:" list (now "none (the circuit has no inputs)"); whether a shrink step is kept depends on a 1 s per-step search budget and the overall deadline,
so on a machine slow enough two runs could stop at different witnesses (each replayed).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from verified_aat.api import construction
from verified_aat.audit.reference import reference_run
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Circuit, Gate, Kind
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.cli.main import main
from verified_aat.refutation.refute import refute
from verified_aat.refutation.shrink import _moves, _rebuild
from verified_aat.transformer.spec import transformer_from_json, transformer_to_json


def _replayed(circuit: Circuit, transformer, encoding, cx) -> bool:  # type: ignore[no-untyped-def]
    """The report's input, through T by the independent reference run, reads out what the report says, not C(x)."""
    run = reference_run(transformer, encoding.instantiate(list(cx.inputs)))
    got = tuple(map(Fraction, encoding.read(run.layers[-1].vectors)))
    want = tuple(map(Fraction, evaluate(circuit, list(cx.inputs))))
    return got == tuple(cx.actual) and want == tuple(cx.expected) and got != want


def test_a_shrunk_witness_is_not_named_as_the_candidate_it_came_from() -> None:
    """gate-edge's T_2 with a gather constant 3 → 4: first found on add-of-two, shrunk to one input read out. It was
    reported as "add-of-two" (1 gate, no add); now "add-of-two-shrunk", still replayed."""
    gate_edge = construction("gate-edge")
    data = transformer_to_json(gate_edge.transformer(2))
    body = data["functions"]["activation-gather"]
    body[body.index("g23 = const 3")] = "g23 = const 4"
    transformer = transformer_from_json(data)
    found = refute(transformer, gate_edge, budget_seconds=20)
    assert found.first_found is not None and found.first_found.name == "add-of-two"
    witness = found.circuit
    assert witness is not None and witness.size < found.first_found.size
    assert witness.name == "add-of-two-shrunk" and "'add-of-two-shrunk' (1 gate, shrunk from 3 gates" in repr(found)
    assert _replayed(witness, transformer, gate_edge.encode(witness), found.counterexample)


def test_a_repeated_output_keeps_each_of_its_names() -> None:
    """Outputs (y, y, s) named a, b, s: every move that keeps all outputs named them a, a, s."""
    gates = (Gate(Kind.INPUT, index=0), Gate(Kind.SIGN, (0,)), Gate(Kind.CONST, value=Fraction(2)),
             Gate(Kind.ADD, (1, 2)))
    circuit = Circuit(gates, (3, 3, 1), output_names=("a", "b", "s"))
    assert _rebuild(circuit, circuit.outputs, {})[0].output_names == ("a", "b", "s")
    kept_all = [smaller for smaller, _ in _moves(circuit) if len(smaller.outputs) == 3]
    assert kept_all and all(smaller.output_names == ("a", "b", "s") for smaller in kept_all)
    assert [s.output_names for s, _ in _moves(circuit) if len(s.outputs) == 1] == [("a",), ("s",)]


@pytest.fixture
def middle_edit(tmp_path: Path) -> Path:
    """gate-edge's T_2 with its first gather layer's sign read as the gathered value (that layer only): no schematic
    lemma witness, so prove-construction's candidate search refutes it, on a shrunk witness."""
    data = transformer_to_json(construction("gate-edge").transformer(2))
    body = list(data["functions"][data["layers"][1]["activation"]])
    body[body.index("sign_value = sign gather.val")] = "sign_value = add gather.val"
    data["functions"]["edited"], data["layers"][1]["activation"] = body, "edited"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_prove_construction_says_what_its_witness_was_shrunk_from(middle_edit: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``--json``'s circuit is "as for refute" (docs/cli.md): it has ``shrunk_from``; the text says it too."""
    args = ["prove-construction", "gate-edge", "-K", "2", "--transformer", str(middle_edit), "--budget", "30"]
    assert main([*args, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    circuit = out["circuit"]
    assert set(circuit) == {"name", "gates", "edges", "inputs", "text", "shrunk_from"}
    first = circuit["shrunk_from"]
    assert first is not None and first["gates"] > circuit["gates"] and circuit["name"].endswith("-shrunk")
    witness = parse_circuit_text(circuit["text"])
    transformer = transformer_from_json(json.loads(middle_edit.read_text(encoding="utf-8")))
    encoding = construction("gate-edge").encode(witness)
    xs = [Fraction(v) for v in out["counterexample"]["input_vector"]]
    run = reference_run(transformer, encoding.instantiate(xs))
    assert tuple(map(Fraction, encoding.read(run.layers[-1].vectors))) != tuple(evaluate(witness, xs))
    assert main(args) == 1
    text = capsys.readouterr().out
    assert f"shrunk from  {first['gates']} gates, {first['edges']} edges and {first['outputs']} output" in text
    assert "witness circuit:\n" in text
