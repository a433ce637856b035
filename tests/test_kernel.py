"""The trusted kernel's structure and its independent parts.

* it imports nothing from the rest of verified_aat, and only a short list of libraries;
* every check names a step of docs/soundness.md that exists;
* its printer, layouts and join agree with the engine's / with brute force (N-version checks);
* a solver that gives up makes the verdict *not checked* (exit 3), never accepted or rejected;
* hostile sizes are refused before any work.
"""

from __future__ import annotations

import ast
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutants
from checking import check
from forge import Forgery, forge
from strategies import circuits
from verified_aat.certificates.document import build_certificate, dumps_certificate
from verified_aat.certificates.kernel_form import encoding_digest as engine_encoding_digest
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.smtlib import circuit_term
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import CertificateFileError, parse_certificate
from verified_aat.kernel import solvers as kernel_solvers
from verified_aat.kernel.attention import brute_force, budget_for, join
from verified_aat.kernel.checks import CHECKS
from verified_aat.kernel.data import load_circuit
from verified_aat.kernel.agreement import encoding_digest
from verified_aat.kernel.layouts import OutsideLayout
from verified_aat.kernel.encoding import build as build_encoding
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.kernel.smt import term
from verified_aat.symbolic.certify import certify

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "verified_aat" / "kernel"
ALLOWED_LIBRARIES = {"z3", "cvc5"}
DEFENCE_ONLY = {"gmpy2"}  # fast exact rationals for the interpreter, which is not part of the proof


def _kernel_circuit(circuit):
    return load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$", extra_keys={"format", "version", "domain"})


# -- structure ------------------------------------------------------------------------------

def test_the_kernel_imports_only_itself_the_standard_library_and_the_solvers():
    for path in KERNEL.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    assert node.level == 1, f"{path.name}: imports from outside the kernel: {node.module}"
                    continue
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = ALLOWED_LIBRARIES | (DEFENCE_ONLY if path.name == "defence_compile.py" else set())
                assert top in sys.stdlib_module_names or top in allowed, f"{path.name} imports {name}"


def test_every_check_is_named_once_and_points_to_a_step_of_the_soundness_argument():
    soundness = (ROOT / "docs" / "soundness.md").read_text()
    names = [c.name for c in CHECKS]
    assert len(set(names)) == len(names)
    for c in CHECKS:
        assert f"**{c.step} —" in soundness or f"## {c.step} —" in soundness, c
        assert f"`{c.name}`" in soundness, c.name
        assert c.rule and c.rule[0].islower()


def test_the_readme_states_the_kernels_size_and_imports():
    readme = (ROOT / "README.md").read_text()
    lines = sum(len(p.read_text().splitlines()) for p in KERNEL.glob("*.py"))
    assert f"{lines:,} lines" in readme or f"{lines} lines" in readme, lines
    assert "verified_aat/kernel" in readme and "z3" in readme and "cvc5" in readme


# -- N-version agreement ------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(circuits(max_gates=12, max_inputs=3))
def test_the_kernels_printer_agrees_with_the_engines(circuit):
    params = [f"p{i}" for i in range(circuit.n_inputs)]
    kernel_circuit = _kernel_circuit(circuit)
    for k in range(len(circuit.outputs)):
        assert term(kernel_circuit, k, params) == circuit_term(circuit, k, params)


@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only", "edge-k"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuit=circuits(max_gates=10, max_inputs=3))
def test_the_kernels_layouts_agree_with_the_constructions_encoders(name, circuit):
    construction = get_construction(name)
    try:
        engine = construction.encode(circuit)
    except Exception:  # noqa: BLE001 - outside the class: the kernel's layout must refuse it too
        with pytest.raises(OutsideLayout):
            build_encoding(shipped_construction(name), _kernel_circuit(circuit))
        return
    assert encoding_digest(build_encoding(shipped_construction(name), _kernel_circuit(circuit))) == engine_encoding_digest(engine)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4), st.integers(0, 3),
                          st.sampled_from([0, 1, Fraction(1, 2)])), min_size=1, max_size=12))
