"""ONNX and numpy export: onnxruntime and the reference forward pass of docs/export.md give the
exact engine's values on encodings of c17, c432 and bundled circuits, for every construction."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transformer_strategies import INTEGERS, sequences, transformers

import verified_aat as va
from verified_aat.circuits.evaluate import evaluate
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import CONSTRUCTIONS as REGISTERED
from verified_aat.constructions.registry import get_construction
from verified_aat.export.npz import transformer_arrays
from verified_aat.export.onnx_graph import transformer_to_onnx
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.float_engine import run_float
from verified_aat.transformer.model import Pooling

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is in the test extra")

ROOT = Path(__file__).resolve().parents[1]
ISCAS = ROOT.parent / "shared" / "circuits" / "iscas85"
DOC = ROOT / "docs" / "export.md"
CONSTRUCTIONS = ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only"]
EVERY = sorted(REGISTERED)  # the small circuits also run every other registered construction
STANDARD_OPS = {"Shape", "Slice", "Concat", "Gather", "Transpose", "Add", "Sum", "Mul", "Sign", "Expand",
                "ReduceMax", "Equal", "Cast", "ReduceSum", "MatMul", "Div", "CumSum", "Softmax", "Identity"}


def _session(model: Any) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _reference_forward() -> Callable[[Any, np.ndarray], np.ndarray]:
    """The numpy forward pass, executed from the doc's code block (so the doc cannot rot)."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    code = next(b for b in blocks if "def forward" in b)
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the doc's own code, run as documented
    return namespace["forward"]


FORWARD = _reference_forward()


def _same(actual: np.ndarray, exact: list[list[Any]]) -> None:
    """Equal as exact rationals: the float64 outputs must be the exact engine's values."""
    assert actual.shape == (len(exact), len(exact[0]))
    for p, row in enumerate(exact):
        for c, v in enumerate(row):
            assert Fraction(float(actual[p, c])) == Fraction(v), (p, c, actual[p, c], v)


def _check(circuit: Any, construction: str, vectors: list[list[int]], numpy_too: bool = True) -> None:
    if getattr(get_construction(construction), "bounded_fan_in", construction.startswith("unique-hard")):
        circuit = binarize(circuit, sums=True).circuit
    compiled = va.compile(circuit, construction)
    model = transformer_to_onnx(compiled.transformer)
    assert {n.op_type for n in model.graph.node} <= STANDARD_OPS
    assert not model.graph.node or all(n.domain in ("", "ai.onnx") for n in model.graph.node)
    session = _session(model)
    arrays = transformer_arrays(compiled.transformer)
    keys = engine_keys(get_construction(construction).score_hints())
    for x in vectors:
        seq = compiled.encoding.instantiate(x)
        exact = run_exact(compiled.transformer, seq, keys=keys).outputs
        X = np.array([[float(Fraction(v)) for v in row] for row in seq], dtype=np.float64)
        (Y,) = session.run(None, {"X": X})
        assert Y.dtype == np.float64
        _same(Y, exact)
        if numpy_too:  # the doc's pass is plain Python over gates: run it on the smaller models
            _same(FORWARD(arrays, X), exact)
        assert list(compiled.encoding.read([[Fraction(float(v)) for v in row] for row in Y])) == \
            list(evaluate(circuit, x))


def _vectors(n: int, values: list[int], count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.choice(values) for _ in range(n)] for _ in range(count)]


@pytest.mark.parametrize("construction", EVERY)
@pytest.mark.parametrize("name", ["mixed_depth6.circ", "max_via_sign.circ", "inner_product_3.circ"])
def test_spec_circuits_match_exact_engine(name: str, construction: str) -> None:
    circuit = va.load_circuit(str(ROOT / "specs" / "circuits" / name))
    _check(circuit, construction,
           _vectors(circuit.n_inputs, [0, 1], 2, 1) + _vectors(circuit.n_inputs, [-2, -1, 0, 1, 2, 3], 2, 2))


@pytest.mark.parametrize("construction", EVERY)
def test_c17_matches_exact_engine(construction: str) -> None:
    circuit = va.load_circuit(str(ISCAS / "c17.bench"))
    _check(circuit, construction, _vectors(5, [0, 1], 3, 3) + _vectors(5, [-1, 2], 1, 4))


@pytest.mark.slow
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
def test_c432_matches_exact_engine(construction: str) -> None:
    circuit = va.load_circuit(str(ISCAS / "c432.bench"))
    # 0/1 only: on inputs −1/2 the transformer's values reach ~3·10^17 > 2^53 (a product of
    # squared values), where float64 is no longer exact
    _check(circuit, construction, _vectors(circuit.n_inputs, [0, 1], 1, 5), numpy_too=False)


