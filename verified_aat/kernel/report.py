"""The kernel's typed context and its verdict.

Checks (``checks.py``) read and fill a :class:`Context`; each failure becomes
a :class:`Rejection` that names the check, the rule it enforces and the step
of docs/soundness.md it discharges.  A lemma the solvers could not decide is
*not checked* — a third outcome, never a rejection and never an acceptance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .data import Circuit, Transformer
from .layouts import Construction, Encoding
from .obligations import Derivation, Function
from .schedule import Claims

ACCEPTED, REJECTED, NOT_CHECKED = "accepted", "rejected", "not-checked"


@dataclass(frozen=True)
class Rejection:
    check: str
    step: str
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.rule}: {self.detail} (docs/soundness.md {self.step})"


@dataclass(frozen=True)
class Options:
    solvers: tuple[str, ...] = ("z3",)   # for lemmas the kernel's normal form does not decide (S12)
    second_opinion: bool = False          # the solvers also on the lemmas the normal form proves
    solver_trust: bool = True             # False: a lemma only a solver decides is *not checked*
    timeout_ms: int | None = 20_000       # per lemma and solver; None: no limit
    circuit_sha256: str | None = None     # --circuit FILE (a circuit file): must be the certified circuit
    netlist: tuple[str, bytes] | None = None  # --circuit FILE (a netlist): (file name, bytes)
    binarized_sha256: tuple[str, ...] = ()  # hashes of --circuit FILE binarized: a match is *not checked*, never accepted
    defence_budget: int | None = None     # activation evaluations the interpreter may spend (None: automatic)
    progress: Any = None                  # called with each check's name before it runs (display only)
    seed: int = 20261130
    jobs: int = 1                         # ≥ 2: obligations of large encodings derived in two processes


@dataclass
class Context:
    """What the checks know, filled in check order."""

    doc: dict[str, Any]
    options: Options
    circuit: Circuit | None = None
    original: Circuit | None = None       # C before binarization (B): the theorem's circuit when present
    original_roots: tuple[int, ...] = ()  # gate of the certified circuit that computes each gate of C
    transformer: Transformer | None = None
    domain: str = "rationals"
    hashes: dict[str, str] = field(default_factory=dict)
    construction: Construction | None = None  # the document the certificate is about (S2)
    own_depth: int | None = None  # K where T is the document's own T_K and the certificate says so (S2)
    encoding: Encoding | None = None
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    structural: set[int] = field(default_factory=set)
    claims: Claims = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    sets: dict[tuple[int, int], list[tuple[int, ...]]] = field(default_factory=dict)
    attention_methods: dict[tuple[int, int], str] = field(default_factory=dict)
    derivation: Derivation = field(default_factory=Derivation)
    unchecked: list[str] = field(default_factory=list)
    solver_runs: int = 0
    kernel_decided: int = 0                # lemmas the kernel's own normal form proves (S12)
    solver_only: list[str] = field(default_factory=list)  # lemmas that rest on a solver's unsat alone
    proofs: dict[str, Any] = field(default_factory=dict)  # lemma id → its proof object (S12c; schematic only)
    defence: str = ""
    netlist_theorem: str = ""


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
    def trust(self) -> str:
        """What the verdict rests on: the kernel's normal form, or which lemmas a solver alone decided."""
        from .discharge import trust_line
        return trust_line(self.lemmas, self.kernel_decided, self.solver_only)

    @property
    def accepted(self) -> bool:
        return self.outcome == ACCEPTED

    @property
    def reasons(self) -> list[str]:
        return [str(r) for r in self.rejections] + [f"not checked: {u}" for u in self.unchecked]
