"""Red team, round 28: the refute direction and the concrete engines.

Tried: about 920 single-edit mutants of compiled transformers (a constant, an operand, add for mul, sign replaced, a
pooling rule, a layer dropped, swapped or repeated) of the seven built-in constructions on nine spec circuits, through
``certify`` (three quarters refuted, a fifth proved, 7% unknown), each verdict judged by the independent reference run
(``audit/reference.py``) on 0/1 and random rational inputs; the first 56 unknown ones through ``refute`` (52 refuted, 2
proved, 2 unknown: right for every circuit of their depth); about 460 construction documents edited in one row
formula, constant, schedule rule, hint, read-out or pooling, on three circuits each; ``prove-construction`` of 100
transformer and 69 document mutants at K = 2, each proof judged on about 30 random circuits of depth ≤ 2; hand-made
"needle" mutants wrong only at one value, only past 1000, only at sqrt(2), only for ids past a threshold (``certify``,
``certify --every-k``, ``prove-construction``); the settled, full and reference runs on every mutant of five
constructions (about 9,000 runs) and the float engine against the exact one (about 7,600); ``eval`` against the exact
and float runs on 170 random circuits (sign at 0, rational constants, repeated outputs, outputs that are inputs, no
inputs) under five constructions, and on c17, c432 and EPFL ctrl at 0/1 vectors in both arithmetizations.

Held: no mutant was proved where the reference run found a wrong output; every refutation replayed (the stated input,
through T exactly, reads out what the report says; the report's values are the reference run's); no crash or hang;
the exact engines agreed with ``eval`` and with each other everywhere.

Found: (1) a counterexample report's last step, the layer from which a read-out departs from C, said layer 1 for a
read-out that was never C's value, not even in enc(C, x) itself (a construction reading out a structural coordinate):
the departure now counts from layer 0 (``refutation/search.py``, ``_departure``); and a gate scheduled past T's last
layer (a mutant with a layer dropped) showed "transformer None": now the value at the last layer, the one read out
(``_report``).  (2) ``run --engine float64/float32`` printed wrong read-outs silently: sign(1/10 + 2/10 - 3/10) read
1.0 (exactly 0: 1/10 is not a float) and a read-out of x^1024 read nan; only the argmax bound was warned about.  Now a
float run on an encoding warns when the dtype rounds enc(C, x) (an input or a row value it cannot hold) or a read-out
is not finite or past the mantissa (``cli/run_exec.py``).  (3) a weakness: a T_K missing its last layer at K = 31 was
*unknown* after ``refute``'s and ``prove-construction``'s whole budget (261 circuits), where a chain of 31 sums
refutes it: the candidates lifted to depth K came after every shallower one; now shallowest and deepest in turn
(``refutation/candidates.py``).  (4) the same weakness for one middle layer: a T_31 with one gather layer edited for
sign gates (layer 32 or 42 of 62; also at K = 8 and 12) was *unknown*, since its witnesses need a sign gate at that
layer's depth *and* its value carried on to depth K (read out at once, the error heals a layer later), a shape no
candidate had; now each single-gate shape also comes computed at every depth and carried on to K, one circuit per
shape (``candidates.stacked``), among the lifted ones: refuted at K = 8, 12 and 31 (13, 13 and 22 CPU s).

Left: rounding inside T's own activations (gate-edge's 1/6, means over sets of three) with exact inputs and small
read-outs is not warned about, nor is a float run of ``--sequence``; a settled replay's value that is ⊥ at a
scheduled layer would still show as None (not met: a read-out ⊥ makes the replay run in full); a witness found by
``stacked`` is the whole stacked circuit, not cut down to the one copy that goes wrong.

The known-wrong mutants stay here: never proved, refuted with a counterexample that the reference run replays.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

import verified_aat as va
from verified_aat.api import construction
from verified_aat.audit.reference import reference_run
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.measures import depth
from verified_aat.cli.main import main
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import transformer_from_json, transformer_to_json

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs" / "circuits"


def _reference_readout(circuit: va.Circuit, transformer, encoding, xs) -> tuple[Fraction, ...]:  # type: ignore[no-untyped-def]
    run = reference_run(transformer, encoding.instantiate(list(xs)))
    return tuple(map(Fraction, encoding.read(run.layers[-1].vectors)))


def _replayed(circuit: va.Circuit, transformer, encoding, cx) -> bool:  # type: ignore[no-untyped-def]
    """The report's input, through T by the independent reference run, reads out what the report says, not C(x)."""
    got = _reference_readout(circuit, transformer, encoding, cx.inputs)
    want = tuple(map(Fraction, evaluate(circuit, list(cx.inputs))))
    return got == tuple(cx.actual) and want == tuple(cx.expected) and got != want


