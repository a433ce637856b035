"""Regenerate the construction specs: ``python specs/constructions/make_specs.py``."""

from pathlib import Path

from verified_aat.constructions.describe import describe
from verified_aat.constructions.registry import CONSTRUCTIONS

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for name, construction in CONSTRUCTIONS.items():
        (HERE / f"{name}.md").write_text(describe(construction))
        print(HERE / f"{name}.md")
