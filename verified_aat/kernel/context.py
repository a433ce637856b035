"""The per-circuit checks' typed context (``checks.py``), filled in check order: apart from ``report.py``, so that
the schematic and audit kinds do not import the per-circuit derivation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .data import Circuit, Transformer
from .encoding import Encoding
from .layouts import Construction
from .derivation import Derivation, Function
from .report import Options
from .schedule import Claims


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
    rows: Sequence[tuple[Any, ...]] = ()
    structural: set[int] = field(default_factory=set)
    claims: Claims = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    sets: dict[tuple[int, int], list[tuple[int, ...]]] = field(default_factory=dict)
    attention_methods: dict[tuple[int, int], str] = field(default_factory=dict)
    attention_work: list[int] = field(default_factory=list)  # attention.budget_for: what S6 may still spend
    reads: Any = None  # obligations.Reads: the argmax-set members S8 and S9 may still read
    derivation: Derivation = field(default_factory=Derivation)
    unchecked: list[str] = field(default_factory=list)
    solver_runs: int = 0
    kernel_decided: int = 0                # lemmas the kernel's own normal form proves (S12)
    solver_only: list[str] = field(default_factory=list)  # lemmas that rest on a solver's unsat alone
    defence: str = ""
    netlist_theorem: str = ""
