"""Harmless edits are proved, their twins inside the read-out's cone are refuted (issue 20, P9).

The schematic lemmas claim only what the read-out depends on (``kernel/schematic_relevance.py``):
a head no activation reads has no attention lemma, a coordinate no later layer reads is not framed,
and layers after the 2K keep a gate's row whatever they do at edges.  Each harmless edit of
``transformer_edits.py`` must be *proved* (and the kernel accept its certificate); each twin, the
same edit reaching the read-out, must be *refuted* with a witness the exact engine replays."""

from __future__ import annotations

from fractions import Fraction

import pytest

import transformer_edits as edits
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.measures import measure
from verified_aat.cli.main import main
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel.schematic import check_schematic
from verified_aat.schematic import prove_construction
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import save_transformer

ALL = ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right", "edge-k", "edge-only"]
GATE_EDGE = ["gate-edge", "unique-hard", "unique-hard-left"]
HARMLESS = [(edits.with_unused_head, name) for name in ALL] + [
    (edits.scribble_last_layer, name) for name in ("gate-edge", "gate-edge-dot", "unique-hard-right", "edge-k",
                                                    "edge-only")] + [
    (edits.with_edge_layer, name) for name in GATE_EDGE]
WRONG = [(edits.with_read_head, "gate-edge"), (edits.with_read_head, "edge-only"),
         (lambda T: edits.scribble_last_layer(T, also_readout=True), "edge-k"),
         (lambda T: edits.scribble_last_layer(T, also_readout=True), "unique-hard-left"),
         (lambda T: edits.with_edge_layer(T, also_gates=True), "gate-edge-dot")]


def _id(case) -> str:  # type: ignore[no-untyped-def]
    edit, name = case
    return f"{getattr(edit, '__name__', 'twin')}-{name}"


@pytest.mark.parametrize("case", HARMLESS, ids=[_id(c) for c in HARMLESS])
def test_a_harmless_edit_is_proved_and_the_kernel_accepts_it(case):
    edit, name = case
    construction = get_construction(name)
    T = edit(construction.transformer(2))
    result = prove_construction(construction, transformer=T)
    assert result.status == "proved", result.problems
    assert check_schematic(result.certificate).outcome == "accepted"
    if edit is edits.with_unused_head:  # one block repeated: every K, and spy has no attention lemma
        assert result.depth_bound is None
        assert not any("head spy" in lemma["smt2"].splitlines()[1] for lemma in result.certificate["lemmas"])
    else:
        assert result.depth_bound == 2


@pytest.mark.parametrize("case", WRONG, ids=[f"twin-{c[1]}" for c in WRONG])
def test_the_same_edit_inside_the_read_outs_cone_is_refuted_and_replayed(case):
    edit, name = case
    construction = get_construction(name)
    T = edit(construction.transformer(2))
    result = prove_construction(construction, transformer=T, witness_budget=30.0)
    assert result.status == "refuted", result.problems
    circuit, cx = result.refutation.circuit, result.refutation.counterexample
    xs = [Fraction(x) for x in cx.inputs]
    assert measure(circuit).depth <= 2
    encoding = construction.encode(circuit)
    assert encoding.read(run_exact(T, encoding.instantiate(xs)).outputs) != evaluate(circuit, xs)


def test_a_certificate_of_the_harmless_edit_does_not_cover_its_twin():
    """The kernel derives what is needed from the embedded T: the twin reads spy, so the harmless
    edit's lemma list (no spy lemmas) is not the twin's, whatever the certificate says."""
    from verified_aat.certificates.kernel_form import sha256_json, transformer_form

    construction = get_construction("gate-edge")
    cert = prove_construction(construction, transformer=edits.with_unused_head(construction.transformer(2))).certificate
    twin = transformer_form(edits.with_read_head(construction.transformer(2)))
    forged = {**cert, "transformer": twin, "hashes": {"transformer": sha256_json(twin)}}
    report = check_schematic(forged)
    assert report.outcome == "rejected" and "schematic-lemmas" in str(report.rejections[0])


