"""verified-aat: machine-checked transformer–circuit constructions.

The public API is re-exported here; the stages live in sub-packages
(``circuits`` → ``constructions`` → ``transformer`` → ``symbolic`` →
``certificates`` / ``checker``).
"""

from .circuits.ir import Circuit, Domain, Gate, Kind
from .circuits.evaluate import evaluate
from .circuits.measures import measure
from .errors import InputError

__all__ = ["Circuit", "Domain", "Gate", "Kind", "evaluate", "measure", "InputError"]
__version__ = "0.1.0"
