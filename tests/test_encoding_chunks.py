"""``compile`` writes encoding.json in pieces (``Encoding.chunks``): the same text, never held whole.

At 10⁶ gates the text is 185 MB, and holding it (and its bytes) made compile's peak 1.5 GB; in pieces it is 1.26 GB
(benchmarks/compile_scale.py).  The pieces must give exactly the JSON the whole text gave, across block boundaries
and with empty lists, and an atomic write that fails in the middle must leave nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verified_aat.circuits.families import build_family
from verified_aat.constructions import encoding as enc
from verified_aat.constructions.registry import get_construction
from verified_aat.files import write_atomically


@pytest.mark.parametrize("block", [1, 2, 7, 4096])
@pytest.mark.parametrize("family, n", [("relu", 40), ("relu", 1), ("sum", 1)])
def test_the_pieces_are_the_encodings_json(block: int, family: str, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    encoding = get_construction("gate-edge").compile(build_family(family, n)).encoding
    monkeypatch.setattr(enc, "BLOCK", block)
    pieces = list(encoding.chunks())
    assert len(pieces) > 4 if block < 4096 else True
    doc = json.loads("".join(pieces))
    assert doc["rows"] == [[str(v) for v in row] for row in encoding.rows]
    assert [tuple(r) for r in doc["roles"]] == [(r.kind, r.gate, r.source, r.slot) for r in encoding.roles]
    assert [tuple(s) for s in doc["input_slots"]] == list(encoding.input_slots)
    assert enc.Encoding.from_json(doc) == encoding


def test_a_write_that_fails_in_the_middle_leaves_nothing(tmp_path: Path) -> None:
    def pieces():  # type: ignore[no-untyped-def]
        yield "{\n"
        raise RuntimeError("the encoder failed")
    target = tmp_path / "encoding.json"
    with pytest.raises(RuntimeError):
        write_atomically(str(target), pieces())
    assert list(tmp_path.iterdir()) == []
    write_atomically(str(target), iter(["[", "1", "]\n"]))
    assert target.read_text() == "[1]\n"
