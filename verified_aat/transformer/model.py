"""Average-attention circuit transformers (MATH.md §3) as immutable values.

A transformer has named coordinates (its dimension ``d``) and layers.  A
layer has heads and one activation circuit.  Conventions for the circuits:

* a score circuit has ``2d`` inputs, ``i.<coord>`` for the querying position
  then ``j.<coord>`` for the attended one, and exactly one output;
* an activation circuit has ``(1 + H)·d`` inputs, ``x.<coord>`` for the
  position's own vector and ``<head>.<coord>`` for each head's pooled vector,
  in head order, and exactly ``d`` outputs, the new vector in coordinate
  order.  Residual connections are part of the activation.

A bilinear score is ``x_iᵀ Q x_j`` with a ``d × d`` rational matrix ``Q``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from ..circuits.ir import Circuit
from ..wording import plural


class Pooling(str, enum.Enum):
    AVERAGE = "average"      # mean over the whole argmax set
    LEFTMOST = "leftmost"    # unique hard attention, smallest position
    RIGHTMOST = "rightmost"  # unique hard attention, largest position
    SOFTMAX = "softmax"      # floating-point engine only


@dataclass(frozen=True)
class CircuitScore:
    """A general attention score: an arithmetic circuit on (x_i, x_j)."""

    circuit: Circuit


@dataclass(frozen=True)
class BilinearScore:
    """Dot-product attention: s(x_i, x_j) = x_iᵀ Q x_j."""

    matrix: tuple[tuple[Fraction, ...], ...]

    def entries(self) -> list[tuple[int, int, Fraction]]:
        """The non-zero entries (row, column, value)."""
        return [(r, c, q) for r, row in enumerate(self.matrix) for c, q in enumerate(row) if q]


Score = CircuitScore | BilinearScore


@dataclass(frozen=True)
class Head:
    name: str
    score: Score
    pooling: Pooling


@dataclass(frozen=True)
class Layer:
    heads: tuple[Head, ...]
    activation: Circuit
    name: str = ""


@dataclass(frozen=True, repr=False)
class Transformer:
    """An encoder of ``len(layers)`` layers over vectors with named coordinates (``repr``: one line
    of counts; the circuits inside are long)."""

    coordinates: tuple[str, ...]
    layers: tuple[Layer, ...]
    name: str = "transformer"

    @property
    def dimension(self) -> int:
        return len(self.coordinates)

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def n_heads(self) -> int:
        return sum(len(layer.heads) for layer in self.layers)

    def coordinate(self, name: str) -> int:
        return self.coordinates.index(name)

    def __repr__(self) -> str:
        from ..display import transformer_repr
        return transformer_repr(self)

    def _repr_html_(self) -> str:
        """A small table of the transformer's layout for Jupyter."""
        from ..display import transformer_html
        return transformer_html(self)

    def __post_init__(self) -> None:
        d = len(self.coordinates)
        if len(set(self.coordinates)) != d:
            raise ValueError("coordinate names must be distinct")
        for number, layer in enumerate(self.layers, start=1):
            names = [h.name for h in layer.heads]
            if len(set(names)) != len(names) or "x" in names:
                raise ValueError(f"layer {number}: head names must be distinct and not 'x'")
            clash = smt_name_clash(self.coordinates, names)
            if clash is not None:
                raise ValueError(f"layer {number}: {clash}")
            act = layer.activation
            if act.n_inputs != (1 + len(layer.heads)) * d or len(act.outputs) != d:
                raise ValueError(
                    f"layer {number}: activation must take {plural((1 + len(layer.heads)) * d, 'input')} and give "
                    f"{plural(d, 'output')}, "
                    f"it takes {act.n_inputs} and gives {len(act.outputs)}")
            for head in layer.heads:
                score = head.score
                if isinstance(score, CircuitScore):
                    if score.circuit.n_inputs != 2 * d or len(score.circuit.outputs) != 1:
                        raise ValueError(f"layer {number}, head {head.name}: score circuit must take {2 * d} inputs "
                                         f"and give 1 output")
                else:
                    if len(score.matrix) != d or any(len(row) != d for row in score.matrix):
                        raise ValueError(f"layer {number}, head {head.name}: bilinear matrix must be {d}x{d}")


def score_input_names(coordinates: tuple[str, ...]) -> list[str]:
    """Input names of a score circuit, in order."""
    return [f"i.{c}" for c in coordinates] + [f"j.{c}" for c in coordinates]


def activation_input_names(coordinates: tuple[str, ...], head_names: list[str] | tuple[str, ...]) -> list[str]:
    """Input names of an activation circuit, in order."""
    return [f"{owner}.{c}" for owner in ["x", *head_names] for c in coordinates]


def smt_name_clash(coordinates: tuple[str, ...], head_names: list[str] | tuple[str, ...]) -> str | None:
    """Why two activation inputs would get one SMT-LIB name (``x.h_val`` and ``x_h.val`` are both ``x_h_val``), or
    None.  The lemmas name them so, and the kernel refuses such a transformer (docs/soundness.md S11): the engine's
    own lemma text would let one stand for the other and prove a wrong T (red team, round 14)."""
    from ..circuits.smtlib import smt_symbol
    seen: dict[str, str] = {}
    for name in activation_input_names(coordinates, head_names):
        symbol = smt_symbol(name)
        if symbol in seen:
            return (f"activation inputs {seen[symbol]} and {name} would both be {symbol} in the SMT-LIB lemmas, which "
                    f"nothing could check (the kernel refuses it): rename a head or a coordinate")
        seen[symbol] = name
    return None
