"""The documentation cannot rot: every subcommand is in docs/cli.md, every format example parses
with the real parsers (and means what the page says), the documented run prints what it shows."""

from __future__ import annotations

import argparse
import itertools
import re
from fractions import Fraction
from pathlib import Path

import pytest

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.json_format import canonical_circuit_bytes, circuit_from_json, circuit_to_json, \
    parse_circuit_json
from verified_aat.circuits.measures import measure
from verified_aat.circuits.text_format import parse_circuit_text, read_circuit_file
from verified_aat.cli.main import SUBCOMMANDS, build_parser, main
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.transformer.jsonfile import parse_json_text
from verified_aat.transformer.sequence import sequence_from_json
from verified_aat.transformer.spec import transformer_from_json

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def blocks(page: str, language: str) -> list[str]:
    """The bodies of the page's fenced code blocks in ``language``."""
    text = (DOCS / page).read_text()
    return [body for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S) if lang == language]


def test_the_documentation_pages_exist_and_the_readme_links_them():
    readme = (ROOT / "README.md").read_text()
    for page in ("circuit-format.md", "transformer-format.md", "cli.md", "certificates.md", "math.md",
                 "soundness.md"):
        assert (DOCS / page).is_file(), page
        assert f"docs/{page}" in readme, page
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "Copyright (c) 2026 The verified-aat authors" in (ROOT / "LICENSE").read_text()
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")


def test_every_subcommand_is_documented_in_docs_cli_md():
    page = (DOCS / "cli.md").read_text()
    section = page.split("## Subcommands", 1)[1].split("\n## ", 1)[0]
    parser = build_parser()
    choices = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(choices) <= set(SUBCOMMANDS) and len(choices) >= 10
    for name in SUBCOMMANDS:
        assert re.search(rf"^\| `verified-aat {re.escape(name)}[ `]", section, re.M), f"{name} is not in docs/cli.md"


def test_every_construction_is_described_in_docs_math_md():
    page = (DOCS / "math.md").read_text()
    for name in CONSTRUCTIONS:
        assert f"**{name}**" in page, name


def test_the_circuit_format_examples_parse_and_mean_what_the_page_says():
    circs = [parse_circuit_text(body) for body in blocks("circuit-format.md", "circ")]
    jsons = [parse_circuit_json(body) for body in blocks("circuit-format.md", "json")]
    assert len(circs) >= 3 and len(jsons) >= 1
    by_name = {c.name: c for c in circs + jsons}
    spec = parse_circuit_text(read_circuit_file(str(ROOT / "specs" / "circuits" / "mixed_depth6.circ")))
    assert canonical_circuit_bytes(by_name["mixed_depth6"]) == canonical_circuit_bytes(spec)
    assert measure(by_name["mixed_depth6"]).depth == 6
    affine = by_name["affine"]
    assert affine.output_names == ("twice", "shifted", "x")
    assert evaluate(affine, [Fraction(3), Fraction(-1)]) == (6, Fraction(13, 2), 3)
    majority = by_name["majority3"]
    assert majority.domain.value == "boolean" and majority.provenance.arithmetization == "threshold"
    for bits in itertools.product((0, 1), repeat=3):
        assert evaluate(majority, list(bits)) == (int(sum(bits) >= 2),), bits
    square = by_name["square-plus-sign"]
    assert evaluate(square, [Fraction(1, 2)]) == (Fraction(-1, 2), -1)
    assert circuit_from_json(circuit_to_json(square)) == square


def test_the_transformer_format_example_runs_as_documented(tmp_path, capsys, monkeypatch):
    docs = [parse_json_text(body)[0] for body in blocks("transformer-format.md", "json")]
    kinds = {doc["format"]: doc for doc in docs}
    assert set(kinds) == {"verified-aat/transformer", "verified-aat/sequence"}
    model = transformer_from_json(kinds["verified-aat/transformer"])
    assert model.coordinates == ("key", "val") and model.n_layers == 2
    sequence = sequence_from_json(kinds["verified-aat/sequence"], coordinates=model.coordinates)
    assert len(sequence) == 4
    (console,) = blocks("transformer-format.md", "console")
    command, *expected = console.rstrip("\n").split("\n")
    bodies = {doc["format"]: body for doc, body in zip(docs, blocks("transformer-format.md", "json"))}
    (tmp_path / "mean-by-key.json").write_text(bodies["verified-aat/transformer"])
    (tmp_path / "sequence.json").write_text(bodies["verified-aat/sequence"])
    monkeypatch.chdir(tmp_path)
    argv = command.split()
    assert argv[:2] == ["$", "verified-aat"]
    assert main(argv[2:]) == 0
    printed = capsys.readouterr().out.rstrip("\n").split("\n")
    assert printed[:len(expected)] == expected
    assert len(printed) == len(expected) + 1 and printed[-1].startswith("positions: 4")


@pytest.mark.parametrize("page", ["circuit-format.md", "transformer-format.md", "math.md"])
def test_the_pages_name_no_file_that_is_not_there(page):
    for path in re.findall(r"`((?:docs|specs|verified_aat|tests)/[\w./-]+)`", (DOCS / page).read_text()):
        assert (ROOT / path).exists(), path
