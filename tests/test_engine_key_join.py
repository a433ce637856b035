"""The exact engine's key join against the all-pairs reference.

Random circuits under every construction, edited transformers whose decomposition no
longer holds, facts that fail, provers that say no or time out, decompositions read off
the score itself, and one runner reused across many sequences: the engine must always
agree with :func:`run_exact_reference`, join only where a lemma was proved for the head's
own score, and say which path it took.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import circuits, input_vectors
from transformer_strategies import sequences, transformers

from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.families import build_family
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer.exact_engine import ExactRunner, RunResult, run_exact, run_exact_reference
from verified_aat.transformer.key_join import (KeyDecompositions, discover_hint, hint_lemma, join_argmax,
                                               share_sets)
from verified_aat.transformer.model import BilinearScore, CircuitScore, Layer, Transformer, score_input_names

NAMES = ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only", "edge-k"]
# inputs with many ties: equal values at different gates, zeros, a sign flip
TIED = st.lists(st.sampled_from([Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2)]), min_size=0, max_size=4)


def _compile(circuit, name):  # type: ignore[no-untyped-def]
    construction = get_construction(name)
    circuit = binarize(circuit, sums=get_construction(name).bounded_fan_in).circuit
    return construction, circuit, construction.compile(circuit)


def _agree(t: Transformer, seq, keys: KeyDecompositions | None) -> RunResult:  # type: ignore[no-untyped-def]
    fast = run_exact(t, seq, trace=True, keys=keys)
    slow = run_exact_reference(t, seq)
    assert fast.outputs == slow.outputs
    assert fast.trace == slow.trace  # every layer's vectors and every argmax set
    return fast


def _heads(t: Transformer) -> set[str]:
    return {h.name for layer in t.layers for h in layer.heads}


@settings(max_examples=60, deadline=None)
@given(circuit=circuits(max_gates=7, max_inputs=3), name=st.sampled_from(NAMES), data=st.data())
def test_join_equals_reference_on_constructions(circuit, name, data) -> None:  # type: ignore[no-untyped-def]
    construction, circuit, compiled = _compile(circuit, name)
    xs = data.draw(st.one_of(input_vectors(circuit.n_inputs),
                             TIED.map(lambda v: (v * circuit.n_inputs)[:circuit.n_inputs])
                             .filter(lambda v: len(v) == circuit.n_inputs)))
    seq = compiled.encoding.instantiate(xs)
    fast = _agree(compiled.transformer, seq, engine_keys(construction.score_hints(), discover=False))
    # every head of the construction went through the join, no score was evaluated on pairs
    assert fast.stats.head_methods and {m for _, m in fast.stats.head_methods} == {"join"}
    assert {h for h, _ in fast.stats.head_methods} == _heads(compiled.transformer)
    assert fast.stats.score_evaluations == 0 and fast.stats.argmax_join >= 1
    assert compiled.encoding.read(fast.outputs) == tuple(evaluate(circuit, xs))


# -- edits -----------------------------------------------------------------------------

def _score(coords: tuple[str, ...], build) -> CircuitScore:  # type: ignore[no-untyped-def]
    b = CircuitBuilder("edited")
    w = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    b.output(build(b, w))
    return CircuitScore(b.build())


def _edits(coords: tuple[str, ...]) -> dict[str, CircuitScore]:
    """Score edits on the gate-edge layout; each breaks the construction's decomposition of that head."""
    return {
        # a term reading both vectors outside the square: no decomposition at all
        "mixed": _score(coords, lambda b, w: b.add(b.neg(b.square(b.sub(w["i.b"], w["j.b"]))),
                                                    b.mul(w["i.val"], w["j.val"]))),
        # the penalty doubled: the construction's hint fails, the score still has a decomposition
        "double-penalty": _score(coords, lambda b, w: b.add(b.neg(b.square(b.sub(w["i.a"], w["j.a"]))),
                                                             b.scale(-2, b.sign(b.square(b.add(w["j.op"],
                                                                                               b.const(4))))))),
        # the keys swapped between the vectors' coordinates: i.a against j.b
        "swapped-keys": _score(coords, lambda b, w: b.neg(b.square(b.sub(w["i.a"], w["j.b"])))),
        # the square's sign flipped: argmax is the farthest key, no decomposition
        "farthest": _score(coords, lambda b, w: b.square(b.sub(w["i.a"], w["j.a"]))),
    }


def _edited(t: Transformer, head: str, score: CircuitScore | BilinearScore) -> Transformer:
    layers = tuple(Layer(tuple(replace(h, score=score) if h.name == head else h for h in layer.heads),
                         layer.activation, layer.name) for layer in t.layers)
    return replace(t, layers=layers)


@settings(max_examples=40, deadline=None)
@given(circuit=circuits(max_gates=6, max_inputs=3), edit=st.sampled_from(["mixed", "double-penalty", "swapped-keys",
                                                                          "farthest"]),
       head=st.sampled_from(["fetch", "gather"]), discover=st.booleans(), data=st.data())
