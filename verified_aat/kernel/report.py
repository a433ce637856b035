"""The kernel's options and its verdict: accepted, rejected (each :class:`Rejection` names its check, rule and step
of docs/soundness.md) or *not checked* (a lemma no one decided, a limit: never a rejection or an acceptance)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .problems import Rejection, shown_reasons, trust_line


ACCEPTED, REJECTED, NOT_CHECKED = "accepted", "rejected", "not-checked"
UNSAT, SAT, UNKNOWN = "unsat", "sat", "unknown"  # a solver's answers (solvers.py), named here so that
# deciding a lemma without a solver never imports the solver runner


@dataclass(frozen=True)
class Options:
    solvers: tuple[str, ...] = ("z3",)   # for lemmas the kernel's normal form does not decide (S12)
    second_opinion: bool = False          # the solvers also on the lemmas the normal form proves
    solver_trust: bool = True             # False: a lemma only a solver decides is *not checked*
    timeout_ms: int | None = 20_000       # per lemma and solver; None: no limit
    circuit_file: tuple[str, bytes, str] | None = None  # --circuit FILE (name, bytes, text|json|structure): read by circuit_file.py
    netlist: tuple[str, bytes] | None = None  # --circuit FILE (a netlist): (file name, bytes)
    candidate_link: bool = False          # read a netlist link by candidates (N, its own trusted-base kinds)
    binarized_sha256: tuple[str, ...] = ()  # hashes of --circuit FILE binarized: a match is *not checked*, never accepted
    defence_budget: int | None = None     # activation evaluations the interpreter may spend (None: automatic)
    progress: Any = None                  # called with each check's name before it runs (display only)
    seed: int = 20261130
    jobs: int = 1                         # processes for the audit kinds' solver runs
    shards: Any = None                    # .workers, .map(fn, shared, parts): large derivations on workers (shards.py)


@dataclass
class Report:
    outcome: str = REJECTED
    rejections: list[Rejection] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    theorem: str = ""
    checks: list[tuple[str, str, float]] = field(default_factory=list)  # (name, result, seconds)
    lemmas: int = 0
    obligations: int = 0
    solver_runs: int = 0
    kernel_decided: int = 0
    solver_only: list[str] = field(default_factory=list)
    defence: str = ""
    seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        return self.outcome == ACCEPTED

    reasons = property(shown_reasons)  # display only (problems.py)
    trust = property(trust_line)  # display only: what an accepted verdict rests on (problems.py)
