"""The upper-bound direction (MATH.md §5): unroll a transformer into an FSAC⁰[sign] circuit and audit it."""

from .check import AuditReport, AuditRow, audit, compare, sample_sequences
from .depth import DepthFormula, depth_formula
from .flat import FlatCircuit
from .reference import ReferenceRun, reference_run
from .round_trip import RoundTrip, round_trip
from .size import SizeFormula, size_formula
from .unroll import (
           UnrolledCircuit,
           flatten,
           input_names,
           unroll,
           unroll_reference,
)

__all__ = ["AuditReport", "AuditRow", "DepthFormula", "FlatCircuit", "ReferenceRun", "RoundTrip", "SizeFormula",
           "UnrolledCircuit", "audit", "compare", "depth_formula", "flatten", "input_names", "reference_run",
           "round_trip", "sample_sequences", "size_formula", "unroll", "unroll_reference"]