def test_edited_head_falls_back_and_still_agrees(circuit, edit, head, discover, data) -> None:  # type: ignore[no-untyped-def]
    construction, circuit, compiled = _compile(circuit, "gate-edge")
    t = _edited(compiled.transformer, head, _edits(compiled.transformer.coordinates)[edit])
    seq = compiled.encoding.instantiate(data.draw(input_vectors(circuit.n_inputs)))
    keys = engine_keys(construction.score_hints(), discover=discover)
    fast = _agree(t, seq, keys)
    other = "gather" if head == "fetch" else "fetch"
    assert fast.stats.method_of(other) == {"join"}
    # an edited head joins only if its own score has a proved decomposition (found in the score)
    found = discover and edit in ("double-penalty", "swapped-keys")
    assert fast.stats.method_of(head) == ({"join"} if found else {"all-pairs"})
    refused = [v for v in keys.verdicts.values() if v != "proved"]
    assert refused  # the construction's hint for the edited head was tried and not proved


def test_edited_bilinear_score_falls_back() -> None:
    construction, _, compiled = _compile(build_family("relu", 2), "gate-edge-dot")
    t = compiled.transformer
    gather = next(h for layer in t.layers for h in layer.heads if h.name == "gather").score
    matrix = [list(row) for row in gather.matrix]
    matrix[1][1] += 1  # a·a is now weighted too: the gather hint fails
    t = _edited(t, "gather", BilinearScore(tuple(tuple(row) for row in matrix)))
    fast = _agree(t, compiled.encoding.instantiate([1, -2]), engine_keys(construction.score_hints()))
    assert fast.stats.method_of("gather") == {"all-pairs"} and fast.stats.method_of("fetch") == {"join"}


def test_facts_that_fail_on_the_rows_mean_all_pairs() -> None:
    """gate-edge-dot's decompositions assume one = 1; a sequence where it is not gets all pairs."""
    construction, _, compiled = _compile(build_family("inner-product", 2), "gate-edge-dot")
    one = compiled.encoding.coordinates.index("one")
    seq = compiled.encoding.instantiate([1, 2, 3, -1])
    keys = engine_keys(construction.score_hints())
    assert _agree(compiled.transformer, seq, keys).stats.method_of("fetch") == {"join"}
    seq[3][one] = 2
    fast = _agree(compiled.transformer, seq, keys)
    assert fast.stats.head_methods and {m for _, m in fast.stats.head_methods} == {"all-pairs"}


@pytest.mark.parametrize("verdict", ["failed", "unknown", "timeout", "raise"])
def test_a_lemma_that_is_not_proved_is_not_used(verdict: str) -> None:
    construction, _, compiled = _compile(build_family("relu", 3), "gate-edge")
    asked: list[str] = []

    def prove(text: str) -> str:
        asked.append(text)
        if verdict == "raise":
            raise TimeoutError("solver died")
        return verdict

    keys = KeyDecompositions(construction.score_hints(), prove)
    fast = _agree(compiled.transformer, compiled.encoding.instantiate([1, -1, 0]), keys)
    assert fast.stats.argmax_join == 0 and {m for _, m in fast.stats.head_methods} == {"all-pairs"}
    # asked about the lemma of each head's own score (the construction's hint, then a found one)
    t = compiled.transformer
    for layer in t.layers[:2]:
        head = layer.heads[0]
        assert hint_lemma(head.score, construction.score_hints()[head.name], t.coordinates) in asked
    # each lemma text is asked once, however many layers and runs use it
    runner = ExactRunner(t, keys)
    before = len(asked)
    runner.run(compiled.encoding.instantiate([0, 0, 1]))
    assert len(asked) == before and len(set(asked)) == len(asked)


def test_without_keys_the_engine_never_joins() -> None:
    _, _, compiled = _compile(build_family("relu", 3), "gate-edge")
    fast = _agree(compiled.transformer, compiled.encoding.instantiate([1, 2, -3]), None)
    assert fast.stats.argmax_join == 0 and fast.stats.score_evaluations > 0


# -- decompositions read off the score --------------------------------------------------

def test_discovery_finds_the_constructions_decompositions() -> None:
    for name in ("gate-edge", "unique-hard", "edge-only", "edge-k"):
        _, _, compiled = _compile(build_family("sum", 3), name)
        t = compiled.transformer
        for head in {h.name: h for layer in t.layers for h in layer.heads}.values():
            assert discover_hint(head.score, t.dimension) is not None, (name, head.name)
        keys = engine_keys(None)  # no construction: found decompositions only
        fast = _agree(t, compiled.encoding.instantiate([1, Fraction(-1, 2), 3]), keys)
        assert {m for _, m in fast.stats.head_methods} == {"join"}
        assert set(keys.verdicts.values()) == {"proved"}


