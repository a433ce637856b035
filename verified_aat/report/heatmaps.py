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
    greyed: int = 0  # rows drawn in grey: their attention provably cannot affect the result


def role_labels(circuit: Circuit, encoding: Encoding, names: list[str] | None = None) -> list[str]:
    """A short label per position: the gate's name (``names``, else the circuit's), or ``u→v`` for an edge."""
    name = names.__getitem__ if names else circuit.gate_name
    labels = []
    for role in encoding.roles:
        if role.kind == "gate":
            labels.append(name(role.gate))
        elif role.source is not None:
            labels.append(f"{name(role.source)}→{name(role.gate)}")
        else:
            labels.append(f"{role.kind}:{name(role.gate)}")
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


def heat_map(sets: ArgmaxSets, pooling: str, circuit: Circuit, encoding: Encoding, title: str,
             ignored: tuple[bool, ...] | None = None, names: list[str] | None = None) -> HeatMap:
    """The heat-map of one head (full matrix, or the role-group summary for long sequences); rows in
    ``ignored`` (positions whose activation provably ignores the head, a group if all its positions) are grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(sets.sets)
    mean = sum(len(s) for s in sets.sets) / max(1, n)
    if n <= MAX_POSITIONS:
        matrix, labels, kind = _position_matrix(sets, pooling, n), role_labels(circuit, encoding, names), "positions"
        grey = list(ignored) if ignored is not None else [False] * n
    else:
        groups = role_groups(circuit, encoding)
        matrix, labels, kind = _group_matrix(sets, pooling, groups)
        grey = [ignored is not None and all(ignored[p] for p in range(n) if groups[p] == g) for g in labels]
    size = len(labels)
    inches = min(9.0, max(3.2 if kind == "positions" else 4.6, 0.16 * size + 1.8))
    fig, ax = plt.subplots(figsize=(inches + 1.2, inches), dpi=80)
    values = np.clip(np.asarray(matrix, dtype=float), 0.0, 1.0)
    colours = matplotlib.colormaps["viridis"](values)
    rows = np.asarray(grey, dtype=bool)
    if rows.any():  # light greys, the pattern still visible: these weights cannot change the result
        level = 0.93 - 0.35 * values[rows]
        colours[rows, :, 0] = colours[rows, :, 1] = colours[rows, :, 2] = level
    ax.imshow(colours, interpolation="nearest")
    image = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.Normalize(0.0, 1.0), cmap="viridis")
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
                        color="black" if value > 0.6 or grey[row] else "white")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return HeatMap(base64.b64encode(buffer.getvalue()).decode("ascii"), kind, size, len(sets.distinct), mean,
                   int(rows.sum()))


def _position_matrix(sets: ArgmaxSets, pooling: str, n: int) -> Any:
    return weights(sets, pooling, n)


def _group_matrix(sets: ArgmaxSets, pooling: str, groups: list[str]) -> tuple[Any, list[str], str]:
    """Mean weight from a position of group G to all positions of group H: each distinct set's weight per
    group once (a 50,000-member set is summed once, not once per position that has it)."""
    import numpy as np

    names = sorted(set(groups))
    index = {g: i for i, g in enumerate(names)}
    of = np.fromiter((index[g] for g in groups), dtype=np.int64, count=len(groups))
    per_set = np.zeros((max(1, len(sets.distinct)), len(names)))
    for k, members in enumerate(sets.distinct):
        chosen = members[:1] if pooling == "leftmost" else members[-1:] if pooling == "rightmost" else members
        if chosen:
            per_set[k] = np.bincount(of[list(chosen)], minlength=len(names)) / len(chosen)
    total = np.zeros((len(names), len(names)))
    ids = np.asarray(sets.set_ids, dtype=np.int64)
    for g in range(len(names)):  # rows of group g: the sum of their sets' weights
        total[g] = per_set[ids[of[: len(ids)] == g]].sum(axis=0)
    count = np.bincount(of, minlength=len(names))
    return total / np.maximum(count, 1)[:, None], names, "groups"
