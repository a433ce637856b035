"""The monolithic baseline: one Z3 query ∀x. T(enc(C, x)) = C(x), no decomposition.

The transformer is run layer by layer on Z3 terms:

* the input values x are Z3 ``Real`` variables; structural coordinates of the
  encoding stay concrete rationals;
* circuits (scores, activations, the circuit C itself) are evaluated by
  ``verified_aat.refutation.monolithic.eval_circuit``, a small evaluator over the IR that folds constants
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
from typing import Any

import z3

from verified_aat.circuits.ir import Circuit
from verified_aat.refutation.monolithic import Unsupported, build_query

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
