"""The settled run: values that have not settled are not computed (atoms, affine forms, ⊥), and every
number it does compute is the full run's (transformer/unknown.py, exact_engine's docstring).

The schedule is not trusted for this: random transformers with random — wrong — settle layers must
still give only numbers the full run gives.  For the constructions the read-out is computed (no fall
back), which lets netlists in exact arithmetization run: their unsettled values grow doubly
exponentially, and the full run of the c6288-like multiplier does not finish.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import circuits, input_vectors
from transformer_strategies import sequences, transformers
from verified_aat.circuits.evaluate import evaluate
from verified_aat.constructions.encoding import Encoding
from verified_aat.constructions.registry import CONSTRUCTIONS, get_construction
from verified_aat.errors import InputError
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer.exact_engine import ExactRunner, _Undetermined, run_exact
from verified_aat.transformer.unknown import UNKNOWN, Form, collapse, is_symbolic

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "circuits"
F = Fraction


# -- the abstraction itself ----------------------------------------------------------

OPS = ("add", "sub", "mul", "neg", "div", "sign")


def _evaluate(expr: tuple, env: dict[int, object]) -> object:
    """A random expression over atoms and constants, on numbers or on forms (the same code)."""
    op = expr[0]
    if op == "atom":
        return env[expr[1]]
    if op == "const":
        return expr[1]
    a = _evaluate(expr[1], env)
    if op == "neg":
        return -a
    if op == "sign":
        return UNKNOWN if is_symbolic(a) else (a > 0) - (a < 0)  # type: ignore[operator]
    if op == "div":  # exact: a number that cancelled (x − x) or a sign is an int, and int / int is a float
        return a / expr[2] if is_symbolic(a) else F(a) / expr[2]  # type: ignore[operator]
    b = _evaluate(expr[2], env)
    return a + b if op == "add" else a - b if op == "sub" else a * b  # type: ignore[operator]


def expressions(depth: int = 4) -> st.SearchStrategy[tuple]:
    leaf = st.one_of(st.tuples(st.just("atom"), st.integers(0, 2)),
                     st.tuples(st.just("const"), st.sampled_from([F(0), F(1), F(-1), F(2), F(1, 3)])))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(st.sampled_from(["add", "sub", "mul"]), inner, inner),
        st.tuples(st.sampled_from(["neg", "sign"]), inner),
        st.tuples(st.just("div"), inner, st.sampled_from([1, 2, 3]))), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(expr=expressions(), values=st.lists(st.fractions(-5, 5, max_denominator=4), min_size=3, max_size=3))
def test_a_number_computed_over_atoms_is_the_number_for_every_value_of_the_atoms(expr, values):
    symbolic = _evaluate(expr, {k: Form.atom(k) for k in range(3)})
    concrete = _evaluate(expr, dict(enumerate(values)))
    if not is_symbolic(symbolic):
        assert symbolic == concrete
    elif isinstance(symbolic, Form):  # an affine form: substituting the values gives the concrete number
        assert symbolic.const + sum(q * values[k] for k, q in symbolic.terms.items()) == concrete


def test_the_update_pattern_of_the_constructions_cancels_the_unsettled_value():
    val, new = Form.atom(7), F(5, 2)
    assert val + 1 * (new - val) == new          # flag 1: the new value, whatever val held
    assert val + 0 * (new - val) == val          # flag 0: val itself, still an atom
    assert val * val is UNKNOWN and 0 * UNKNOWN == 0 and UNKNOWN * 0 == 0 and UNKNOWN + 1 is UNKNOWN
    assert collapse(val + 1) is UNKNOWN and collapse(3) == 3


# -- random transformers, random (wrong) schedules ----------------------------------

@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_every_number_of_a_settled_run_is_the_full_runs_whatever_the_schedule(data):
    t = data.draw(transformers())
    seq = data.draw(sequences(t.dimension))
    n, d = len(seq), t.dimension
    forget = [tuple(sorted(data.draw(st.lists(st.tuples(st.integers(0, t.n_layers + 1), st.integers(0, d - 1)),
                                               max_size=d, unique_by=lambda e: e[1])))) for _ in range(n)]
    full = run_exact(t, seq, trace=True)
    try:
        settled = ExactRunner(t, forget=forget)._run(seq, True, forget)
    except _Undetermined:  # a score read ⊥: the public run falls back to the full run
        assert run_exact(t, seq, forget=forget).outputs == full.outputs
        return
    layers = [(s.vectors, f.vectors) for s, f in zip(settled.trace, full.trace)] + [(settled.outputs, full.outputs)]
    for got, want in layers:
        for row_got, row_want in zip(got, want):
            for g, w in zip(row_got, row_want):
                assert g is UNKNOWN or g == w
    needed = [(p, c) for p in range(n) for c in range(d)]
    assert run_exact(t, seq, forget=forget, needed=needed).outputs == full.outputs  # falls back when it must


# -- the constructions: the read-out is computed, and it is the circuit's ---------------

@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(CONSTRUCTIONS)))
def test_every_construction_reads_out_the_circuit_from_a_settled_run(data, name):
    construction = get_construction(name)
    circuit = data.draw(circuits(max_gates=10, max_inputs=3))
    try:
        compiled = construction.compile(circuit)
    except InputError:
        return  # not in this construction's class
    xs = data.draw(input_vectors(circuit.n_inputs))
    encoding = compiled.encoding
    keys = engine_keys(construction.score_hints())
    settled = ExactRunner(compiled.transformer, keys, forget=encoding.settle).run(encoding.instantiate(xs),
                                                                                 needed=encoding.readout)
    assert settled.stats.settled, "the schedule settles the read-out: no fall back to the full run"
    assert encoding.read(settled.outputs) == tuple(evaluate(circuit, xs))
    full = run_exact(compiled.transformer, encoding.instantiate(xs), keys=keys)
    assert encoding.read(full.outputs) == encoding.read(settled.outputs)


def _multiplier(tmp_path: Path, n: int) -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from netlist_generators import array_multiplier
    path = tmp_path / f"mul{n}.bench"
    path.write_text(array_multiplier(n, "nor"))
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "import sys; from verified_aat.cli.main import main; sys.exit(main(sys.argv[1:]))"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=300)


def test_run_on_a_c6288_like_multiplier_in_exact_mode_reads_out_the_product(tmp_path):
    """The 8×8 NOR multiplier (2,306 gates, 602 layers): its full exact run builds numbers of millions of bits;
    the settled run computes each value once it has settled."""
    netlist = _multiplier(tmp_path, 8)
    out = tmp_path / "compiled"
    assert _cli("compile", str(netlist), "-o", str(out)).returncode == 0
    encoding = json.loads((out / "encoding.json").read_text())
    assert "settle" in encoding and len(encoding["settle"]["of_position"]) == len(encoding["rows"])
    rng = random.Random(3)
    for _ in range(2):
        bits = [rng.randint(0, 1) for _ in range(encoding["n_inputs"])]
        vector = ",".join(map(str, bits))
        run = _cli("run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"),
                   f"--input={vector}", "--json")
        ev = _cli("eval", str(netlist), f"--input={vector}", "--json")
        assert run.returncode == 0 and ev.returncode == 0, (run.stderr, ev.stderr)
        doc = json.loads(run.stdout)
        assert doc["stats"]["settled"] is True
        assert [Fraction(v) for v in doc["outputs"]] == [Fraction(o["value"]) for o in json.loads(ev.stdout)["outputs"]]


@pytest.mark.parametrize("netlist", ["bristol/adder64.txt", "iscas85/c432.bench"])
def test_settled_and_full_runs_agree_on_real_netlists(netlist):
    import verified_aat.api as va
    circuit = va.load_circuit(str(SHARED / netlist))
    compiled = va.compile(circuit)
    xs = [random.Random(5).randint(0, 1) for _ in range(circuit.n_inputs)]
    assert va.simulate(circuit, xs) == tuple(evaluate(circuit, xs))
    if circuit.size < 1000:  # the full run: only where it is fast
        keys = engine_keys(va.construction("gate-edge").score_hints())
        full = run_exact(compiled.transformer, compiled.encoding.instantiate(xs), keys=keys)
        assert compiled.encoding.read(full.outputs) == tuple(evaluate(circuit, xs))


def test_full_computes_every_value_and_trace_shows_what_the_settled_run_left_out(tmp_path):
    netlist = SHARED / "iscas85" / "c17.bench"
    out = tmp_path / "c17"
    assert _cli("compile", str(netlist), "-o", str(out)).returncode == 0
    base = ["run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"), "--input=1,0,1,1,0",
            "--json", "--trace"]
    settled, full = json.loads(_cli(*base).stdout), json.loads(_cli(*base, "--full").stdout)
    assert settled["stats"]["settled"] is True and full["stats"]["settled"] is False
    assert settled["outputs"] == full["outputs"]
    assert any("⊥" in row for lt in settled["trace"] for row in lt["vectors"]) and not any("⊥" in row for lt in full["trace"] for row in lt["vectors"])
    for s_layer, f_layer in zip(settled["trace"], full["trace"]):
        for s_row, f_row in zip(s_layer["vectors"], f_layer["vectors"]):
            assert all(a == "⊥" or a == b for a, b in zip(s_row, f_row))


def test_a_bad_settle_section_is_one_line_of_bad_input(tmp_path):
    good = get_construction("gate-edge").compile(__import__("verified_aat.api", fromlist=["family"]).family("majority", 3)).encoding
    doc = good.to_json()
    assert Encoding.from_json(doc).settle == good.settle
    for broken in ({"patterns": [[[0, 99]]], "of_position": [0] * good.length},
                   {"patterns": [[]], "of_position": [0]},
                   {"patterns": [[[-1, 0]]], "of_position": [0] * good.length}):
        with pytest.raises(InputError, match="settle"):
            Encoding.from_json({**doc, "settle": broken})
    path = tmp_path / "encoding.json"
    path.write_text(json.dumps({**doc, "settle": {"patterns": [[]], "of_position": [3]}}))
    result = _cli("run", "x.json", "--encoding", str(path), "--input=1,0,1")
    assert result.returncode == 2 and "Traceback" not in result.stderr


# -- the settled run's shortcuts (settled.SKIP_QUIET, activation_kernel.COARSE) change no value -------------

def _settled_traces(t, seqs, forget, skip: bool, coarse: bool):
    """Each sequence's settled run (one runner, in turn) with the shortcuts as given: trace and outputs, or
    "undetermined"."""
    from verified_aat.transformer import activation_kernel, settled
    saved = settled.SKIP_QUIET, activation_kernel.COARSE
    settled.SKIP_QUIET, activation_kernel.COARSE = skip, coarse
    try:
        runner, out = ExactRunner(t, forget=forget), []
        for seq in seqs:
            try:
                result = runner._run(seq, True, forget)
            except _Undetermined:
                out.append("undetermined")
                runner._layer_states.clear()
                runner._score_states.clear()
                continue
            out.append(([lt.vectors for lt in result.trace], result.outputs))
        return out
    finally:
        settled.SKIP_QUIET, activation_kernel.COARSE = saved


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_skipping_quiet_positions_and_coarse_keys_give_the_same_settled_run(data):
    """The same rows, ⊥ where ⊥, at every layer, whatever the schedule: the skip (a layer provably leaves the row
    as it is) and the coarse keys (forms read as ⊥ where only forgotten coordinates receive ⊥) are shortcuts."""
    from verified_aat.transformer.settled import score_cols
    t = data.draw(transformers(max_layers=5))
    d = t.dimension
    read = {c for layer in t.layers for head in layer.heads for c in score_cols(head.score, d)}
    free = [c for c in range(d) if c not in read] or list(range(d))  # forgetting what scores read ends the run
    seqs = [data.draw(sequences(d))]
    seqs.append(data.draw(st.sampled_from([seqs[0], [list(r) for r in reversed(seqs[0])]])))
    n = min(len(s) for s in seqs)
    seqs = [s[:n] for s in seqs]
    pattern = st.lists(st.tuples(st.integers(0, t.n_layers + 1), st.sampled_from(free)), max_size=d,
                       unique_by=lambda e: e[1]).map(lambda e: tuple(sorted(e)))
    shared = data.draw(st.lists(pattern, min_size=1, max_size=3))
    forget = [data.draw(st.sampled_from(shared)) for _ in range(n)]  # patterns are shared objects, as compile makes
    plain = _settled_traces(t, seqs, forget, False, False)
    for skip, coarse in ((True, True), (True, False), (False, True)):
        assert _settled_traces(t, seqs, forget, skip, coarse) == plain


@settings(max_examples=40, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(CONSTRUCTIONS)))
def test_the_shortcuts_give_the_same_settled_run_of_every_construction(data, name):
    """As above on the constructions' own schedules, where a value settles through ``val + flag·(new − val)``
    (forms that a coarse key would leave ⊥): three input vectors in turn on one runner, whose memo then holds
    coarse keys that were not taken (a position that settles reads one that another left before)."""
    construction = get_construction(name)
    circuit = data.draw(circuits(max_gates=24, max_inputs=3))
    try:
        compiled = construction.compile(circuit)
    except InputError:
        return
    encoding = compiled.encoding
    bits = st.lists(st.sampled_from([F(0), F(1)]), min_size=circuit.n_inputs, max_size=circuit.n_inputs)
    seqs = [encoding.instantiate(data.draw(st.one_of(bits, input_vectors(circuit.n_inputs)))) for _ in range(3)]
    plain = _settled_traces(compiled.transformer, seqs, encoding.settle, False, False)
    assert _settled_traces(compiled.transformer, seqs, encoding.settle, True, True) == plain


def test_a_running_sum_that_holds_bottom_stays_bottom() -> None:
    """An average's running sum that already holds ⊥ (a member not computed) took the next member's change to an
    affine form as Form(⊥ + …): AttributeError in the settled run (a novel edge-k document whose codes and
    activation disagree, certify on threshold_weighted: "internal error, no verdict")."""
    from verified_aat.transformer.unknown import UNKNOWN, Form, shift
    assert shift(UNKNOWN, Form.atom(3), 2) is UNKNOWN and shift(UNKNOWN, 1, Form.atom(3)) is UNKNOWN
    assert shift(Form.atom(3), Form.atom(3), 2) == 2


def test_the_settled_run_of_a_wrong_document_gives_the_full_runs_numbers() -> None:
    import verified_aat as va
    from verified_aat.constructions.interpreted import DocumentConstruction
    root = Path(__file__).resolve().parent.parent
    construction = DocumentConstruction.load(root / "tests/data/constructions_novel/bad-ek-offset-mismatch.json")
    circuit = va.load_circuit(str(root / "specs/circuits/threshold_weighted.circ"))
    compiled = va.compile(circuit, construction)
    encoding, keys = compiled.encoding, engine_keys(construction.score_hints())
    for x in ([1, 2, -1, 3, 0, 1][:circuit.n_inputs], [Fraction(-1, 2)] * circuit.n_inputs):
        sequence = encoding.instantiate(list(x))
        settled = run_exact(compiled.transformer, sequence, keys=keys, forget=encoding.settle, needed=encoding.readout)
        full = run_exact(compiled.transformer, sequence, keys=keys)
        assert encoding.read(settled.outputs) == encoding.read(full.outputs)