def test_bilinear_scores_are_query_key_matmuls() -> None:
    """gate-edge-dot: every score is MatMul(X·W_Q, (X·W_K)ᵀ) with W_Q the head's matrix; no score circuit."""
    compiled = va.compile(va.load_circuit(str(ISCAS / "c17.bench")), "gate-edge-dot")
    model = transformer_to_onnx(compiled.transformer)
    inits = {t.name: t for t in model.graph.initializer}
    scores = [n for n in model.graph.node if n.op_type == "MatMul" and n.output[0].split("_")[-2] == "score"]
    assert len(scores) == compiled.transformer.n_heads
    producers = {o: n for n in model.graph.node for o in n.output}
    head = compiled.transformer.layers[0].heads[0]
    queries = producers[scores[0].input[0]]
    assert queries.op_type == "MatMul" and queries.input[0] == "X"
    from onnx import numpy_helper
    wq = numpy_helper.to_array(inits[queries.input[1]])
    assert wq.tolist() == [[float(q) for q in row] for row in head.score.matrix]
    assert producers[scores[0].input[1]].op_type == "Transpose"


def _matches_float_engine(t, seq) -> None:
    expected = run_float(t, seq, "float64").outputs
    X = np.array([[float(v) for v in row] for row in seq], dtype=np.float64)
    (Y,) = _session(transformer_to_onnx(t)).run(None, {"X": X})
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(Y, expected, rtol=1e-9, atol=1e-9, equal_nan=True)
        np.testing.assert_allclose(FORWARD(transformer_arrays(t), X), expected, rtol=1e-9, atol=1e-9,
                                   equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_hard_attention_transformers_match_float_engine(data: st.DataObject) -> None:
    """Random models (hard poolings, sign, bilinear and circuit scores) on integers: ONNX and the doc's forward
    pass agree with the float64 engine (NaN where it has NaN)."""
    t = data.draw(transformers(poolings=[Pooling.AVERAGE, Pooling.LEFTMOST, Pooling.RIGHTMOST], constants=INTEGERS))
    _matches_float_engine(t, data.draw(sequences(t.dimension, INTEGERS)))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_softmax_transformers_match_float_engine(data: st.DataObject) -> None:
    """The same with softmax heads only and no sign gate: every value is continuous in the rounding, so the
    three implementations agree to 1e-9.  A sign or an argmax after a softmax is ill-conditioned: on [-2, 3, -1]
    a uniform softmax averages to 0 in exact arithmetic, the float engine rounds it to a tiny positive number
    and ONNX to 0, so sign gives 1 in one and 0 in the other (hypothesis found that)."""
    t = data.draw(transformers(poolings=[Pooling.SOFTMAX], constants=INTEGERS, allow_sign=False))
    _matches_float_engine(t, data.draw(sequences(t.dimension, INTEGERS)))


def test_cli_export_onnx_and_numpy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c17"
    assert main(["compile", str(ISCAS / "c17.bench"), "-c", "unique-hard", "--binarize", "-o", str(out)]) == 0
    model = str(out / "transformer.json")
    assert main(["export", model, "-o", str(tmp_path / "m.onnx")]) == 0
    assert main(["export", model, "--format", "numpy", "-o", str(tmp_path / "weights.bin")]) == 0
    assert "wrote" in capsys.readouterr().out
    encoding = json.loads((out / "encoding.json").read_text())
    assert encoding
    import onnx
    loaded = onnx.load(str(tmp_path / "m.onnx"))
    assert loaded.graph.input[0].name == "X" and loaded.graph.output[0].name == "Y"
    with np.load(str(tmp_path / "weights.bin"), allow_pickle=False) as z:
        assert int(z["layers"]) == len(json.loads(Path(model).read_text())["layers"])
    assert main(["export", model, "-o", str(tmp_path / "m.txt")]) == 2
    assert "give --format onnx or numpy" in capsys.readouterr().err


def test_softmax_heads_exported_or_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c"
    assert main(["compile", str(ROOT / "specs" / "circuits" / "mixed_depth6.circ"), "-o", str(out)]) == 0
    spec = json.loads((out / "transformer.json").read_text())
    text = json.dumps(spec).replace('"average"', '"softmax"', 1)
    assert text != json.dumps(spec)
    (out / "soft.json").write_text(text)
    assert main(["export", str(out / "soft.json"), "-o", str(tmp_path / "s.onnx")]) == 0
    import onnx
    assert "Softmax" in {n.op_type for n in onnx.load(str(tmp_path / "s.onnx")).graph.node}
    capsys.readouterr()
    assert main(["export", str(out / "soft.json"), "--no-softmax", "-o", str(tmp_path / "t.onnx")]) == 2
    assert "softmax pooling is not exported" in capsys.readouterr().err
    assert not (tmp_path / "t.onnx").exists()
    assert main(["export", str(out / "soft.json"), "--softmax-temperature", "0", "-o", str(tmp_path / "t.onnx")]) == 2
    assert "--softmax-temperature: must be a positive" in capsys.readouterr().err
    # a low temperature: the float engine's softmax at the same temperature
    from verified_aat.transformer.spec import load_transformer
    model = load_transformer(str(out / "soft.json"))
    circuit = va.load_circuit(str(ROOT / "specs" / "circuits" / "mixed_depth6.circ"))
    seq = va.compile(circuit).encoding.instantiate([k % 3 - 1 for k in range(circuit.n_inputs)])
    X = np.array([[float(v) for v in row] for row in seq], dtype=np.float64)
    for t in (1.0, 0.25):
        (Y,) = _session(transformer_to_onnx(model, temperature=t)).run(None, {"X": X})
        np.testing.assert_allclose(Y, run_float(model, seq, "float64", t).outputs, rtol=1e-9, atol=1e-9)