def test_the_key_join_equals_brute_force(rows):
    """argmin_j (rk_i − ck_j)² + pen_j by the join equals the argmax of the score on all pairs."""
    from verified_aat.circuits.builder import CircuitBuilder

    def circuit(build, arity):
        b = CircuitBuilder("k")
        w = [b.input(f"v{i}") for i in range(arity)]
        b.output(build(b, w))
        return _kernel_circuit(b.build())

    keys = {"row_key": circuit(lambda b, w: b.add(w[0], w[3]), 4), "col_key": circuit(lambda b, w: w[1], 4),
            "col_penalty": circuit(lambda b, w: w[2], 4)}
    score = circuit(lambda b, w: b.neg(b.add(b.square(b.sub(b.add(w[0], w[3]), w[5])), w[6])), 8)
    assert join(rows, keys, budget_for(rows)) == brute_force(rows, score, budget_for(rows))


# -- outcomes ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certificate_file(tmp_path_factory):
    result = certify(mutants.probe_circuit(), get_construction("gate-edge"))
    path = tmp_path_factory.mktemp("cert") / "probe.cert.json"
    path.write_text(dumps_certificate(build_certificate(result, include_timings=False)))
    return path


@pytest.fixture
def every_k_without_objects(tmp_path) -> Path:
    """The gate-edge every-K certificate without its proof objects: its ordering lemmas then rest on the
    solver (S12b), as a user's certificate without objects does."""
    doc = json.loads((Path(__file__).resolve().parent.parent / "proofs" / "constructions" /
                      "gate-edge.every-K.schematic.json").read_text())
    for entry in doc["lemmas"]:
        entry.pop("proof", None)
    path = tmp_path / "every-K-no-objects.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_solver_that_gives_up_means_not_checked_with_exit_3(monkeypatch, capsys, every_k_without_objects):
    EVERY_K = every_k_without_objects
    monkeypatch.setitem(kernel_solvers.SOLVERS, "z3", lambda text, timeout: "unknown (timeout)")
    report = check(json.loads(EVERY_K.read_text()))
    assert report.outcome == "not-checked" and not report.rejections and not report.accepted
    asked = [u for u in report.unchecked if "not asked" not in u]  # after 3 undecided, the rest are not asked
    assert len(asked) == 3 and all("unknown (timeout)" in u for u in asked)
    assert all("not asked: 3 lemmas were left undecided before it" in u for u in report.unchecked if u not in asked)
    assert main(["check", str(EVERY_K)]) == 3
    out = capsys.readouterr().out
    assert "NOT CHECKED" in out and "not checked  schematic:attention" in out


