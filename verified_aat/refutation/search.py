"""Refutation: find a concrete input where the transformer's read-out differs
from the circuit, and replay it in exact arithmetic.

Candidates are deterministic: structured vectors first (all 0, all ±1,
one-hot, 0/1 patterns, values taken from solver models of failed
obligations), then seeded random small integers and fractions.  Every
candidate is run through the exact engine; only a replayed difference is a
counterexample.  Witnesses are rational, so they refute the claim over every
ring between Q and R.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Sequence

from ..circuits.evaluate import evaluate, evaluate_gates
from ..circuits.ir import Circuit
from ..circuits.rationals import format_rational
from ..constructions.claims import Schedule
from ..constructions.encoding import Encoding
from ..transformer.exact_engine import RunResult, run_exact
from ..transformer.key_join import KeyDecompositions
from ..transformer.unknown import is_symbolic
from ..transformer.model import Transformer
from ..wording import plural


@dataclass(frozen=True)
class Step:
    """One gate's value on both sides, at the layer where the schedule says it is right."""

    gate: str
    kind: str
    layer: int
    position: int
    circuit_value: Fraction
    transformer_value: Fraction | None

    @property
    def agrees(self) -> bool:
        return self.transformer_value == self.circuit_value


@dataclass(frozen=True)
class Counterexample:
    inputs: tuple[Fraction, ...]
    input_names: tuple[str, ...]
    expected: tuple[Fraction, ...]
    actual: tuple[Fraction, ...]
    output_names: tuple[str, ...]
    steps: tuple[Step, ...]  # up to and including the first mismatch
    rational: bool = True
    layers: int | None = None  # of the transformer it was replayed on (for every K: which T_K went wrong)

    def report(self) -> str:
        lines = ["counterexample (rational, replayed exactly; it refutes the claim over every ring Q ⊆ R ⊆ ℝ):"]
        if self.layers is not None:
            lines.append(f"  replayed on: the transformer of {plural(self.layers, 'layer')}")
        lines.append("  inputs:")
        shown = [(n, v) for n, v in zip(self.input_names, self.inputs)]
        if len(shown) > MANY_INPUTS:  # e.g. a witness padded to a large id: its non-zero inputs, then a count
            nonzero = [(n, v) for n, v in shown if v != 0]
            lines += [f"    {n} = {format_rational(v)}" for n, v in nonzero[:MANY_INPUTS]]
            if len(nonzero) > MANY_INPUTS:
                lines.append(f"    … {len(nonzero) - MANY_INPUTS} more non-zero inputs (all of them: --json)")
            lines.append(f"    the other {plural(len(shown) - len(nonzero), 'input')} = 0")
        else:
            lines += [f"    {n} = {format_rational(v)}" for n, v in shown] or ["    none (the circuit has no inputs)"]
        if self.steps:
            lines.append("  gate by gate (circuit vs transformer at the scheduled layer; an output spoiled later: the "
                         "layer from which its read-out differs):")
            for s in self.steps:
                mark = "ok" if s.agrees else "MISMATCH"
                lines.append(f"    {s.gate:<14} {s.kind:<6} layer {s.layer:<3} circuit {_text(s.circuit_value):<10} "
                             f"transformer {_text(s.transformer_value):<10} {mark}")
        lines.append("  outputs:")
        for n, e, a in zip(self.output_names, self.expected, self.actual):
            mark = "" if e == a else "   <-- differs"
            lines.append(f"    {n}: circuit {_text(e)}, transformer {_text(a)}{mark}")
        return "\n".join(lines)


def _text(value: Fraction | None) -> str:
    """A value as the inputs are read back (``p`` or ``p/q``), of any length: ``str`` stops at 4,300 digits, and a
    refutation with such a value was reported as *unknown: limit reached* (red team, round 19)."""
    return "None" if value is None else format_rational(value)


MANY_INPUTS = 32  # a report lists at most this many inputs one by one


def _candidates(n: int, model_values: list[Fraction], seed: int = 0) -> Iterator[list[Fraction]]:
    zero, one = Fraction(0), Fraction(1)
    yield [zero] * n
    yield [one] * n
    yield [-one] * n
    for i in range(min(n, 8)):
        yield [one if k == i else zero for k in range(n)]
    pool = [Fraction(v) for v in (0, 1, -1, 2, -2, 3, Fraction(1, 2), Fraction(-3, 2))] + model_values
    rng = random.Random(seed)
    for _ in range(4):
        yield [Fraction(rng.randint(0, 1)) for _ in range(n)]
    while True:
        yield [rng.choice(pool) for _ in range(n)]
        yield [Fraction(rng.randint(-4, 4)) for _ in range(n)]
        yield [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)]


