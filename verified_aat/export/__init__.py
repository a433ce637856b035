"""Export of compiled transformers to formats other frameworks run: ONNX (:mod:`.onnx_graph`)
and a numpy ``.npz`` of weights (:mod:`.npz`) with the reference forward pass of ``docs/export.md``.

Both are floating-point artefacts (float64): they compute exactly what the exact engine computes
wherever every intermediate value is a float64 number (small integers and dyadic rationals),
and are never used to prove anything.
"""

from __future__ import annotations

EXPORT_FORMATS = ("onnx", "numpy")
