"""The benchmarks' generated multipliers multiply."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from verified_aat.circuits.netlists import parse_bench, simulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from netlist_generators import array_multiplier  # noqa: E402


@pytest.mark.parametrize("n,style", [(1, "nor"), (3, "xor"), (5, "nor"), (8, "xor")])
def test_array_multiplier_computes_the_product(n, style):
    netlist = parse_bench(array_multiplier(n, style), f"mul{n}.bench")
    rng = random.Random(n)
    for _ in range(40):
        x, y = rng.randrange(2 ** n), rng.randrange(2 ** n)
        out = simulate(netlist, [(x >> i) & 1 for i in range(n)] + [(y >> i) & 1 for i in range(n)])
        assert sum(v << k for k, v in enumerate(out)) == x * y
