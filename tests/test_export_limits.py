"""``export``'s limits (docs/cli.md, "Limits"): every layer's circuits are written out in full, also where the spec's
layers share one function, so a small spec can ask for a very large export.  The work is counted from the spec
before anything is built (``export.export_units``); an ONNX graph past ``limits.MAX_ONNX_NODES`` (protobuf's
2 GiB) or an estimate past ``--max-memory`` is refused (exit 3, one line, nothing written), and ``--max-time`` stops
an export as every other command's (exit 3, no file and no temporary file left)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from verified_aat.export import export_units
from verified_aat.transformer.spec import load_transformer

pytest.importorskip("onnx", reason="onnx is in the test extra")

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs" / "transformers").glob("*.json"))


def _shared_function_spec(path: Path, layers: int, gates: int) -> Path:
    """``layers`` layers over coordinates k, v, each with one average head and the same ``gates``-gate activation."""
    act = ["half = const 1/2", "g0 = add x.v avg.v"]
    act += [f"g{i} = {('add g%d avg.v', 'mul half g%d', 'sign g%d')[i % 3] % (i - 1)}" for i in range(1, gates)]
    act += [f"out = add g{gates - 1} x.v", "output x.k out"]
    doc = {"format": "verified-aat/transformer", "version": 1, "name": "shared", "coordinates": ["k", "v"],
           "functions": {"same_k": ["m = const -1", "a = mul m j.k", "d = add i.k a", "s = mul d d", "t = mul m s",
                                    "output t"], "act": act},
           "layers": [{"name": f"l{n}", "heads": [{"name": "avg", "pooling": "average", "score": "same_k"}],
                       "activation": "act"} for n in range(layers)]}
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.name)
def test_the_count_bounds_the_nodes_written(spec: Path, tmp_path: Path) -> None:
    from verified_aat.export.onnx_graph import transformer_to_onnx
    for model in (load_transformer(str(spec)), load_transformer(str(_shared_function_spec(tmp_path / "s.json", 7, 40)))):
        nodes = len(transformer_to_onnx(model).graph.node)
        assert nodes <= export_units(model, "onnx") <= nodes + 20 * model.n_layers


def test_a_shared_function_counts_once_per_layer_that_names_it(tmp_path: Path) -> None:
    one = export_units(load_transformer(str(_shared_function_spec(tmp_path / "a.json", 1, 300))), "numpy")
    many = export_units(load_transformer(str(_shared_function_spec(tmp_path / "b.json", 50, 300))), "numpy")
    assert many == 50 * one


def test_an_onnx_graph_past_the_node_limit_is_refused_before_it_is_built(tmp_path: Path, monkeypatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import verified_aat.limits as limits
    spec = _shared_function_spec(tmp_path / "t.json", 20, 30)
    units = export_units(load_transformer(str(spec)), "onnx")
    monkeypatch.setattr(limits, "MAX_ONNX_NODES", units - 1)
    assert main(["export", str(spec), "-o", str(tmp_path / "t.onnx")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("verified-aat: unknown: limit reached (") and "ONNX-nodes limit" in err[0]
    assert f"{units:,} nodes" in err[0] and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    monkeypatch.setattr(limits, "MAX_ONNX_NODES", units)  # exactly at the limit: written
    assert main(["export", str(spec), "-o", str(tmp_path / "t.onnx")]) == 0


def test_an_export_past_the_memory_estimate_is_refused_before_it_starts(tmp_path: Path) -> None:
    spec = _shared_function_spec(tmp_path / "t.json", 200, 2000)  # 405,205 nodes: ~752 MB by the estimate
    done = subprocess.run([sys.executable, "-m", "verified_aat.cli.main", "export", str(spec), "-o",
                           str(tmp_path / "t.onnx"), "--max-memory", "600"], capture_output=True, text=True)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused before starting" in lines[0] and "ONNX nodes × 1300 B" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_max_time_stops_an_export_and_leaves_no_file(tmp_path: Path, monkeypatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The alarm's exception arriving while the file is being written (a fake alarm: fsync raises it)."""
    import os

    from verified_aat.errors import LimitReached
    spec = _shared_function_spec(tmp_path / "t.json", 3, 10)
    assert main(["export", str(spec), "-o", str(tmp_path / "ok.npz"), "--max-time", "600"]) == 0

    def alarm(fd: int) -> None:
        raise LimitReached("--max-time 600 s")
    monkeypatch.setattr(os, "fsync", alarm)
    for name in ("t.onnx", "t.npz"):
        assert main(["export", str(spec), "-o", str(tmp_path / name), "--max-time", "600"]) == 3
        assert "unknown: limit reached (--max-time 600 s)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.npz", "t.json"]  # no .tmp-* file left
