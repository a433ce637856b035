"""specs/constructions/*.md are exactly what the code compiles (regenerated and compared)."""

from pathlib import Path

import pytest

from verified_aat.constructions.describe import describe
from verified_aat.constructions.registry import CONSTRUCTIONS

SPECS = Path(__file__).resolve().parent.parent / "specs" / "constructions"


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_spec_file_matches_the_code(name):
    text = (SPECS / f"{name}.md").read_text()
    assert text == describe(CONSTRUCTIONS[name]), "run: python specs/constructions/make_specs.py"
    for heading in ("## Vector layout", "## Operation codes", "Intended argmax set", "Activation circuit",
                    "## Invariant"):
        assert heading in text
