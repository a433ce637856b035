"""Schematic proofs: one machine-checked proof for every circuit of depth ≤ K (or every K).

``prove_construction`` derives the schematic lemmas of a transformer (the kernel's own derivation,
``kernel/schematic_derive.py``), discharges them with Z3, and writes a certificate that ``check``
re-derives and re-proves.  A failed lemma becomes a concrete smallest circuit and input, replayed
exactly (``refutation/``); a lemma no solver decides, or a failure without a replayed witness, is
*unknown*.
"""

from .prove import SchematicResult, prove_construction

__all__ = ["SchematicResult", "prove_construction"]