def _model_values(models: Sequence[dict[str, str] | None]) -> list[Fraction]:
    values: list[Fraction] = []
    for model in models:
        for text in (model or {}).values():
            try:
                values.append(Fraction(text.replace("(", "").replace(")", "").replace(" ", "")))
            except (ValueError, ZeroDivisionError):
                continue  # algebraic or not a plain number: not a rational candidate
    return sorted(set(values))[:16]


def _replay(transformer: Transformer, encoding: Encoding, schedule: Schedule, xs: Sequence[Fraction],
            keys: KeyDecompositions | None = None, trace: bool = False) -> RunResult:
    """T on enc(C, xs), exactly: a settled run by the schedule's settle layers (the read-out is the full
    run's; the schedule is not trusted for it, see exact_engine), the key join where ``keys`` prove it."""
    return run_exact(transformer, encoding.instantiate(_integral(xs)), trace=trace, keys=keys,
                     forget=schedule.settle_layers(), needed=encoding.readout)


def _integral(xs: Sequence[Any]) -> list[Any]:
    """Inputs as ints where integral: the exact engine's fast path (and cheap hashing for 10⁶ inputs)."""
    if _INT.issuperset(map(type, xs)):
        return list(xs)
    return [int(v.numerator) if type(v) is Fraction and v.denominator == 1 else v for v in xs]


_INT = frozenset([int])


def search_counterexample(circuit: Circuit, transformer: Transformer, encoding: Encoding, schedule: Schedule,
                          hints_models: Sequence[dict[str, str] | None] = (), budget_seconds: float = 20.0,
                          max_runs: int = 300, first: Sequence[Sequence[Fraction]] = (),
                          keys: KeyDecompositions | None = None) -> Counterexample | None:
    """A replayed counterexample, or None when the budget runs out; ``first``: inputs to try before the
    standard candidates (e.g. a false lemma's model, :mod:`verified_aat.schematic.witness`); ``keys``:
    key decompositions the replay may use once their lemmas are proved."""
    import itertools

    deadline = time.perf_counter() + budget_seconds
    seen: set[tuple[Fraction, ...]] = set()
    given = [list(xs) for xs in first if len(xs) == circuit.n_inputs]
    for runs, xs in enumerate(itertools.chain(given, _candidates(circuit.n_inputs, _model_values(hints_models)))):
        if runs >= max_runs or time.perf_counter() > deadline:
            return None
        xs = _integral(xs)
        key = tuple(xs)
        if key in seen:
            continue
        seen.add(key)
        actual = encoding.read(_replay(transformer, encoding, schedule, xs, keys).outputs)
        expected = evaluate(circuit, xs)
        if tuple(actual) != tuple(expected):
            return _report(circuit, transformer, encoding, schedule, xs, tuple(expected), tuple(actual), keys)
    return None


def z3_search(circuit: Circuit, transformer: Transformer, encoding: Encoding, schedule: Schedule,
              timeout_ms: int = 10_000) -> tuple[Counterexample | None, str | None]:
    """Ask Z3 for a model of T(enc(C, x)) ≠ C(x) (small sequences only).

    A rational model is replayed exactly and returned as a counterexample; an
    irrational one is returned as text: it refutes the claim over ℝ, not over Q.
    """
    from .monolithic import z3_witness

    if encoding.length > 2000:
        return None, None
    witness = z3_witness(circuit, transformer, encoding, timeout_ms)
    if witness is None:
        return None, None
    if witness.rational is None:
        return None, witness.irrational
    xs = list(witness.rational)
    actual = encoding.read(_replay(transformer, encoding, schedule, xs).outputs)
    expected = evaluate(circuit, xs)
    if tuple(actual) == tuple(expected):  # the symbolic run and the engine disagree: report nothing
        return None, None
    return _report(circuit, transformer, encoding, schedule, xs, tuple(expected), tuple(actual)), None


