"""The monolithic baseline: one Z3 query ∀x. T(enc(C, x)) = C(x), no decomposition.

The transformer is run layer by layer on Z3 terms:

* the input values x are Z3 ``Real`` variables; structural coordinates of the
  encoding stay concrete rationals;
* circuits (scores, activations, the circuit C itself) are evaluated by
  :func:`eval_circuit`, a small evaluator over the IR that folds constants
  (concrete ⊕ concrete is computed exactly, ``0·t = 0``, ``1·t = t``,
  ``t + 0 = t``) and otherwise builds Z3 terms; ``sign`` of a term is a
  nested ``If``.  Nothing else is simplified: no per-gate lemmas, no shape
  cache, no normal forms;
* a score must be a rational after ``z3.simplify``: the argmax is then exact.
  If a score depends on the symbolic values the baseline gives up
  (``unsupported``);
* pooling is the average of Z3 terms (or leftmost/rightmost).

Then ``Not(And(readout_k == C_k(x)))`` goes to one Z3 solver with a timeout:
*unsat* means proved.  :func:`run_in_subprocess` runs it in a separate
process that is killed if Z3 overruns its own timeout.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from fractions import Fraction
from typing import Any

import z3

from verified_aat.transformer.exact_engine import read_inputs

from verified_aat.circuits.evaluate import compile_circuit
from verified_aat.circuits.ir import Circuit, Kind
from verified_aat.transformer.model import CircuitScore, Pooling, Transformer

Number = int | Fraction


class Unsupported(Exception):
    """The baseline cannot express this transformer as one query."""


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, Fraction))


def _norm(v: Number) -> Number:
    return v.numerator if isinstance(v, Fraction) and v.denominator == 1 else v


def to_z3(v: Any) -> z3.ArithRef:
    if _is_num(v):
        v = Fraction(v)
        return z3.RealVal(f"{v.numerator}/{v.denominator}") if v.denominator != 1 else z3.RealVal(v.numerator)
    return v


def _add(values: list[Any]) -> Any:
    const: Number = 0
    terms = []
    for v in values:
        if _is_num(v):
            const += v
        else:
            terms.append(v)
    if not terms:
        return _norm(const)
    if const != 0:
        terms.append(to_z3(const))
    return terms[0] if len(terms) == 1 else z3.Sum(*terms)


def _mul(values: list[Any]) -> Any:
    const: Number = 1
    terms = []
    for v in values:
        if _is_num(v):
            const *= v
        else:
            terms.append(v)
    if const == 0 or not terms:
        return _norm(const)
    if const != 1:
        terms.insert(0, to_z3(const))
    return terms[0] if len(terms) == 1 else z3.Product(*terms)


def _sign(v: Any) -> Any:
    if _is_num(v):
        return (v > 0) - (v < 0)
    return z3.If(v > 0, z3.RealVal(1), z3.If(v < 0, z3.RealVal(-1), z3.RealVal(0)))


def eval_circuit(circuit: Circuit, inputs: list[Any]) -> list[Any]:
    """The outputs of ``circuit`` on a mix of rationals and Z3 terms."""
    values: list[Any] = []
    for gate in circuit.gates:
        kind = gate.kind
        if kind is Kind.INPUT:
            values.append(inputs[gate.index])  # type: ignore[index]
        elif kind is Kind.CONST:
            values.append(_norm(gate.value))  # type: ignore[arg-type]
        elif kind is Kind.ADD:
            values.append(_add([values[a] for a in gate.args]))
        elif kind is Kind.MUL:
            values.append(_mul([values[a] for a in gate.args]))
        else:
            values.append(_sign(values[gate.args[0]]))
    return [values[o] for o in circuit.outputs]


def _as_rational(v: Any) -> Number:
    if _is_num(v):
        return v
    s = z3.simplify(v)
    if z3.is_rational_value(s):
        return _norm(Fraction(s.numerator_as_long(), s.denominator_as_long()))
    raise Unsupported("a score depends on the symbolic input values (does not simplify to a numeral)")


class _Scorer:
    """One score function: the columns it reads, a fast exact path and a symbolic one.

    Argmax sets are computed once per group of positions with equal read
    columns, and reused in a later layer when every read column is still the
    same concrete value at every position (as the exact engine does).
    """

    def __init__(self, score: Any, d: int):
        self.score = score
        self.d = d
        if isinstance(score, CircuitScore):
            used = read_inputs(score.circuit)
            self.i_cols = [c for c in range(d) if c in used]
            self.j_cols = [c for c in range(d) if c + d in used]
            self.fast = compile_circuit(score.circuit)
        else:
            entries = score.entries()
            self.i_cols = sorted({r for r, _, _ in entries})
            self.j_cols = sorted({c for _, c, _ in entries})
            self.fast = None
        self.last: tuple[Any, list[tuple[int, ...]]] | None = None

    def value(self, xi: list[Any], xj: list[Any]) -> Number:
        concrete = all(_is_num(xi[c]) for c in self.i_cols) and all(_is_num(xj[c]) for c in self.j_cols)
        if isinstance(self.score, CircuitScore):
            if concrete:
                return _norm(self.fast(*xi, *xj)[0])
            value = eval_circuit(self.score.circuit, list(xi) + list(xj))[0]
        else:
            value = _add([_mul([q, xi[r], xj[c]]) for r, c, q in self.score.entries()])
        return _as_rational(value)

    def argmax(self, rows: list[list[Any]]) -> list[tuple[int, ...]]:
        cols = sorted(set(self.i_cols) | set(self.j_cols))
        snapshot = tuple(tuple(r[c] for c in cols) for r in rows)
        concrete = all(_is_num(v) for key in snapshot for v in key)
        if concrete and self.last is not None and self.last[0] == snapshot:
            return self.last[1]
        if concrete:
            i_of, i_groups = _group(rows, self.i_cols)
            _, j_groups = _group(rows, self.j_cols)
        else:  # symbolic read columns: no grouping, every pair
            i_of, i_groups = list(range(len(rows))), [[i] for i in range(len(rows))]
            j_groups = [[j] for j in range(len(rows))]
        best = []
        for members in i_groups:
            xi = rows[members[0]]
            scores = [self.value(xi, rows[g[0]]) for g in j_groups]
            top = max(scores)
            best.append(tuple(sorted(p for g, s in zip(j_groups, scores) if s == top for p in g)))
        sets = [best[i_of[i]] for i in range(len(rows))]
        if concrete:
            self.last = (snapshot, sets)
        return sets


def _group(rows: list[list[Any]], cols: list[int]) -> tuple[list[int], list[list[int]]]:
    index: dict[tuple, int] = {}
    group_of: list[int] = []
    groups: list[list[int]] = []
    for p, row in enumerate(rows):
        key = tuple(row[c] for c in cols)
        g = index.setdefault(key, len(groups))
        if g == len(groups):
            groups.append([])
        groups[g].append(p)
        group_of.append(g)
    return group_of, groups


def run_symbolic(transformer: Transformer, sequence: list[list[Any]]) -> list[list[Any]]:
    """T on a sequence of rationals and Z3 terms; raises :class:`Unsupported`."""
    d = transformer.dimension
    rows = [list(r) for r in sequence]
    n = len(rows)
    scorers: list[_Scorer] = []
    for layer in transformer.layers:
        pooled_all: list[list[list[Any]]] = []
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise Unsupported("softmax pooling")
            scorer = next((s for s in scorers if s.score is head.score), None) or \
                next((s for s in scorers if s.score == head.score), None)
            if scorer is None:
                scorer = _Scorer(head.score, d)
                scorers.append(scorer)
            sets = scorer.argmax(rows)
            pooled: list[list[Any]] = []
            cache: dict[tuple[int, ...], list[Any]] = {}
            for i in range(n):
                chosen = sets[i]
                if chosen not in cache:
                    if head.pooling is Pooling.LEFTMOST:
                        cache[chosen] = rows[chosen[0]]
                    elif head.pooling is Pooling.RIGHTMOST:
                        cache[chosen] = rows[chosen[-1]]
                    else:
                        k = Fraction(1, len(chosen))
                        cache[chosen] = [_mul([k, _add([rows[j][c] for j in chosen])]) for c in range(d)]
                pooled.append(cache[chosen])
            pooled_all.append(pooled)
        rows = [eval_circuit(layer.activation, rows[i] + [v for p in pooled_all for v in p[i]])
                for i in range(n)]
    return rows


def build_query(circuit: Circuit, transformer: Transformer, encoding: Any) -> z3.BoolRef:
    """Not(And(readout_k == C_k(x))) over fresh Real variables x; raises :class:`Unsupported`."""
    xs = [z3.Real(f"x{i}") for i in range(circuit.n_inputs)]
    got = encoding.read(run_symbolic(transformer, encoding.instantiate(xs)))
    want = eval_circuit(circuit, list(xs))
    return z3.Not(z3.And(*[to_z3(a) == to_z3(b) for a, b in zip(got, want)]))


def solve(query: z3.BoolRef, timeout_ms: int) -> dict[str, Any]:
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(query)
    t1 = time.perf_counter()
    answer = solver.check()
    solve_s = time.perf_counter() - t1
    if answer == z3.unsat:
        return {"status": "proved", "reason": "", "solve_s": solve_s}
    if answer == z3.sat:
        return {"status": "REFUTED", "reason": str(solver.model())[:300], "solve_s": solve_s}
    reason = solver.reason_unknown()
    status = "TIMEOUT" if "timeout" in reason or "canceled" in reason else "unknown"
    return {"status": status, "reason": reason, "solve_s": solve_s}


def dag_size(expr: z3.ExprRef) -> int:
    """Distinct sub-terms of ``expr`` (the size of the query as a DAG)."""
    seen: set[int] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        key = e.get_id()
        if key in seen:
            continue
        seen.add(key)
        stack.extend(e.children())
    return len(seen)


def _child(conn: Any, circuit_json: Any, construction: str, timeout_ms: int) -> None:
    """Build the query, report, solve, report: two messages on ``conn``."""
    from verified_aat.circuits.json_format import circuit_from_json
    from verified_aat.constructions.registry import get_construction

    try:
        circuit = circuit_from_json(circuit_json)
        compiled = get_construction(construction).compile(circuit, None)
        t0 = time.perf_counter()
        query = build_query(circuit, compiled.transformer, compiled.encoding)
        conn.send({"build_s": time.perf_counter() - t0, "query_nodes": dag_size(query)})
        conn.send(solve(query, timeout_ms))
    except Unsupported as exc:
        conn.send({"status": "unsupported", "reason": str(exc)})
    except Exception as exc:  # reported, not hidden
        conn.send({"status": "error", "reason": f"{type(exc).__name__}: {exc}"})
    conn.close()


def run_in_subprocess(circuit: Circuit, construction: str, timeout_s: float, build_budget_s: float = 120.0,
                      grace_s: float = 15.0) -> dict[str, Any]:
    """Build and solve the query in a fresh process.

    The build (symbolic run of T) may take ``build_budget_s`` seconds; the
    solver gets ``timeout_s`` (its own timeout) and is killed if it has not
    answered ``grace_s`` seconds later.  Returns status, reason, build_s,
    solve_s, query_nodes and wall_s (``None`` for what was not reached).
    """
    from verified_aat.circuits.json_format import circuit_to_json

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, circuit_to_json(circuit), construction, int(timeout_s * 1000)))
    start = time.perf_counter()
    proc.start()
    child.close()
    result: dict[str, Any] = {"status": None, "reason": "", "build_s": None, "solve_s": None, "query_nodes": None}
    for budget, phase in ((build_budget_s + 10, "build"), (timeout_s + grace_s, "solve")):
        message = None
        if parent.poll(budget):
            try:
                message = parent.recv()
            except EOFError:
                pass
        if message is None:
            if proc.is_alive():
                result["status"] = "TIMEOUT"
                result["reason"] = (f"query not built within {build_budget_s:.0f}s" if phase == "build"
                                    else f"killed {grace_s:.0f}s after the solver timeout (Z3 ignored it)")
            else:
                result["status"] = "error"
                result["reason"] = f"baseline process died (exit code {proc.exitcode}) during {phase}"
            break
        result.update(message)
        if result["status"] is not None:
            break
    if proc.is_alive():
        proc.kill()
    proc.join()
    result["wall_s"] = time.perf_counter() - start
    return result