def test_the_solvers_total_time_is_bounded_per_certificate(monkeypatch, every_k_without_objects):
    """True lemmas that each take a solver just under its limit: past TOTAL_FACTOR limits in all, the rest are
    not asked, and the verdict is not checked (each lemma had a limit, the certificate none)."""
    from types import SimpleNamespace
    asked, clock = [], [0.0]  # the solvers' clock: each answer takes 19 ms of a 20 ms limit (no wall clock read)

    def slow_unsat(text, timeout_ms):
        asked.append(text)
        clock[0] += 0.019
        return "unsat"

    monkeypatch.setitem(kernel_solvers.SOLVERS, "z3", slow_unsat)
    monkeypatch.setattr(kernel_solvers, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(kernel_solvers, "TOTAL_FACTOR", 2)
    report = check(json.loads(every_k_without_objects.read_text()), timeout_ms=20)
    assert report.outcome == "not-checked" and not report.rejections
    assert len(asked) == 3 and report.lemmas > 4  # at 0, 19 and 38 ms of 40; at 57 ms the rest are not asked
    assert any("solvers ran past 2 times the limit per lemma" in u for u in report.unchecked)
    assert kernel_solvers.solve_all([("x", "z3")] * 3, None) == ["unsat"] * 3  # no limit per lemma: none in all


def test_a_solver_that_finds_a_model_means_rejected(certificate_file, monkeypatch, capsys, every_k_without_objects):
    monkeypatch.setitem(kernel_solvers.SOLVERS, "z3", lambda text, timeout: "sat")
    assert main(["check", str(every_k_without_objects)]) == 1
    assert "REJECTED" in capsys.readouterr().out
    assert main(["check", str(certificate_file)]) == 0  # every lemma by the kernel's normal form: z3 not asked
    assert main(["check", str(certificate_file), "--solver", "z3"]) == 3  # a second opinion that disagrees
    assert "a kernel or solver bug" in capsys.readouterr().out


def test_an_accepted_certificate_states_its_theorem(certificate_file, capsys):
    assert main(["check", str(certificate_file), "--solver", "both"]) == 0
    out = capsys.readouterr().out
    assert "theorem      for every x in R^3" in out and "enc_gate-edge(C, x) reads out C(x)" in out
    assert "transformer  the construction's own T_K" in out


@pytest.mark.parametrize("argv,where", [(["--timeout", "0"], "--timeout"), (["--timeout", "-1"], "--timeout"),
                                        (["--defence-budget", "-5"], "--defence-budget")])
def test_bad_options_are_one_line_errors(certificate_file, capsys, argv, where):
    assert main(["check", str(certificate_file), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and where in err[0]


@pytest.mark.parametrize("raw,message", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b'{"a": NaN}', "NaN"), (b"\xff\xfe", "UTF-8"),
    (b"[1, 2]", "not a JSON object"), (b'{"format": ', "invalid JSON")])
def test_unreadable_certificates_are_bad_input(raw, message):
    with pytest.raises(CertificateFileError, match=message):
        parse_certificate(raw, "x.json")


# -- hostile sizes ----------------------------------------------------------------------------------

def _probe_doc():
    return forge(Forgery(mutants.probe_circuit()))


def test_a_number_with_too_many_digits_is_refused_before_work():
    doc = _probe_doc()
    doc["circuit"]["gates"].append(["const", "7" * 100_000])
    report = check(doc)  # a size limit: not checked, before any work (docs/soundness.md, Limits)
    assert report.outcome == "not-checked" and not report.rejections
    assert report.unchecked[0].startswith("circuit: $.circuit.gates[") and "more than 2000 characters" in report.unchecked[0]


def test_transformer_circuits_of_huge_degree_are_refused():
    doc = _probe_doc()
    gates = doc["transformer"]["functions"][0]["gates"]
    square = len(gates) - 1
    for _ in range(8):
        gates.append(["mul", [square, square]])
        square = len(gates) - 1
    report = check(doc)
    assert report.outcome == "not-checked" and not report.rejections
    assert report.unchecked[0].startswith("transformer: ") and "degree above 64" in report.unchecked[0]


def test_a_circuit_that_explodes_on_concrete_inputs_does_not_hang_the_interpreter():
    from verified_aat.circuits.builder import CircuitBuilder

    b = CircuitBuilder("tower")
    v = b.add(b.input("x"), b.const(3))
    for _ in range(24):  # (x + 3)^(2^24): far beyond the kernel's number size
        v = b.mul(v, v)
    b.output(v)
    result = certify(b.build(), get_construction("gate-edge"), refute=False)
    assert result.status == "proved"
    report = check(json.loads(dumps_certificate(build_certificate(result))))
    assert report.accepted and "grow too large" in report.defence


def test_binarized_random_circuits_give_the_same_verdict_with_cvc5():
    circuit = binarize(mutants.probe_circuit()).circuit
    result = certify(circuit, get_construction("edge-only"))
    report = check(json.loads(dumps_certificate(build_certificate(result))), solvers=("cvc5",))
    assert report.accepted, report.reasons


def test_a_head_shared_by_two_layer_functions_counts_one_key_lemma_use_per_function():
    """Engine and kernel count a key lemma once per (layer function, head) that uses it."""
    from verified_aat.circuits.builder import CircuitBuilder
    from verified_aat.circuits.evaluate import fold_circuit
    from verified_aat.constructions.gate_edge import GateEdge
    from verified_aat.transformer.model import Layer, Transformer, activation_input_names

    ge = GateEdge()
    fetch, gather = ge.transformer(1).layers
    b = CircuitBuilder("fetch-again")
    names = activation_input_names(ge.coordinates, ["fetch"])
    w = [b.input(n) for n in names]
    outs = fold_circuit(fetch.activation, w, b.const, lambda xs: b.add(*xs), lambda xs: b.mul(*xs), b.sign)
    b.add(w[0], b.const(7))  # a dead gate: a different activation circuit, the same function
    for c, wire in zip(ge.coordinates, outs):
        b.output(wire, c)
    again = Layer(fetch.heads, b.build(), "fetch-again")
    T = Transformer(ge.coordinates, (fetch, gather, again, gather), "shared-head")
    c = CircuitBuilder("xy")
    x, y = c.input("x"), c.input("y")
    c.output(c.add(c.mul(x, y), x))
    result = certify(c.build(), ge, depth_bound=2, transformer=T)
    assert result.status == "proved", result.problems
    doc = json.loads(dumps_certificate(build_certificate(result)))
    key = [l for l in doc["lemmas"] if l["kind"] == "attention:key-decomposition"]
    assert sorted(l["uses"] for l in key) == [1, 2]
    assert check(doc).accepted, check(doc).reasons


def test_cvc5_is_stopped_at_its_time_limit_even_where_it_ignores_tlimit():
    """cvc5 ran on for minutes on edge-k's symbolic-add step lemma despite tlimit-per; the kernel now runs it
    in a forked process and kills it past the limit: the answer is unknown (not checked), never a hang."""
    import json
    from pathlib import Path

    from verified_aat.kernel.solvers import cvc5_answer, z3_answer
    doc = json.loads((Path(__file__).resolve().parent.parent / "proofs" / "constructions" /
                      "edge-k.every-K.schematic.json").read_text())
    lemma = next(item for item in doc["lemmas"] if "; function 0 step: a slot-0 edge out of a addk gate\n" in item["smt2"])
    answer = cvc5_answer(lemma["smt2"], 300)
    assert answer.startswith("unknown") and ("stopped" in answer or "TIMEOUT" in answer)  # killed, or it stopped
    assert z3_answer(lemma["smt2"], 20_000) == "unsat"  # the lemma itself is fine: z3 proves it
    assert cvc5_answer("(set-logic QF_LRA)(declare-const x Real)(assert (> x x))(check-sat)", 5000) == "unsat"


@pytest.mark.parametrize("kind", ["schematic", "audit"])
def test_out_of_memory_in_a_new_certificate_kind_is_not_checked_never_rejected(kind, monkeypatch):
    """As for per-circuit certificates (S12): a resource limit is no verdict, in schematic and audit checks too."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from verified_aat.kernel import audit_proof, check_certificate, schematic
    module, table = (schematic, "SCHEMATIC_CHECKS") if kind == "schematic" else (audit_proof, "AUDIT_CHECKS")
    if kind == "schematic":
        doc = json.loads((Path(__file__).resolve().parent.parent / "proofs" / "constructions" /
                          "gate-edge.every-K.schematic.json").read_text())
    else:
        from verified_aat.audit.prove import prove_audit
        from verified_aat.constructions.registry import get_construction
        doc = prove_audit(get_construction("gate-edge").transformer(1), [2]).certificate
    checks = list(getattr(module, table))

    def exhausted(ctx):
        raise MemoryError

    checks[-1] = replace(checks[-1], run=exhausted)
    monkeypatch.setattr(module, table, tuple(checks))
    report = check_certificate(doc)
    assert report.outcome == "not-checked" and not report.rejections
    assert any("out of memory" in item for item in report.unchecked)
