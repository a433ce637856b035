"""How every lemma is decided, the same for the three kinds of certificate (docs/soundness.md S12): the kernel's normal
form (``identity.py``, S12a), its proof object (``positivity.py``, S12c), a countermodel (S12d), the solvers (S12b).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .countermodel import refute  # reject-only (S12d): counted apart
from .identity import decide
from .problems import Problem
from .report import SAT, UNSAT

Answer = Callable[[list[tuple[str, str]]], list[str]]  # [(text, solver)] → answers
PROOF_WORK = 20_000_000  # identity._Normaliser.work on all proof objects (honest: ≤ 600,000, edge-k every K)
NORMAL_WORK = 10_000_000  # and on all lemmas' normal forms: one at its budget (honest: 8·10^6, a 333,333-term mean at 10^6 gates)


def discharge(ctx: Any, lemmas: Sequence[tuple[str, str]], answer: Answer,
              proofs: Sequence[Any] | None = None, decided: Sequence[bool] = ()) -> list[Problem]:
    """Decide ``lemmas`` ((label, text) pairs; ``proofs``: each one's proof object from the certificate, or
    None; ``decided``: those the caller's kernel check decided another way); fill ``ctx.unchecked``,
    ``ctx.solver_runs``, ``ctx.kernel_decided`` and ``ctx.solver_only``; return the false lemmas and the proof
    objects that do not check (rejections)."""
    # long because the three ways a lemma is decided (normal form, proof object, solvers) share its verdict list and
    # their budgets, and the order between them is the soundness argument of S12; apart they would pass both around
    options = ctx.options
    tally = [0]  # the normal form's work on all lemmas: past NORMAL_WORK the rest are neither decided nor asked (None)
    own = [None if tally[0] >= NORMAL_WORK else k < len(decided) and decided[k]
           or decide(text, tally, NORMAL_WORK - tally[0]) or (None if tally[0] >= NORMAL_WORK else False)
           for k, (_, text) in enumerate(lemmas)]  # a lemma's budget: at most what is left (then None, as the rest)
    if None in own:
        ctx.unchecked.append(f"the lemmas from {lemmas[own.index(None)][0]} on are not decided: the kernel's normal form "
                             f"passed {NORMAL_WORK} units of work on this certificate's lemmas (docs/soundness.md, Limits)")
    problems: list[Problem] = []
    spent = 0  # work on proof objects; past one object's limit, or PROOF_WORK in all, the others are left
    for k, proof in enumerate(proofs or []):
        if proof is not None and own[k] is False and spent <= PROOF_WORK:
            from .positivity import BadProof, Unfinished, check_proof  # only for a lemma with a proof object
            try:
                spent += check_proof(lemmas[k][1], proof)
                own[k] = True
            except BadProof as exc:
                problems.append(Problem("{lemma:120}: its proof object does not check (S12c): {error:120}",
                                        {"lemma": lemmas[k][0], "error": str(exc)}))
            except Unfinished as exc:  # a resource limit: the solvers may still decide it, else not checked
                ctx.unchecked.append(f"{lemmas[k][0]}: its proof object could not be checked to the end ({exc})")
                spent = PROOF_WORK + 1
            if spent > PROOF_WORK:
                ctx.unchecked.append(f"the proof objects after {lemmas[k][0]} are not checked (past a limit)")
    if problems or (problems := refute(lemmas, own)):  # S12d: a lemma left open that is false at a point
        return problems
    ctx.kernel_decided = sum(x is True for x in own)
    jobs: list[tuple[int, str]] = []
    for k, ((label, _), proved) in enumerate(zip(lemmas, own)):
        if proved is False and not options.solver_trust:
            ctx.unchecked.append(f"{label}: the kernel's normal form does not decide it, and no solver is trusted "
                                 "(--no-solver-trust)")
        if proved is not None and ((not proved and options.solver_trust) or options.second_opinion):
            jobs += [(k, name) for name in options.solvers]
    try:
        answers = answer([(lemmas[k][1], name) for k, name in jobs])
    except Exception as exc:  # noqa: BLE001 - a solver that is missing or cannot run decides nothing: not checked
        ctx.unchecked.append(f"a solver could not run ({type(exc).__name__}: {exc})")
        return []
    ctx.solver_runs += len(answers)
    trusted: dict[int, list[str]] = {}
    for (k, name), reply in zip(jobs, answers):
        label = lemmas[k][0]
        if own[k]:
            if reply == SAT:
                ctx.unchecked.append(f"{label}: the kernel's normal form proves it, yet {name} finds a counterexample "
                                     "(a kernel or solver bug)")
        elif reply == SAT:
            problems.append(Problem("{lemma:120} is false: {solver} finds a counterexample", {"lemma": label, "solver": name}))
        elif reply != UNSAT:
            ctx.unchecked.append(f"{label}: {name} says {reply}")
        elif options.solver_trust:
            trusted.setdefault(k, []).append(name)
    ctx.solver_only = [f"{lemmas[k][0]} ({'+'.join(names)})" for k, names in sorted(trusted.items())]
    return problems


def discharge_derivation(ctx: Any) -> list[Problem]:
    """S12 / P8 on the lemmas of ``ctx.derivation`` in derivation order (per-circuit and schematic)."""
    from .solvers import solve_all
    lemmas = [(f"{x.kind} lemma {d}" + (f" ({x.where})" if x.where else ""), x.text)
              for d, x in ctx.derivation.lemmas.items()]
    return discharge(ctx, lemmas, lambda jobs: solve_all(jobs, ctx.options.timeout_ms),
                     [getattr(ctx, "proofs", {}).get(d) for d in ctx.derivation.lemmas])  # per-circuit: none
