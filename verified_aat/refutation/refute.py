"""Refute a (modified) transformer: find a small circuit and an input where it fails.

Uses the construction's encoding and schedule and the exact engine only; a
reported counterexample has been replayed in exact arithmetic.  Finding none
is *not* a proof (use ``certify`` for that).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable

from ..circuits.ir import Circuit
from ..circuits.measures import depth
from ..constructions.base import Construction
from ..errors import InputError
from ..status import Status
from ..transformer.model import Transformer
from .candidates import candidate_circuits
from .search import Counterexample, search_counterexample
from .shrink import shrink


@dataclass(frozen=True, repr=False)
class Refutation:
    """What ``refute`` found: a circuit and a replayed counterexample, or neither (not a proof)."""

    circuit: Circuit | None
    counterexample: Counterexample | None
    circuits_tried: int
    seconds: float
    proved: str = ""  # the kernel's theorem line when T's schematic lemmas all hold: no counterexample exists
    first_found: Circuit | None = None  # the candidate that first went wrong, when ``circuit`` is it shrunk

    @property
    def status(self) -> Status:
        """*refuted* with a replayed counterexample; *proved* only where the kernel accepted T's schematic
        certificate (no search ever proves); else *unknown*."""
        if self.counterexample is not None:
            return Status.REFUTED
        return Status.PROVED if self.proved else Status.UNKNOWN

    def __repr__(self) -> str:
        from ..display import refutation_repr
        return refutation_repr(self)

    def __str__(self) -> str:
        """``print(refutation)``: the verdict, the witness circuit and the counterexample report, as ``refute`` prints."""
        return refutation_text(self)

    def circuit_text(self) -> str:
        """The witness circuit in the text format (``witness_text``); empty without one."""
        return "" if self.circuit is None else witness_text(self.circuit)

    def circuit_json(self) -> dict[str, Any] | None:
        """``--json``'s ``circuit`` (docs/cli.md, ``refute`` and ``prove-construction``): the refuting circuit in the
        text format and ``shrunk_from``, the first failing candidate's size when it was shrunk (``shrunk_from``), else
        null; None without a counterexample."""
        from ..circuits.text_format import print_circuit
        c = self.circuit
        if self.counterexample is None or c is None:
            return None
        return {"name": c.name, "gates": c.size, "edges": c.n_edges, "inputs": c.n_inputs, "text": print_circuit(c),
                "shrunk_from": self.shrunk_from()}

    def shrunk_from(self) -> dict[str, int] | None:
        """The first failing candidate's gates, edges and outputs when ``circuit`` is it shrunk, else None (an
        operand dropped may leave the gates and outputs as they were: red team, round 30)."""
        first = self.first_found
        return None if first is None else {"gates": first.size, "edges": first.n_edges, "outputs": len(first.outputs)}

    def _repr_html_(self) -> str:
        """The verdict and the counterexample (inputs, outputs, first mismatch) for Jupyter."""
        from ..display import refutation_html
        return refutation_html(self)


def witness_text(circuit: Circuit) -> str:
    """A witness circuit in the text format; past 64 inputs (a witness padded to a large id) the inputs
    are one count instead of their ``input`` lines (``--json`` has the whole circuit)."""
    from ..circuits.text_format import print_circuit
    if circuit.n_inputs <= 64:
        return print_circuit(circuit).rstrip()
    text = print_circuit(circuit, implicit_inputs=True).rstrip().splitlines()
    return "\n".join(text[:1] + [f"# inputs x0 … x{circuit.n_inputs - 1}: {circuit.n_inputs} of them (all: --json)"]
                     + text[1:])


def refutation_text(refutation: Refutation) -> str:
    """What ``verified-aat refute`` prints: the verdict, then the witness circuit and its replayed counterexample
    (inputs, then gate by gate on both sides up to the first mismatch), or that none was found."""
    lines = [repr(refutation)]
    if refutation.counterexample is None:
        lines.append("no counterexample found: this is not a proof (use certify)" if not refutation.proved
                     else refutation.proved)
    else:
        lines += ["the circuit:", refutation.circuit_text(), refutation.counterexample.report()]
    return "\n".join(lines)


def intended_depth(construction: Construction, transformer: Transformer) -> int:
    """The depth bound K the transformer is meant for: the least K whose T_K has at
    least as many layers (a T_K with a layer missing is still meant for K)."""
    return construction.least_k_with(transformer.n_layers)


def refute(transformer: Transformer, construction: Construction, circuits: Iterable[Circuit] | None = None,
           budget_seconds: float = 60.0, per_circuit_seconds: float = 5.0,
           depth_bound: int | None = None) -> Refutation:
    """The first (smallest) circuit with a replayed counterexample, if any within the budget."""
    if transformer.coordinates != construction.transformer(1).coordinates:
        raise InputError(f"the transformer's coordinates {transformer.coordinates} are not those of "
                         f"{construction.name} {construction.transformer(1).coordinates}")
    start = time.perf_counter()
    reach = depth_bound or intended_depth(construction, transformer)
    tried = 0
    for circuit in circuits if circuits is not None else candidate_circuits(400, max_depth=reach):
        if time.perf_counter() - start > budget_seconds:
            break
        try:
            construction.check_class(circuit)
        except InputError:
            continue
        if circuits is None and depth(circuit) > reach:
            continue
        tried += 1
        encoding = construction.encode(circuit)
        schedule = construction.schedule(circuit, encoding)
        found = search_counterexample(circuit, transformer, encoding, schedule,
                                      budget_seconds=per_circuit_seconds, max_runs=80)
        if found is not None and circuits is not None:  # the user's own circuit: reported as given
            return Refutation(circuit, found, tried, time.perf_counter() - start)
        if found is not None:
            smaller, found = shrink(circuit, found.inputs, found, _still_fails(transformer, construction),
                                    time.perf_counter() + budget_seconds / SHRINK_SHARE)
            return Refutation(smaller, found, tried, time.perf_counter() - start,
                              first_found=circuit if smaller is not circuit else None)
    return Refutation(None, None, tried, time.perf_counter() - start)


SHRINK_SHARE = 4
"""A witness found among the candidates is shrunk for at most budget / SHRINK_SHARE seconds more."""


def _still_fails(transformer: Transformer, construction: Construction
                 ) -> Callable[[Circuit, list[Fraction]], tuple[list[Fraction], Counterexample] | None]:
    """``shrink``'s test: a replayed counterexample of T on a smaller circuit of the class (``xs`` tried first)."""
    def fails(circuit: Circuit, xs: list[Fraction]) -> tuple[list[Fraction], Counterexample] | None:
        try:
            construction.check_class(circuit)
            encoding = construction.encode(circuit)
        except InputError:
            return None
        found = search_counterexample(circuit, transformer, encoding, construction.schedule(circuit, encoding),
                                      budget_seconds=1.0, max_runs=8, first=[xs])
        return None if found is None else (list(found.inputs), found)
    return fails
