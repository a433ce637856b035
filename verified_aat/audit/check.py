"""Audit of the unrolling (MATH.md §5): class, size, depth and equivalence per length N.

For every audited length N the transformer is unrolled (:func:`.unroll.unroll`)
and the circuit is checked against

* the class: every multiplication has fan-in exactly 2, so the circuit is in
  FSAC⁰[sign] (or smaller) by the rule of :func:`~verified_aat.circuits.measures.classify`;
* the size: the non-constant gates equal :func:`.size.size_formula` exactly,
  layer by layer, and the whole size is at most its bound;
* the depth: the same for every audited N ≥ 2;
* the depth: equal to :func:`.depth.depth_formula`, computed from T alone, for every N ≥ 2;
* equivalence, tested three ways: on seeded random exact sequences (zeros, one
  vector repeated, a few vectors repeated, random rationals, 0/1 values,
  integers — repeats make argmax ties) the circuit's value equals the
  independent reference :func:`.reference.reference_run` (no shared
  evaluation code) layer by layer — the vectors after every layer and the
  argmax sets (the gates M_ij) — and the exact engine ``run_exact`` gives the
  reference's outputs too.

The circuit is checked on its flat form (:mod:`.flat`): the same gates as the
:class:`~verified_aat.circuits.ir.Circuit` (``tests/test_audit_flat.py`` checks
they are identical to the gate-by-gate construction), measured in one pass
over the arrays and evaluated exactly, level by level, on ints (numerator and
denominator) — never floats.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Sequence

from ..circuits.measures import CircuitClass
from ..circuits.rationals import format_rational
from ..errors import InputError
from ..transformer.exact_engine import ExactRunner
from ..transformer.model import Transformer
from .depth import depth_formula
from .reference import reference_run
from .size import FORMULA_TEXT, size_formula
from .unroll import UnrolledCircuit, Unroller, flatten, unroll
from ..wording import plural

VALUES = [Fraction(v) for v in ("0", "1", "-1", "2", "-2", "3", "1/2", "-3/4", "5/3")]
SAMPLE_KINDS = ("repeats", "random", "binary", "integers")
DEFAULT_LENGTHS = (2, 3, 4)
ASYMPTOTIC = "O(L·H·N²·(σ + d + N) + L·N·α): the argmax test compares all N³ triples (i, j, j′) per head"


@dataclass(frozen=True)
class AuditRow:
    """The checks at one length N."""

    n: int
    inputs: int
    outputs: int
    depth: int
    size: int
    edges: int
    operations: int
    formula_operations: int
    size_bound: int
    class_name: str
    class_ok: bool
    mul_binary: bool
    samples: int
    mismatches: int
    seconds: float
    layer_gates: tuple[int, ...] = ()
    first_mismatch: str | None = None
    layers_match_formula: bool = True
    formula_depth: int | None = None  # depth_formula(T) for N ≥ 2; None at N = 1 (see .depth)

    @property
    def depth_ok(self) -> bool:
        return self.formula_depth is None or self.depth == self.formula_depth

    @property
    def size_ok(self) -> bool:
        return (self.layers_match_formula and self.operations == self.formula_operations
                and self.size <= self.size_bound)

    @property
    def ok(self) -> bool:
        return self.class_ok and self.mul_binary and self.size_ok and self.depth_ok and self.mismatches == 0


@dataclass(frozen=True, repr=False)
class AuditReport:
    """What ``audit`` found at each length N (``repr``: one line; ``_repr_html_``: a table per N)."""

    transformer: str
    dimension: int
    layers: int
    heads: int
    rows: tuple[AuditRow, ...]
    seed: int
    formula: str = FORMULA_TEXT
    asymptotic: str = ASYMPTOTIC
    problems: tuple[str, ...] = field(default=())

    @property
    def depth_independent(self) -> bool | None:
        """Whether every audited N ≥ 2 gives the same depth (None: fewer than two such N)."""
        depths = {row.depth for row in self.rows if row.n >= 2}
        if len([row for row in self.rows if row.n >= 2]) < 2:
            return None
        return len(depths) == 1

    @property
    def ok(self) -> bool:
        return all(row.ok for row in self.rows) and self.depth_independent is not False

    def __repr__(self) -> str:
        from ..display import audit_repr
        return audit_repr(self)

    def _repr_html_(self) -> str:
        """The verdict and one row per audited length N for Jupyter."""
        from ..display import audit_html
        return audit_html(self)

    def to_json(self) -> dict[str, Any]:
        rows = []
        for row in self.rows:
            data = asdict(row)
            data["layer_gates"] = list(row.layer_gates)
            data["size_ok"] = row.size_ok
            data["depth_ok"] = row.depth_ok
            data["ok"] = row.ok
            data["seconds"] = round(row.seconds, 6)
            rows.append(data)
        independent = self.depth_independent
        return {"transformer": self.transformer, "dimension": self.dimension, "layers": self.layers,
                "heads": self.heads, "seed": self.seed, "formula": self.formula, "asymptotic": self.asymptotic,
                "depth_independent_of_N": None if independent is None else independent,
                "ok": self.ok, "rows": rows, "problems": list(self.problems)}


# -- samples --------------------------------------------------------------------------

def sample_sequence(rng: random.Random, n: int, d: int, kind: str) -> list[list[Fraction]]:
    """One test sequence of ``n`` vectors of dimension ``d`` of the given kind."""
    def vector(values: Sequence[Fraction]) -> list[Fraction]:
        return [rng.choice(values) for _ in range(d)]

    if kind == "zeros":
        return [[Fraction(0)] * d for _ in range(n)]
    if kind == "constant":
        v = vector(VALUES)
        return [list(v) for _ in range(n)]
    if kind == "repeats":
        distinct = [vector(VALUES) for _ in range(rng.randint(1, max(1, (n + 1) // 2)))]
        return [list(rng.choice(distinct)) for _ in range(n)]
    if kind == "binary":
        return [vector(VALUES[:2]) for _ in range(n)]
    if kind == "integers":
        return [vector([Fraction(v) for v in range(-3, 4)]) for _ in range(n)]
    return [vector(VALUES) for _ in range(n)]


def sample_sequences(n: int, d: int, samples: int, seed: int = 0) -> list[list[list[Fraction]]]:
    """``samples`` seeded sequences of length ``n``: zeros, one repeated vector, then the other kinds in turn."""
    rng = random.Random(f"{seed}:{n}:{d}")
    kinds = ["zeros", "constant"] + [SAMPLE_KINDS[k % len(SAMPLE_KINDS)] for k in range(max(0, samples - 2))]
    return [sample_sequence(rng, n, d, kind) for kind in kinds[:samples]]


# -- comparison -----------------------------------------------------------------------

def _show(sequence: Sequence[Sequence[Any]]) -> str:
    return "[" + ", ".join("(" + ", ".join(map(format_rational, row)) + ")" for row in sequence) + "]"


def compare(transformer: Transformer, unrolled: UnrolledCircuit, sequence: Sequence[Sequence[Any]],
            engine: bool | ExactRunner = True) -> str | None:
    """None when the circuit, the independent reference and (``engine``) the exact engine agree on ``sequence``.

    Otherwise what differs first.  The circuit is evaluated once, exactly, by
    :class:`~.flat.FlatEvaluator` (every gate's value, so the outputs, the
    vectors after every layer and the argmax gates all come from that one
    evaluation) and compared layer by layer with :func:`.reference.reference_run`,
    which shares no evaluation code with it; the exact engine's outputs are
    compared with the reference's as a third opinion (``engine`` may be the :class:`ExactRunner` to use: one
    runner compiles T's activations once for all samples, where a fresh one per sample spent a fifth of an audit
    of a 30,000-gate activation compiling it again).
    """
    flat = unrolled.flat
    values = flat.evaluator.run(flatten(sequence))
    reference = reference_run(transformer, sequence)
    for number, layer in enumerate(reference.layers, start=1):
        heads = transformer.layers[number - 1].heads
        for h, head_sets in enumerate(layer.argmax):
            for i, chosen in enumerate(head_sets):
                marks = values.take(unrolled.argmax[number - 1][h][i])
                if any(m not in (0, 1) for m in marks) or tuple(j for j, m in enumerate(marks) if m == 1) != chosen:
                    return (f"layer {number}, head {heads[h].name}, position {i}: argmax gates {marks}, reference's "
                            f"argmax set {list(chosen)}, on {_show(sequence)}")
        for p, vector in enumerate(layer.vectors):
            for c, want in enumerate(vector):
                got = values[unrolled.vectors[number][p][c]]
                if got != want:
                    return (f"after layer {number}, position {p}, {transformer.coordinates[c]}: circuit {got}, "
                            f"reference {want}, on {_show(sequence)}")
    got_outputs = tuple(values.take(flat.outputs))
    want_outputs = tuple(flatten(reference.outputs))
    if got_outputs != want_outputs:
        return f"outputs differ: circuit {list(map(str, got_outputs))}, reference {list(map(str, want_outputs))}"
    if engine:
        runner = engine if isinstance(engine, ExactRunner) else ExactRunner(transformer)
        engine_outputs = tuple(flatten(runner.run(sequence).outputs))
        if engine_outputs != want_outputs:
            return (f"exact engine {list(map(str, engine_outputs))} and reference {list(map(str, want_outputs))} "
                    f"differ on {_show(sequence)}")
    return None


# -- the audit ------------------------------------------------------------------------

def audit_length(transformer: Transformer, n: int, sequences: Iterable[Sequence[Sequence[Any]]],
                 unroller: Unroller = unroll) -> AuditRow:
    """Unroll at length ``n`` (with ``unroller``: e.g. a deliberately broken unrolling of :mod:`.mutants`)
    and run every check on ``sequences`` (all of length ``n``)."""
    start = time.perf_counter()
    unrolled = unroller(transformer, n)
    m = unrolled.flat.measures()  # size, edges, depth, fan-ins and class in one pass over the gate arrays
    formula = size_formula(transformer, n)
    layer_ok = unrolled.layer_operations() == formula.per_layer
    checked = mismatches = 0
    first: str | None = None
    runner = ExactRunner(transformer)  # one for all samples: T's activations compiled once
    for sequence in sequences:
        if len(sequence) != n:
            raise InputError(f"a test sequence of length {len(sequence)} was given for N = {n}")
        checked += 1
        problem = compare(transformer, unrolled, sequence, runner)
        if problem is not None:
            mismatches += 1
            first = first or problem
    flat = unrolled.flat
    return AuditRow(n=n, inputs=flat.n_inputs, outputs=len(flat.outputs), depth=m.depth, size=m.size,
                    edges=m.edges, operations=m.operations, formula_operations=formula.gates,
                    size_bound=formula.size_bound, class_name=m.class_name,
                    class_ok=m.circuit_class in (CircuitClass.FNC0.value, CircuitClass.FSAC0.value),
                    mul_binary=m.mul_binary,
                    samples=checked, mismatches=mismatches, seconds=time.perf_counter() - start,
                    layer_gates=unrolled.layer_gates, first_mismatch=first,
                    layers_match_formula=layer_ok,
                    formula_depth=depth_formula(transformer).depth if n >= 2 else None)


def audit(transformer: Transformer, lengths: Iterable[int] = DEFAULT_LENGTHS, samples: int = 20, seed: int = 0,
          extra: Iterable[Sequence[Sequence[Any]]] = (), unroller: Unroller = unroll) -> AuditReport:
    """Audit the unrolling of ``transformer`` at every length in ``lengths``.

    ``samples`` seeded sequences are drawn per length; ``extra`` sequences
    (e.g. encodings enc(C, x)) are checked at their own length, which is
    audited as well.  ``unroller``: how U_N is built (:func:`.unroll.unroll` unless a test or
    ``--defect`` passes a deliberately broken one, :mod:`.mutants`).
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise InputError(f"samples must be an integer >= 0, got {samples!r}")
    by_length: dict[int, list[Sequence[Sequence[Any]]]] = {}
    for sequence in extra:
        by_length.setdefault(len(sequence), []).append(sequence)
    wanted = sorted(set(lengths) | set(by_length))
    if not wanted:
        raise InputError("no lengths to audit")
    rows = []
    problems = []
    for n in wanted:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"lengths must be integers >= 1, got {n!r}")
        sequences = sample_sequences(n, transformer.dimension, samples, seed) + by_length.get(n, [])
        row = audit_length(transformer, n, sequences, unroller)
        rows.append(row)
        if row.first_mismatch:
            problems.append(f"N = {n}: {plural(row.mismatches, 'mismatch', 'mismatches')}; first: {row.first_mismatch}")
        if not row.class_ok or not row.mul_binary:
            problems.append(f"N = {n}: class {row.class_name}, every mul binary: {row.mul_binary}")
        if not row.depth_ok:
            problems.append(f"N = {n}: depth {row.depth} against the depth formula {row.formula_depth}")
        if not row.size_ok:
            problems.append(f"N = {n}: size {row.size} ({row.operations} non-constant gates) against the formula "
                            f"{row.formula_operations} (bound {row.size_bound})")
    report = AuditReport(transformer.name, transformer.dimension, transformer.n_layers, transformer.n_heads,
                         tuple(rows), seed, problems=tuple(problems))
    if report.depth_independent is False:
        depths = ", ".join(f"N={row.n}: {row.depth}" for row in rows)
        report = AuditReport(report.transformer, report.dimension, report.layers, report.heads, report.rows, seed,
                             problems=report.problems + (f"depth depends on N ({depths})",))
    return report
