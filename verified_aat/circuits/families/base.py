"""The :class:`Family` record (what is known about a circuit family without building it)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from ...errors import InputError
from ..ir import Circuit, Domain
from ..measures import CircuitClass

MAX_N = 10**6
"""No family accepts a larger ``n`` (quadratic families accept less)."""

Reference = Callable[[list[Fraction]], list[Fraction]]


@dataclass(frozen=True)
class Family:
    """A circuit family and what is known about it without building it.

    ``circuit_class``/``has_sign`` describe large members (small members may
    fall into a smaller class, e.g. an add of fan-in 2 is FNC⁰);
    ``constant_depth`` says whether depth is independent of ``n``.
    """

    name: str
    description: str
    min_n: int
    builder: Callable[[int], Circuit]
    reference: Reference
    domain: Domain
    n_inputs: Callable[[int], int]
    circuit_class: CircuitClass
    has_sign: bool
    constant_depth: bool
    max_n: int = MAX_N

    @property
    def class_name(self) -> str:
        return f"{self.circuit_class.value}[sign]" if self.has_sign else self.circuit_class.value

    def build(self, n: int) -> Circuit:
        """The member for ``n``; a size that is not an integer in ``min_n .. max_n`` raises InputError."""
        name = self.name
        if isinstance(n, bool) or not isinstance(n, int):
            raise InputError(f"family {name}: n must be an integer, got {n!r}")
        if n < self.min_n:
            raise InputError(f"family {name}: n must be at least {self.min_n}, got {n}")
        if n > self.max_n:
            raise InputError(f"family {name}: n must be at most {self.max_n}, got {n}")
        circuit = self.builder(n)
        assert circuit.n_inputs == self.n_inputs(n), (name, n)
        assert circuit.domain is self.domain, (name, n)
        return circuit
