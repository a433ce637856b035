"""Attention heat-maps: each head's argmax sets as a position × position matrix (matplotlib, Agg, PNG).

Cell (p, j) is the weight position p gives position j: 1/|A_p| for average pooling, 1 for the
leftmost/rightmost member for unique hard pooling.  Sequences longer than
:data:`MAX_POSITIONS` get a summary instead: positions grouped by role (gates by kind, edges by
the kind of their target), cell (G, H) the mean weight a position of G gives group H.
Images are PNG data URIs, so the page needs no network.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

from ..circuits.ir import Circuit
from ..constructions.encoding import Encoding
from ..transformer.key_join import ArgmaxSets

MAX_POSITIONS = 300
"""Longer sequences are summarised by role group."""


@dataclass(frozen=True)
class HeatMap:
    """One PNG (base64), what it shows, and the numbers the page states beside it."""

    png_base64: str
    kind: str  # "positions" or "groups"
    size: int  # rows of the matrix
    distinct_sets: int
    mean_set_size: float


def role_labels(circuit: Circuit, encoding: Encoding) -> list[str]:
    """A short label per position: the gate's name, or ``u→v`` for an edge."""
    labels = []
    for role in encoding.roles:
        if role.kind == "gate":
            labels.append(circuit.gate_name(role.gate))
        elif role.source is not None:
            labels.append(f"{circuit.gate_name(role.source)}→{circuit.gate_name(role.gate)}")
        else:
            labels.append(f"{role.kind}:{circuit.gate_name(role.gate)}")
    return labels


def role_groups(circuit: Circuit, encoding: Encoding) -> list[str]:
    """The group of each position: ``gate:<kind>`` or ``edge→<kind of target>``."""
    return [f"gate:{circuit.gates[r.gate].kind.value}" if r.kind == "gate" else
            f"{r.kind}→{circuit.gates[r.gate].kind.value}" for r in encoding.roles]


def weights(sets: ArgmaxSets, pooling: str, n: int) -> Any:
    """The n × n matrix of attention weights (numpy, float for display only)."""
    import numpy as np

    m = np.zeros((n, n))
    for p, members in enumerate(sets.sets):
        if not members:
            continue
        if pooling == "leftmost":
            m[p, members[0]] = 1.0
        elif pooling == "rightmost":
            m[p, members[-1]] = 1.0
        else:
            m[p, list(members)] = 1.0 / len(members)
    return m


def heat_map(sets: ArgmaxSets, pooling: str, circuit: Circuit, encoding: Encoding, title: str) -> HeatMap:
    """The heat-map of one head (full matrix, or the role-group summary for long sequences)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(sets.sets)
    mean = sum(len(s) for s in sets.sets) / max(1, n)
    if n <= MAX_POSITIONS:
        matrix, labels, kind = _position_matrix(sets, pooling, n), role_labels(circuit, encoding), "positions"
    else:
        matrix, labels, kind = _group_matrix(sets, pooling, role_groups(circuit, encoding))
    size = len(labels)
    inches = min(9.0, max(3.2 if kind == "positions" else 4.6, 0.16 * size + 1.8))
    fig, ax = plt.subplots(figsize=(inches + 1.2, inches), dpi=80)
    image = ax.imshow(np.asarray(matrix), cmap="viridis", interpolation="nearest", vmin=0.0, vmax=1.0)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="attention weight")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("attended position j" if kind == "positions" else "attended group", fontsize=8)
    ax.set_ylabel("position p" if kind == "positions" else "group of p", fontsize=8)
    if size <= 60:
        ax.set_xticks(range(size), labels, rotation=90, fontsize=6 if kind == "positions" else 8)
        ax.set_yticks(range(size), labels, fontsize=6 if kind == "positions" else 8)
    if kind == "groups" and size <= 16:  # few cells: print each mean weight
        for (row, column), value in np.ndenumerate(np.asarray(matrix)):
            if value > 0:
                ax.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.6 else "white")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return HeatMap(base64.b64encode(buffer.getvalue()).decode("ascii"), kind, size, len(sets.distinct), mean)


def _position_matrix(sets: ArgmaxSets, pooling: str, n: int) -> Any:
    return weights(sets, pooling, n)


def _group_matrix(sets: ArgmaxSets, pooling: str, groups: list[str]) -> tuple[Any, list[str], str]:
    """Mean weight from a position of group G to all positions of group H."""
    import numpy as np

    names = sorted(set(groups))
    index = {g: i for i, g in enumerate(names)}
    of = [index[g] for g in groups]
    total = np.zeros((len(names), len(names)))
    count = np.zeros(len(names))
    for p, members in enumerate(sets.sets):
        count[of[p]] += 1
        if not members:
            continue
        chosen = members[:1] if pooling == "leftmost" else members[-1:] if pooling == "rightmost" else members
        for j in chosen:
            total[of[p], of[j]] += 1.0 / len(chosen)
    return total / np.maximum(count, 1)[:, None], names, "groups"
