"""From a false schematic lemma to a witness circuit: the lemma's model names a fan-in, ids and values.

A schematic lemma is false when some symbolic position — an add of fan-in k, a gate with id g, an
operand mean m — breaks it.  Z3's model of the lemma's negation gives those numbers (exact
rationals).  This module builds the small circuits that realise them: an add of fan-in k (over k
distinct inputs, or one input k times), a gate whose id is reached by padding with input gates, each
gate kind of the class; and the inputs the model suggests (every input the model's mean, or its
operand values).  Each candidate is replayed by the exact engine (``refutation.search``), so a
witness is reported only after an exact run disagrees with the circuit.  Nothing here is trusted:
a candidate that does not fail is simply not reported.
"""

from __future__ import annotations

import re
import time
from fractions import Fraction
from typing import Callable, Iterator

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit
from ..constructions.base import Construction
from ..errors import InputError
from ..gc_pause import gc_paused
from ..refutation.refute import Refutation
from ..refutation.search import Counterexample, search_counterexample
from ..symbolic.attention import engine_keys
from ..transformer.key_join import KeyDecompositions
from ..transformer.model import Transformer

MAX_FAN_IN = 4096       # a model's fan-in beyond this is not built
MAX_PADDING = 1 << 21   # ids up to about 2·10⁶ are reached by padding with input gates
SECONDS_PER_GATE = 2e-5  # what building, encoding and replaying one gate costs (a settled run), measured: 10⁶ gates ~17 s
                         # a candidate whose replay would not fit the witness budget is not built


def lemma_model(text: str, timeout_ms: int = 20_000) -> dict[str, Fraction] | None:
    """Z3's model of the lemma's negation (a false lemma), its rational values by variable name."""
    import z3

    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    try:
        solver.from_string(text)
        if solver.check() != z3.sat:
            return None
        model = solver.model()
    except z3.Z3Exception:
        return None
    values: dict[str, Fraction] = {}
    for decl in model.decls():
        value = model[decl]
        if z3.is_rational_value(value):
            values[decl.name()] = Fraction(value.numerator_as_long(), value.denominator_as_long())
    return values


