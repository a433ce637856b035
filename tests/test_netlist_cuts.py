"""The cut an annotation's lemma is stated at is the certificate's (``[gate, form, cut]``; docs/soundness.md N): the
engine finds it (``circuits/link_section.py``), the kernel only proves the lemma at it or at deeper cuts.  Any cut
is sound, so a false annotation is rejected whatever cut a section states, a poor cut of a true one is at worst
*not checked*, and a cut that is not a set of lower gates is malformed."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from test_netlist_link import imported, needs_shared, rejected, run, section_of

CASES = [("iscas85/c17.bench", "exact", 16), ("iscas85/c17.bench", "threshold", 16)]


def _at_every_cut(seed: int, forge: Callable[[list[Any]], None]) -> Iterator[tuple[Any, tuple[list[str], str, Any]]]:
    """Each annotation of each case, ``forge``d, at the engine's cut, none (the whole way down), every lower gate,
    the engine's less one gate, the highest lower gate and random cuts: (where, the link's result)."""
    rng = random.Random(seed)
    for case in CASES:
        circuit, honest = imported(*case), section_of(*case)
        for k, (t, _, engine) in enumerate(honest["annotations"]):
            cuts = [engine, [], list(range(t)), engine[1:], [t - 1]]
            for cut in cuts + [sorted(rng.sample(range(t), rng.randint(1, t))) for _ in range(6)]:
                section = copy.deepcopy(honest)
                forge(section["annotations"][k])
                section["annotations"][k][2] = cut
                yield (case, t, cut), run(circuit, section)


def _shifted(entry: list[Any]) -> None:
    entry[1][0] = "1" if entry[1][0] != "1" else "2"  # t = A_t + a constant: false


@needs_shared
def test_a_false_annotation_is_rejected_at_every_stated_cut() -> None:
    for where, (problems, theorem, _) in _at_every_cut(19, _shifted):
        assert theorem == "" and problems, where
        assert any(f"annotation of gate {where[1]}" in p and "does not hold" in p for p in problems), problems


@needs_shared
def test_a_true_annotation_at_a_poor_cut_is_proved_deeper_or_not_checked() -> None:
    for where, (problems, theorem, ctx) in _at_every_cut(7, lambda entry: None):
        assert problems == [] and (theorem or ctx.unchecked), where
    for case in CASES:
        problems, theorem, ctx = run(imported(*case), section_of(*case))
        assert problems == [] and theorem and ctx.unchecked == []


@needs_shared
def test_a_cut_that_is_not_a_set_of_lower_gates_is_malformed() -> None:
    circuit, honest = imported(*CASES[0]), section_of(*CASES[0])
    t = honest["annotations"][0][0]
    for cut, words in (([t], ("[0][2][0]", f"must be <= {t - 1}")), ([0, "1"], ("[0][2][1]", "expected an integer")),
                       ([-1], ("[0][2][0]", "must be >= 0")), ("1", ("[0][2]", "expected a list")),
                       ([0] * (t + 1), ("[0][2]", "too long"))):
        section = copy.deepcopy(honest)
        section["annotations"][0][2] = cut
        rejected(circuit, section, "$.netlist.annotations", *words)
    section = copy.deepcopy(honest)
    section["annotations"][0] = section["annotations"][0][:2]  # the format before the cut was stated
    rejected(circuit, section, "$.netlist.annotations[0]", "expected [gate, form, cut]")


@needs_shared
def test_a_shadow_gate_is_never_an_input() -> None:
    """The section's shadow gates are the importer's pruned wires, never inputs (inputs are always kept): the kernel
    reads constants, sums, products and signs only."""
    circuit, section = imported(*CASES[0]), section_of(*CASES[0])
    section["shadow"].append(["input", 0])
    rejected(circuit, section, "$.netlist.shadow", "expected [op, argument] with op const, add, mul or sign")