def test_a_read_out_never_right_departs_at_layer_0(tmp_path: Path) -> None:
    """gate-edge read out at coordinate ``a`` (the gate's id): wrong already in enc(C, x). The report's last step said
    "layer 1"; the read-out departs at layer 0, with the id as the transformer's value."""
    doc = json.loads((ROOT / "verified_aat" / "data" / "constructions" / "gate-edge.json").read_text(encoding="utf-8"))
    doc["name"], doc["readout"]["coordinate"] = "gate-edge-reads-a", "a"
    path = tmp_path / "reads-a.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    circuit = va.load_circuit(SPECS / "abs_via_sign.circ")
    result = va.certify(circuit, str(path), timeout=5)
    assert result.status == "refuted" and _replayed(circuit, result.transformer, result.encoding, result.counterexample)
    last = result.counterexample.steps[-1]
    assert not last.agrees and last.layer == 0 and last.transformer_value == 2 and last.gate == "abs_x"
    assert all(s.agrees for s in result.counterexample.steps[:-1])


def test_a_step_scheduled_past_the_last_layer_shows_the_value_there() -> None:
    """mixed_depth6's T_6 without its last layer: the output's step, scheduled at layer 12 of 11, showed "transformer
    None". Now the value at layer 11, the one read out, as the reference run has it."""
    circuit, data = _mixed()
    del data["layers"][-1]
    transformer = transformer_from_json(data)
    result = va.certify(circuit, "gate-edge", transformer=transformer, timeout=5)
    assert result.status == "refuted" and _replayed(circuit, transformer, result.encoding, result.counterexample)
    last = result.counterexample.steps[-1]
    assert last.gate == "out" and last.layer == 11 and not last.agrees and last.transformer_value is not None
    run = reference_run(transformer, result.encoding.instantiate(list(result.counterexample.inputs)))
    assert last.transformer_value in run.layers[10].vectors[last.position]


def _compile(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "c.circ").write_text(text, encoding="utf-8")
    assert main(["compile", str(tmp_path / "c.circ"), "-c", "gate-edge", "-o", str(tmp_path / "out")]) == 0
    return [str(tmp_path / "out" / "transformer.json"), "--encoding", str(tmp_path / "out" / "encoding.json")]


@pytest.mark.parametrize("engine", ["float64", "float32"])
def test_a_float_run_warns_when_it_rounds_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    engine: str) -> None:
    """sign(x + y + z) at (1/10, 2/10, -3/10) is 0; float64 read 1.0 and float32 -1.0, with no warning."""
    model = _compile(tmp_path, "input x y z\na = add x y z\ns = sign a\noutput s\n")
    capsys.readouterr()
    assert main(["run", *model, "--input=1/10,2/10,-3/10", "--engine", engine]) == 0
    err = capsys.readouterr().err
    assert f"warning: 1/10 in enc(C, x) is not a {engine}" in err and "exact engine" in err
    assert main(["run", *model, "--input=1/4,2,-3/4", "--engine", engine]) == 0  # dyadic: exact, no warning
    assert "warning" not in capsys.readouterr().err
    (tmp_path / "x.txt").write_text("1,2,3\n1/10,2/10,-3/10\n1/5,0,0\n", encoding="utf-8")
    assert main(["run", *model, "--inputs", str(tmp_path / "x.txt"), "--engine", engine]) == 0
    assert capsys.readouterr().err.count("warning") == 1  # once, at the first vector it rounds