def _report(circuit: Circuit, transformer: Transformer, encoding: Encoding, schedule: Schedule,
            xs: list[Fraction], expected: tuple, actual: tuple, keys: KeyDecompositions | None = None
            ) -> Counterexample:
    steps: list[Step] = []
    if encoding.length <= 5000:
        traced = _replay(transformer, encoding, schedule, xs, keys, trace=True)
        assert traced.trace is not None
        values = evaluate_gates(circuit, xs)
        initial = encoding.instantiate(xs)
        gate_positions = {r.gate: p for p, r in enumerate(encoding.roles) if r.kind == "gate"}
        order = sorted(range(circuit.size), key=lambda g: (_settle(schedule, gate_positions.get(g)), g))
        for g in order:
            p = gate_positions.get(g)
            claim = schedule.claims[p] if p is not None else None
            if claim is None or not claim.values:
                continue
            c, (term, layer) = next(iter(claim.by_coordinate().items()))
            layer = min(layer, transformer.n_layers)  # scheduled past T's last layer (one dropped): its value there
            got = (initial if layer == 0 else traced.trace[layer - 1].vectors)[p][c]
            if is_symbolic(got):  # a settled run did not compute it: it depends on unsettled values
                got = None
            step = Step(circuit.gate_name(g), circuit.gates[g].kind.value, layer, p, Fraction(values[g]),
                        None if got is None else Fraction(got))
            steps.append(step)
            if not step.agrees:
                break
        if all(s.agrees for s in steps):  # right where scheduled, spoiled later: where the read-out departs
            steps += _departure(circuit, encoding, [initial, *(layer.vectors for layer in traced.trace)], expected)
    return Counterexample(_fractions(xs), circuit.input_names,
                          tuple(Fraction(v) for v in expected), tuple(Fraction(v) for v in actual),
                          tuple(circuit.output_names or [circuit.gate_name(o) for o in circuit.outputs]),
                          tuple(steps), layers=transformer.n_layers)


def _departure(circuit: Circuit, encoding: Encoding, vectors: Any, expected: tuple) -> list[Step]:
    """The first differing output's read-out value at the first layer where it is not C's and stays so: a layer edited
    after the output's scheduled one (red team, round 7: every step was "ok" and no mismatch was shown). ``vectors``
    from layer 0 (enc(C, x)) on: a read-out never C's departs at layer 0, not 1 (red team, round 28)."""
    for j, ((p, c), want) in enumerate(zip(encoding.readout, expected)):
        values = [layer[p][c] for layer in vectors]
        if values[-1] != want:
            n = len(values) - next((k for k, v in enumerate(reversed(values)) if v == want or is_symbolic(v)), len(values))
            g = circuit.outputs[j]
            return [Step(circuit.gate_name(g), circuit.gates[g].kind.value, n, p, Fraction(want), Fraction(values[n]))]
    return []


def _fractions(xs: Sequence[Any]) -> tuple[Fraction, ...]:
    """The values as Fractions, one object per distinct value (a witness's 10⁶ inputs are mostly 0)."""
    as_fraction = {v: Fraction(v) for v in set(xs)}
    return tuple(map(as_fraction.__getitem__, xs))


def _settle(schedule: Schedule, p: int | None) -> int:
    if p is None or schedule.claims[p] is None:
        return 10 ** 9
    return schedule.claims[p].settle  # type: ignore[union-attr]


def refute(result: Any, timeout_ms: int) -> Any:
    """The refutation stage on a certify result that is not *proved*: search for a counterexample (first
    with the failed lemmas' models), then Z3 on the whole claim; a counterexample found — replayed
    exactly by the search — makes the result *refuted*.  Updates ``result`` in place and returns it."""
    import time

    from ..status import Status

    t0 = time.perf_counter()
    failed = [l for l in result.derivation.lemmas.values() if result.verdicts[l.digest].status == "failed"]
    counterexample = search_counterexample(result.circuit, result.transformer, result.encoding, result.schedule,
                                           hints_models=[result.verdicts[l.digest].model for l in failed
                                                         if result.verdicts[l.digest].model])
    if counterexample is None and failed:
        counterexample, irrational = z3_search(result.circuit, result.transformer, result.encoding,
                                               result.schedule, timeout_ms)
        if irrational:
            result.problems.append(f"refuted over the reals by an irrational witness ({irrational}); no rational "
                                   f"counterexample found, so over Q the claim is unknown")
    result.seconds["refute"] = time.perf_counter() - t0
    if counterexample is not None:
        result.counterexample = counterexample
        result.status = Status.REFUTED
    return result
