"""The upper-bound direction (MATH.md §5): unroll a transformer into an FSAC⁰[sign] circuit and audit it."""

from .check import AuditReport, AuditRow, audit, compare, sample_sequences
from .flat import FlatCircuit
from .unroll import SizeFormula, UnrolledCircuit, flatten, input_names, size_formula, unroll, unroll_reference

__all__ = ["AuditReport", "AuditRow", "FlatCircuit", "SizeFormula", "UnrolledCircuit", "audit", "compare", "flatten",
           "input_names", "sample_sequences", "size_formula", "unroll", "unroll_reference"]