def test_a_float_run_warns_on_a_read_out_past_the_mantissa(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """x^1024 - 1 + 1 and its sign at x = 3 read nan, nan in float64, silently; the exact value is 3^1024."""
    squarings = "".join(f"a{k} = mul a{k - 1} a{k - 1}\n" for k in range(1, 11))
    model = _compile(tmp_path, "input x\na0 = add x\n" + squarings + "b = add a10 1\nc = add b -1\ns = sign c\noutput c s\n")
    capsys.readouterr()
    assert main(["run", *model, "--input=3", "--engine", "float64"]) == 0
    out, err = capsys.readouterr()
    assert "nan" in out and "warning: a read-out is nan (not finite" in err


def _mixed() -> tuple[va.Circuit, dict]:  # type: ignore[type-arg]
    circuit = va.load_circuit(SPECS / "mixed_depth6.circ")
    return circuit, transformer_to_json(va.compile(circuit, "gate-edge").transformer)


def _edit(data: dict, function: str, target: str, lines: list[str], last: str) -> dict:  # type: ignore[type-arg]
    """``function``'s line ``target = …`` replaced by ``lines`` and ``target = last`` (``old`` names its old value)."""
    data = copy.deepcopy(data)
    body = data["functions"][function]
    i = next(k for k, line in enumerate(body) if line.startswith(f"{target} ="))
    body[i:i + 1] = lines + [f"old = {body[i].split(' = ', 1)[1]}", f"{target} = {last}"]
    return data


NEEDLES = {  # gate-edge's gather activation, wrong on mixed_depth6 only at a point or past a bound
    "sign wrong at 7/3": ("sign_value", ["m = const -7/3", "d = add gather.val m", "d2 = mul d d", "s2 = sign d2"],
                          "mul old s2"),
    "val wrong past 1000": ("new_val", ["m = const -1000", "v = add x.val m", "big = sign v", "b1 = add big 1",
                                        "bb = mul b1 b1"], "add old bb"),
    "val wrong at 10^6/7": ("new_val", ["m = const -1000000/7", "v = add x.val m", "v2 = mul v v", "s = sign v2",
                                        "one = const 1", "mone = const -1", "ns = mul mone s", "hit = add one ns"],
                            "add old hit"),
    "sign wrong on (-1, 0)": ("sign_value", ["v2 = mul gather.val gather.val", "t = add gather.val v2"], "sign t"),
}


@pytest.mark.parametrize("name", sorted(NEEDLES))
def test_needle_mutants_are_refuted_with_a_replayed_counterexample(name: str) -> None:
    circuit, data = _mixed()
    target, lines, last = NEEDLES[name]
    transformer = transformer_from_json(_edit(data, "activation-gather", target, lines, last))
    result = va.certify(circuit, "gate-edge", transformer=transformer, timeout=5)
    assert result.status == "refuted", result.problems
    assert _replayed(circuit, transformer, result.encoding, result.counterexample)


def test_a_mutant_wrong_only_at_an_irrational_point_is_not_proved() -> None:
    """new_val + [val^2 = 2]: right at every rational x, wrong over the reals (the theorem's x ∈ ℝⁿ)."""
    circuit, data = _mixed()
    transformer = transformer_from_json(_edit(data, "activation-gather", "new_val", [
        "v2 = mul x.val x.val", "m = const -2", "q = add v2 m", "q2 = mul q q", "s = sign q2", "one = const 1",
        "mone = const -1", "ns = mul mone s", "hit = add one ns"], "add old hit"))
    result = va.certify(circuit, "gate-edge", transformer=transformer, timeout=1)
    assert result.status == "unknown" and result.counterexample is None


def test_a_fetch_wrong_only_past_an_id_is_proved_below_it_and_refuted_for_every_k() -> None:
    """score-a plus 4 where j.a > 5: right on abs_via_sign (ids 0..2), so certify proves it there; for every circuit
    of depth ≤ 2 it is wrong, and prove-construction and certify --every-k must say so."""
    gate_edge = construction("gate-edge")
    data = transformer_to_json(gate_edge.transformer(2))
    transformer = transformer_from_json(_edit(data, "score-a", "score", [
        "thr = const -5", "ja = add j.a thr", "big = sign ja", "b1 = add big 1", "pen = mul b1 b1"], "add old pen"))
    small = va.load_circuit(SPECS / "abs_via_sign.circ")
    assert va.certify(small, gate_edge, transformer=transformer, timeout=5).status == "proved"
    assert va.certify(small, gate_edge, transformer=transformer, timeout=5, every_k=True).status == "unknown"
    proof = va.prove_construction(gate_edge, depth_bound=2, transformer=transformer, timeout=10, witness_budget=60)
    assert proof.status == "refuted" and proof.refutation is not None
    witness, cx = proof.refutation.circuit, proof.refutation.counterexample
    compiled = va.compile(witness, gate_edge, depth_bound=2)
    assert _replayed(witness, transformer, compiled.encoding, cx)


def test_a_t_k_missing_its_last_layer_at_a_large_k_is_refuted_at_depth_k() -> None:
    """gate-edge's T_31 without its last layer (61 layers, meant for K = 31) is right on every circuit of depth ≤ 30:
    ``refute`` (and ``prove-construction``) tried 261 circuits in their 60 s and found nothing, since the single-gate
    shapes lifted to depth K came last. Now shallowest and deepest in turn: a witness of depth 31 at once."""
    gate_edge = construction("gate-edge")
    data = transformer_to_json(gate_edge.transformer(31))
    del data["layers"][-1]
    transformer = transformer_from_json(data)
    found = va.refute(transformer, gate_edge, budget=60)
    assert found.status == "refuted" and found.circuit is not None and depth(found.circuit) == 31
    encoding, xs = va.compile(found.circuit, gate_edge, depth_bound=31).encoding, list(found.counterexample.inputs)
    full = encoding.read(run_exact(transformer, encoding.instantiate(xs)).outputs)  # every pair, every value
    assert tuple(full) == found.counterexample.actual != tuple(evaluate(found.circuit, xs))


def test_stacked_shapes_compute_the_shape_at_every_depth_up_to_k() -> None:
    """``stacked``: each copy of a shape reads out the shape's outputs, the copies at depths 1 … K − depth + 1, every
    output carried on to depth K (so the circuit has depth K)."""
    from verified_aat.refutation.candidates import _basic, stacked
    for shape in (c for c in _basic() if depth(c) >= 1):
        whole = stacked(shape, 9)
        xs = [Fraction(7, 3) - k for k in range(shape.n_inputs)]
        one, every, n = evaluate(shape, xs), evaluate(whole, xs), len(shape.outputs)
        assert depth(whole) == 9 and len(every) == n * (9 - depth(shape) + 1), shape.name
        assert all(tuple(every[i:i + n]) == tuple(one) for i in range(0, len(every), n)), shape.name


def test_a_middle_layer_edit_of_t_k_is_refuted_by_a_shape_carried_on_to_depth_k() -> None:
    """gate-edge's T_12 with its 6th gather layer (layer 12 of 24) computing sign_value as the gathered value itself:
    wrong only on a sign gate of depth 6 whose value is carried on (read out at once, the error heals a layer later),
    so no lifted shape and no random circuit found it (unknown after a budget of 240 s, 150 CPU s; also at K = 31).
    The sign shape at every depth, carried on to depth K, is a witness (13 CPU s); the counterexample replays."""
    gate_edge = construction("gate-edge")
    data = transformer_to_json(gate_edge.transformer(12))
    body = list(data["functions"][data["layers"][11]["activation"]])
    body[body.index("sign_value = sign gather.val")] = "sign_value = add gather.val"
    data["functions"]["edited"], data["layers"][11]["activation"] = body, "edited"
    transformer = transformer_from_json(data)
    found = va.refute(transformer, gate_edge, budget=240)
    assert found.status == "refuted" and found.circuit is not None and found.circuit.name.startswith("sign-at-every")
    encoding = va.compile(found.circuit, gate_edge, depth_bound=12).encoding
    assert _replayed(found.circuit, transformer, encoding, found.counterexample)


# single-line edits of compiled transformers (of the ~1,100 tried), each refuted on the circuit named
EDITS = [
    ("gate-edge", "sign_at_zero", "activation-gather", "sign_value = sign gather.val", "sign_value = add gather.val"),
    ("gate-edge", "rational_constants", "activation-gather", "g27 = const 1/6", "g27 = const 7/6"),
    ("edge-k", "abs_via_sign", "score-all", "key_diff = add i.src g10", "key_diff = add g10 g10"),
    ("gate-edge-dot", "abs_via_sign", "activation-gather", "is_sign = mul not_add g44", "is_sign = add not_add g44"),
    ("edge-only", "abs_via_sign", "activation-step", "g13 = add g11 g12", "g13 = add g12"),
    ("unique-hard", "abs_via_sign", "activation-gather", "g51 = const 1/48", "g51 = const -47/48"),
]


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: f"{e[0]}-{e[1]}-{e[4]}")
def test_single_edits_are_refuted_with_a_replayed_counterexample(edit: tuple) -> None:  # type: ignore[type-arg]
    name, circuit_name, function, old, new = edit
    circuit = va.load_circuit(SPECS / f"{circuit_name}.circ")
    compiled = va.compile(circuit, name)
    data = transformer_to_json(compiled.transformer)
    body = data["functions"][function]
    body[body.index(old)] = new
    transformer = transformer_from_json(data)
    result = va.certify(circuit, name, transformer=transformer, timeout=5)
    assert result.status == "refuted", result.problems
    assert _replayed(circuit, transformer, compiled.encoding, result.counterexample)
