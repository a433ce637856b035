"""The rule table every kind of certificate is checked by (Carcara style): each :class:`Check` enforces one rule and
names the step of docs/soundness.md it discharges; the first failing one ends the run; :func:`judge` states the
verdict the same way for every kind."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable

from .data import Malformed, NotChecked
from .problems import Problem, Rejection, resource_limit
from .report import ACCEPTED, NOT_CHECKED, REJECTED, Report


def sha256_json(value: object) -> str:
    """The hash of a JSON value in canonical form (sorted keys, no spaces, ASCII)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Check:
    name: str
    step: str
    rule: str
    run: Callable[[Any], list[Problem | str]]   # a kind's context (context.Context, SchematicContext, AuditContext)


def run_checks(ctx: Any, checks: tuple[Check, ...], report: Report) -> None:
    """Run ``checks`` in order into ``report``; the first failing one ends the run.  Every kind of
    certificate goes through here: a malformed field or an error is a rejection (fail closed); running
    out of memory, of stack or of Python's digits is *not checked* (a resource limit, not a verdict, as S12)."""
    for number, check in enumerate(checks):
        if ctx.options.progress is not None:
            ctx.options.progress(check.name, number, len(checks))
        t0 = time.perf_counter()
        try:
            problems = check.run(ctx)
        except Malformed as exc:
            problems = [Problem("{path:120}: " + exc.message, {**exc.data, "path": exc.path})]
        except Exception as exc:  # noqa: BLE001 - fail closed: a check that cannot finish never accepts
            why = f"{exc} (docs/soundness.md {check.step})" if isinstance(exc, NotChecked) else resource_limit(exc)
            if why is not None:  # a limit of the kernel or a resource limit, not a verdict: never a rejection
                ctx.unchecked.append(f"{check.name}: {why}")
                report.checks.append((check.name, "not checked", time.perf_counter() - t0))
                break
            problems = [Problem("the kernel could not complete this check ({error:160})", {"error": f"{type(exc).__name__}: {exc}"})]
        report.checks.append((check.name, "fail" if problems else "ok", time.perf_counter() - t0))
        if problems:
            report.rejections = [Rejection(*((p, {}) if isinstance(p, str) else (p.message, p.data)),  # str: a fixed message
                                           check=check.name, step=check.step, rule=check.rule) for p in problems]
            break


def judge(ctx: Any, checks: tuple[Check, ...], counts: Callable[[Any], tuple[int, int]],
          theorem: Callable[[Any], str]) -> Report:
    """Run ``checks`` on ``ctx`` and state the outcome, the same way for every kind of certificate:
    rejected if a check failed, else not checked if anything was left unchecked, else accepted with
    ``theorem(ctx)``.  ``counts(ctx)`` gives (distinct lemmas, obligations)."""
    start = time.perf_counter()
    report = Report()
    run_checks(ctx, checks, report)
    report.unchecked = list(ctx.unchecked)
    report.lemmas, report.obligations = counts(ctx)
    report.solver_runs = ctx.solver_runs
    report.kernel_decided, report.solver_only = ctx.kernel_decided, list(ctx.solver_only)
    report.outcome = REJECTED if report.rejections else NOT_CHECKED if report.unchecked else ACCEPTED
    if report.outcome == ACCEPTED:
        report.theorem = theorem(ctx)
    report.seconds = time.perf_counter() - start
    return report