def test_relevance_names_the_unread_head_and_coordinates():
    from verified_aat.kernel.data import load_transformer
    from verified_aat.kernel.derivation import layer_functions
    from verified_aat.kernel.schematic_relevance import needs
    from verified_aat.certificates.kernel_form import transformer_form

    base = get_construction("gate-edge").transformer(2)
    T = load_transformer(transformer_form(edits.scribble_last_layer(edits.with_unused_head(base))))
    functions = layer_functions(T)
    val = T.coordinates.index("val")
    found = needs(T, functions, val, trailing=0, every_K=False)
    last = next(fn for fn in functions if 4 in fn.layers)
    assert found.coordinates[last.number] == {val}  # after the last layer only val is read
    assert all(1 not in found.heads[fn.number] for fn in functions)  # spy (head 1) is never read
    assert all(0 in found.heads[fn.number] for fn in functions)
    first = next(fn for fn in functions if 1 in fn.layers)
    assert found.coordinates[first.number] == set(range(T.dimension))  # earlier, everything is read


@pytest.mark.parametrize("name", ["gate-edge", "edge-k"])
def test_the_cli_proves_harmless_edits_and_refutes_their_twins(name, tmp_path, capsys):
    construction = get_construction(name)
    base = construction.transformer(2)
    harmless, twin = tmp_path / "harmless.json", tmp_path / "twin.json"
    save_transformer(edits.scribble_last_layer(base), harmless)
    save_transformer(edits.with_read_head(base), twin)
    assert main(["prove-construction", name, "--transformer", str(harmless)]) == 0
    assert "result       PROVED" in capsys.readouterr().out
    assert main(["refute", str(harmless), "-c", name, "--budget", "20"]) == 0
    assert "no counterexample exists" in capsys.readouterr().out
    assert main(["prove-construction", name, "--transformer", str(twin), "--budget", "20"]) == 1
    assert "<-- differs" in capsys.readouterr().out
    assert main(["refute", str(twin), "-c", name, "--budget", "20"]) == 1
    assert "<-- differs" in capsys.readouterr().out


def test_a_missing_last_layer_is_not_mistaken_for_a_trailing_layer():
    """T_3 without its last layer is meant for K = 3 and is refuted there; it is not proved as
    T_2 plus a trailing layer (its odd layer is the first of a pair)."""
    construction = get_construction("gate-edge")
    T = construction.transformer(3)
    from dataclasses import replace
    result = prove_construction(construction, transformer=replace(T, layers=T.layers[:-1]), witness_budget=30.0)
    assert result.status == "refuted"


def _one_add_of_fan_in_65(out: str) -> bool:
    adds = [line for line in out.splitlines() if " = add " in line]
    return len(adds) == 1 and len(adds[0].split(" = add ")[1].split()) == 65


def test_a_transformer_wrong_only_past_fan_in_64_is_refuted_by_one_add_of_fan_in_65(tmp_path, capsys):
    """The edit is in T (the add reads min(code, 64)), not in the encoding: prove-construction --transformer
    and refute both build the witness from the false lemma's model, not from a search over small circuits."""
    edited = tmp_path / "cap64.json"
    save_transformer(edits.cap_add_fan_in(get_construction("gate-edge").transformer(2)), edited)
    assert main(["prove-construction", "gate-edge", "--transformer", str(edited), "--budget", "30"]) == 1
    out = capsys.readouterr().out
    assert _one_add_of_fan_in_65(out) and "<-- differs" in out and "result       REFUTED" in out
    assert main(["refute", str(edited), "-c", "gate-edge", "--budget", "30"]) == 1
    assert _one_add_of_fan_in_65(capsys.readouterr().out)


def test_edge_k_wrong_only_past_fan_in_64_is_refuted_too():
    construction = get_construction("edge-k")
    T = edits.cap_add_fan_in(construction.transformer(2))
    result = prove_construction(construction, transformer=T, witness_budget=30.0)
    assert result.status == "refuted"
    circuit = result.refutation.circuit
    assert [len(g.args) for g in circuit.gates if g.kind.value == "add"] == [65]
    xs = [Fraction(x) for x in result.refutation.counterexample.inputs]
    encoding = construction.encode(circuit)
    assert encoding.read(run_exact(T, encoding.instantiate(xs)).outputs) != evaluate(circuit, xs)