def _integer(value: Fraction, low: int, high: int) -> int | None:
    n = -(-value.numerator // value.denominator)  # ceil: an id or fan-in at least the model's
    return n if low <= n <= high else None


def _values(model: dict[str, Fraction]) -> list[Fraction]:
    """The model's candidate input values: operand values y…, means m_…, constants …_c, and the rest."""
    first = [v for k, v in sorted(model.items()) if re.fullmatch(r"(y\d*|y_\w+|m_val|m\d*_val|S|\w+_c)", k)]
    rest = [v for k, v in sorted(model.items()) if v not in first]
    out: list[Fraction] = []
    for v in first + rest:
        if v not in out:
            out.append(v)
    return out[:12]


def candidates(model: dict[str, Fraction], max_gates: int = MAX_PADDING + 2
               ) -> Iterator[tuple[Circuit, list[list[Fraction]]]]:
    """Circuits that realise the model's fan-ins and ids, each with the inputs to try first (none with more
    than ``max_gates`` gates: their exact replay would not fit the budget)."""
    fan_ins = sorted({k for name, v in model.items() if name.endswith("_k")
                      for k in [_integer(v, 1, min(MAX_FAN_IN, max_gates))] if k is not None})
    ids = sorted({g for name, v in model.items() if re.search(r"_(g|u|v)$", name)
                  for g in [_integer(v, 0, min(MAX_PADDING, max_gates - 2))] if g is not None and g > 2})
    values = _values(model) or [Fraction(1)]
    for k in fan_ins:
        for c in (_add_repeated(k), _add_repeated(k, distinct=True)):  # one input k times first: the smaller witness
            yield c, [[v] * c.n_inputs for v in values]
    for g in ids:  # the id is an operand's (operands at g, g + 1) or the gate's own (red team 16b: edge-k with its
        for padding in (g, g - 2):  # sinks' target 1000 goes wrong only at a gate of id 1000 that reads in-edges)
            for op in ("add", "mul", "sign"):
                c = _at_id(op, padding)
                tails = [[Fraction(0)] * padding + values[:2]] if len(values) >= 2 else []  # the model's operands
                yield c, tails + [[v] * c.n_inputs for v in values]
    for op in ("add", "mul", "sign"):  # the model's values on each small gate
        b = CircuitBuilder(f"{op}-of-model-values")
        xs = [b.input(f"x{i}") for i in range(1 if op == "sign" else 2)]
        b.output(b.sign(xs[0]) if op == "sign" else getattr(b, op)(*xs))
        c = b.build()
        pairs = [[a, b_] for a in values for b_ in values][:24]
        yield c, [[v] * len(xs) for v in values] + (pairs if len(xs) == 2 else [])
    yield from _constants_and_late_inputs(values, ids)


def _constants_and_late_inputs(values: list[Fraction], ids: list[int]) -> Iterator[tuple[Circuit, list[list[Fraction]]]]:
    """What the gates above never are (red team, round 5: wrong documents only the random search refuted): the
    model's values as constant gates, read by each op from either side; an empty sum; and inputs whose gate id is
    not their input number (constants first, as many as the model's ids ask)."""
    for v in values[:4]:
        for op in ("add", "mul", "sign"):
            for first in (True, False):
                b = CircuitBuilder(f"{op}-of-const-{v}-{'first' if first else 'last'}")
                operands = [b.const(v), b.input("x0")] if first else [b.input("x0"), b.const(v)]  # in id order
                c = operands[0 if first else 1]
                b.output(b.sign(c) if op == "sign" else getattr(b, op)(*operands))
                yield b.build(), [[w] for w in values]
    b = CircuitBuilder("empty-add")  # depth 1, as every candidate here: T_1 must compute them all
    x = b.input("x0")
    b.output(b.add())
    b.output(b.add(x))
    yield b.build(), [[w] for w in values]
    for pad in sorted({1, 2, *ids})[:4]:
        for op in ("add", "mul"):
            b = CircuitBuilder(f"{op}-of-inputs-after-{pad}-constants")
            cs = [b.const(Fraction(k + 2)) for k in range(pad)]
            xs = [b.input("x0"), b.input("x1")]
            b.output(getattr(b, op)(xs[0], xs[1]))
            b.output(b.add(cs[-1], xs[1]))
            yield b.build(), [[v, w] for v in values[:4] for w in values[:4]]


@gc_paused  # the witness's 10⁶ rows, roles, claims and Forms live until its replay ends (gc_pause.py)
def witness_from_models(transformer: Transformer, construction: Construction, models: list[dict[str, Fraction]],
                        budget_seconds: float = 60.0) -> Refutation:
    """The first candidate of the models' circuits that the exact engine refutes, made as small as the
    replay allows (None found: unknown)."""
    start, tried = time.perf_counter(), 0
    seen: set[str] = set()
    for model in models:
        left = budget_seconds - (time.perf_counter() - start)
        for circuit, inputs in candidates(model, max_gates=max(16, int(left / SECONDS_PER_GATE))):
            if time.perf_counter() - start > budget_seconds:
                return Refutation(None, None, tried, time.perf_counter() - start)
            if circuit.name in seen:
                continue
            seen.add(circuit.name)
            tried += 1
            found = _replay(transformer, construction, circuit, inputs, start + budget_seconds)
            if found is not None:
                circuit, found, more = _smaller(transformer, construction, circuit, inputs, found,
                                                start + budget_seconds)
                return Refutation(circuit, found, tried + more, time.perf_counter() - start)
    return Refutation(None, None, tried, time.perf_counter() - start)


def _replay(transformer: Transformer, construction: Construction, circuit: Circuit,
            inputs: list[list[Fraction]], deadline: float | None = None) -> Counterexample | None:
    """The exact engine's replay (a settled run, with the key join where the construction's hints are proved
    for T's own scores): a counterexample only where it disagrees with the circuit."""
    try:
        construction.check_class(circuit)
    except InputError:
        return None
    encoding = construction.encode(circuit)
    schedule = construction.schedule(circuit, encoding)
    budget = 10.0 if deadline is None else max(deadline - time.perf_counter(), 0.0)
    return search_counterexample(circuit, transformer, encoding, schedule, budget_seconds=budget,
                                 max_runs=len(inputs) + 20, first=inputs, keys=_keys(construction))


def _keys(construction: Construction) -> KeyDecompositions:
    """One set of key decompositions per construction, so that each lemma is proved once per process."""
    cached = _KEYS.get(id(construction))
    if cached is None or cached[0] is not construction:
        cached = _KEYS[id(construction)] = (construction, engine_keys(construction.score_hints()))
    return cached[1]


_KEYS: dict[int, tuple[Construction, KeyDecompositions]] = {}


def _smaller(transformer: Transformer, construction: Construction, circuit: Circuit, inputs: list[list[Fraction]],
             found: Counterexample, deadline: float) -> tuple[Circuit, Counterexample, int]:
    """A smaller failing witness of the same form, by bisection (each candidate replayed exactly; the failing set need
    not be an interval, so this is a smaller witness, not always the smallest): an add of one input k times, the least
    failing fan-in below k; an op at a model's id, the least failing padding below it on the same operand values (red
    team, round 7: T_6 wrong at every mul was refuted by a mul after 4 unread inputs)."""
    gates = circuit.gates
    if circuit.name.split("-", 1)[-1].startswith("at-id-"):
        op, operands = circuit.name.split("-", 1)[0], list(found.inputs[-2:])
        return _bisect(transformer, construction, (circuit, found), -1, circuit.n_inputs - 2, deadline,
                       lambda k: (_at_id(op, k), [[Fraction(0)] * k + operands]))
    if circuit.n_inputs != 1 or len(gates) != 2 or gates[1].kind.value != "add":  # one input, one add of it
        return circuit, found, 0
    return _bisect(transformer, construction, (circuit, found), 0, len(gates[1].args), deadline,
                   lambda k: (_add_repeated(k), [list(found.inputs)]))


def _bisect(transformer: Transformer, construction: Construction, best: tuple[Circuit, Counterexample], low: int,
            high: int, deadline: float, build: Callable[[int], tuple[Circuit, list[list[Fraction]]]]
            ) -> tuple[Circuit, Counterexample, int]:
    """The least k in (low, high] whose ``build(k)`` circuit fails on its inputs, as far as bisection finds it: high
    fails (``best``), low is taken to pass; with the number of candidates replayed."""
    tried = 0
    while high - low > 1 and time.perf_counter() < deadline:
        middle = (low + high) // 2
        smaller, inputs = build(middle)
        tried += 1
        again = _replay(transformer, construction, smaller, inputs, deadline)
        if again is not None:
            high, best = middle, (smaller, again)
        else:
            low = middle
    return best[0], best[1], tried


def _add_repeated(k: int, distinct: bool = False) -> Circuit:
    """An add of one input k times (``distinct``: of k inputs)."""
    b = CircuitBuilder(f"add-fan-in-{k}{'' if distinct else '-repeated'}")
    xs = [b.input(f"x{i}") for i in range(k if distinct else 1)]
    b.output(b.add(*(xs if distinct else xs * k)))
    return b.build()


def _at_id(op: str, padding: int) -> Circuit:
    """``op`` of the last inputs (sign: of the last one) after ``padding`` inputs that nothing reads."""
    b = CircuitBuilder(f"{op}-at-id-{padding + 2}")  # its operands have ids padding and padding + 1
    xs = b.inputs([f"x{i}" for i in range(padding + 2)])
    b.output(b.sign(xs[-1]) if op == "sign" else getattr(b, op)(xs[-2], xs[-1]))
    return b.build()