def test_discovery_declines_other_shapes() -> None:
    coords = ("k", "v")
    assert discover_hint(BilinearScore(((Fraction(1), Fraction(0)), (Fraction(0), Fraction(0)))), 2) is None
    for build in (lambda b, w: w["j.k"],                                               # no square
                  lambda b, w: b.square(b.sub(w["i.k"], w["j.k"])),                     # +square
                  lambda b, w: b.add(b.neg(b.square(b.sub(w["i.k"], w["j.k"]))),
                                     b.neg(b.square(b.sub(w["i.v"], w["j.v"])))),        # two squares
                  lambda b, w: b.neg(b.square(b.sub(w["i.k"], b.mul(w["i.v"], w["j.k"]))))):  # mixed key
        assert discover_hint(_score(coords, build), 2) is None
    # −(i.k + 1 − 2·j.v)² − j.k + 3·i.v: found, and its lemma holds
    score = _score(coords, lambda b, w: b.add(b.neg(b.square(b.add(w["i.k"], b.const(1), b.scale(-2, w["j.v"])))),
                                              b.neg(w["j.k"]), b.scale(3, w["i.v"])))
    found = discover_hint(score, 2)
    assert found is not None
    from verified_aat.symbolic.attention import prove_key_lemma
    assert prove_key_lemma(hint_lemma(score, found, coords)) == "proved"


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_transformers_with_found_decompositions(data: st.DataObject) -> None:
    """Random scores (often −(i.c − j.c′)² plus a term): joined where a found decomposition is proved."""
    t = data.draw(transformers())
    keys = engine_keys(None)
    runner = ExactRunner(t, keys)
    for _ in range(2):  # the same runner on a second sequence: nothing stale carries over
        seq = data.draw(sequences(t.dimension))
        fast = runner.run(seq, trace=True)
        slow = run_exact_reference(t, seq)
        assert fast.outputs == slow.outputs and fast.trace == slow.trace


@settings(max_examples=25, deadline=None)
@given(circuit=circuits(max_gates=7, max_inputs=3), name=st.sampled_from(NAMES),
       xss=st.lists(input_vectors(3), min_size=2, max_size=4))
def test_one_runner_many_inputs(circuit, name, xss) -> None:  # type: ignore[no-untyped-def]
    """``run --inputs``: one runner (proofs, argmax sets and memos kept) on several vectors."""
    construction, circuit, compiled = _compile(circuit, name)
    runner = ExactRunner(compiled.transformer, engine_keys(construction.score_hints()))
    for xs in xss:
        seq = compiled.encoding.instantiate(xs[:circuit.n_inputs])
        fast = runner.run(seq)
        assert fast.outputs == run_exact_reference(compiled.transformer, seq).outputs
    assert fast.stats.argmax_computed == 0  # structure unchanged: the sets of the first run are reused


KEY_VALUES = st.one_of(st.integers(-3, 3), st.integers(-2 ** 31, 2 ** 31))
PENALTIES = st.one_of(st.integers(0, 1), st.integers(-100, 100), st.integers(-2 ** 62, 2 ** 62),
                      st.sampled_from([Fraction(1, 2), Fraction(-7, 3)]))


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(KEY_VALUES, KEY_VALUES, PENALTIES), min_size=1, max_size=14))
def test_join_is_the_argmin_of_the_keys(rows) -> None:  # type: ignore[no-untyped-def]
    """join_argmax = argmin_j (rk_i − ck_j)² + pen_j by brute force (rk = c0, ck = c1, pen = c2), on the
    int64 path (small integers, including row keys the nearest column keys do not settle) and the
    Python path (huge keys or penalties, fractions), with the same numbering of the sets."""
    from verified_aat.transformer.key_join import _join_python

    coords = ("c0", "c1", "c2")

    def unary(k: int) -> object:
        b = CircuitBuilder("key")
        wires = b.inputs([f"v.{c}" for c in coords])
        b.output(wires[k])
        return b.build()

    hint = type("Hint", (), {"row_key": unary(0), "col_key": unary(1), "col_penalty": unary(2), "facts": ()})
    expected = []
    for x in rows:
        costs = [(x[0] - y[1]) ** 2 + y[2] for y in rows]
        expected.append(tuple(j for j, c in enumerate(costs) if c == min(costs)))
    joined = join_argmax(rows, hint)
    assert joined == share_sets(expected) == _join_python(rows, hint)
    assert list(joined.sets) == expected == [joined.sets[p] for p in range(len(rows))]
    ids = joined.set_ids.tolist()  # the distinct sets, each once, numbered by first appearance
    assert len(set(joined.distinct)) == len(joined.distinct) and ids[0] == 0
    assert all(ids[p] <= max(ids[:p], default=-1) + 1 for p in range(len(ids)))
    assert joined.sets[1:3] == expected[1:3] and joined.distinct[0:len(joined.distinct)] == list(joined.distinct)
    assert joined.distinct[-1] == list(joined.distinct)[-1] and joined.sets[-1] == expected[-1]
