"""The kernel's own unroller: T at length N as a circuit built from named gadgets (docs/soundness.md, U3).

Written independently of ``verified_aat/audit/unroll.py`` to the construction
of MATH.md §5, gate for gate in the same order, so that the engine's U_N and
the kernel's have the same canonical structure hash.  Every gate belongs to
one gadget instance — a binarised copy of a score or activation circuit, a
bilinear score, an argmax row, a reciprocal, a leftmost / rightmost selector —
or is one of the plain sums and products that wire them (Σ_j M_ij, Σ_j
M_ij·x_j[c], S·r).  The same gadget functions build the standalone circuits
whose lemmas the solvers check (:mod:`.audit_proof`), so a lemma is about
exactly the gates U_N contains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from .structure import depths
from .data import Bilinear, Circuit, Gate, Number, Transformer, exact

HALF = Fraction(1, 2)


class Builder:
    """Append-only gates in the kernel's format; constants are shared (one gate per value, at first use)."""

    def __init__(self) -> None:
        self.gates: list[Gate] = []
        self.outputs: list[int] = []
        self.consts: dict[Number, int] = {}
        self.n_inputs = 0
        self.input_gates: list[int] = []
        self.uses: Counter[tuple[str, object]] = Counter()  # gadget instances: (kind, key) -> count

    def _put(self, gate: Gate) -> int:
        self.gates.append(gate)
        return len(self.gates) - 1

    def input(self) -> int:
        g = self._put(Gate("input", index=self.n_inputs))
        self.n_inputs += 1
        self.input_gates.append(g)
        return g

    def const(self, value: Number) -> int:
        hit = self.consts.get(value)  # equal ints and Fractions hash alike: no Fraction built per call
        if hit is not None:
            return hit
        value = exact(Fraction(value))
        if value not in self.consts:
            self.consts[value] = self._put(Gate("const", value=value))
        return self.consts[value]

    def add(self, *args: int) -> int:
        return self._put(Gate("add", tuple(args)))

    def mul(self, a: int, b: int) -> int:
        return self._put(Gate("mul", (a, b)))

    def sign(self, a: int) -> int:
        return self._put(Gate("sign", (a,)))

    def product(self, args: Sequence[int]) -> int:
        """A balanced tree of binary products: pairs left to right, an odd last factor carried up."""
        level = list(args)
        while len(level) > 2:
            paired = [self.mul(level[k], level[k + 1]) for k in range(0, len(level) - 1, 2)]
            level = paired + level[len(paired) * 2:]
        return level[0] if len(level) == 1 else self.mul(level[0], level[1])

    def circuit(self) -> Circuit:
        return Circuit(tuple(self.gates), tuple(self.outputs), self.n_inputs, tuple(self.input_gates))


# -- gadgets -----------------------------------------------------------------------------

def copy(b: Builder, f: Circuit, inputs: Sequence[int]) -> list[int]:
    """COPY: every gate of ``f`` in order; a product of fan-in k becomes k − 1 binary products."""
    wire: list[int] = []
    for gate in f.gates:
        if gate.op == "input":
            wire.append(inputs[gate.index])  # type: ignore[index]
        elif gate.op == "const":
            wire.append(b.const(gate.value))  # type: ignore[arg-type]
        elif gate.op == "add":
            wire.append(b.add(*(wire[a] for a in gate.args)))
        elif gate.op == "mul":
            wire.append(b.product([wire[a] for a in gate.args]))
        else:
            wire.append(b.sign(wire[gate.args[0]]))
    return [wire[o] for o in f.outputs]


def bilinear(b: Builder, score: Bilinear, xi: Sequence[int], xj: Sequence[int]) -> int:
    """Σ q·x_i[r]·x_j[c]: one product per entry, times q unless q = 1, then one sum."""
    terms = []
    for r, c, q in score.entries:
        t = b.mul(xi[r], xj[c])
        terms.append(t if q == 1 else b.mul(b.const(q), t))
    return b.add(*terms)


def gt(b: Builder, s: int, negated: int) -> int:
    """GT: (σ² + σ)/2 with σ = sign(s + (−t)), given the wire of −t: 1 if s > t, else 0."""
    sg = b.sign(b.add(s, negated))
    return b.mul(b.const(HALF), b.add(b.mul(sg, sg), sg))


def none(b: Builder, flags: Sequence[int]) -> int:
    """NONE: 1 + (−1)·sign(Σ flags): for flags in {0, 1}, 1 exactly when every flag is 0."""
    minus_one = b.const(-1)
    return b.add(b.const(1), b.mul(minus_one, b.sign(b.add(*flags))))


def argmax_row(b: Builder, row: Sequence[int]) -> list[int]:
    """ARGMAX for one position: −s_j for every j, then M_j = NONE(GT(s_j′, s_j) for j′ ≠ j)."""
    b.const(1), b.const(-1), b.const(HALF)
    negated = [b.mul(b.const(-1), s) for s in row]
    return [none(b, [gt(b, s, negated[j]) for k, s in enumerate(row) if k != j]) for j in range(len(row))]


def is_zero(b: Builder, v: int) -> int:
    """[v = 0] = 1 + (−1)·sign(v)·sign(v)."""
    sg = b.sign(v)
    one = b.const(1)
    return b.add(one, b.mul(b.const(-1), b.mul(sg, sg)))


def recip_term(b: Builder, count: int, w: int, negated_m: int) -> int:
    """One term of RECIP, given the wires of 1/m and −m: w·[count + (−m) = 0]."""
    return b.mul(w, is_zero(b, b.add(count, negated_m)))


def reciprocal(b: Builder, count: int, n: int) -> int:
    """RECIP: Σ_{m=1..n} (1/m)·[count − m = 0], one flat sum of the terms."""
    return b.add(*[recip_term(b, count, b.const(Fraction(1, m)), b.const(-m)) for m in range(1, n + 1)])


def select(b: Builder, marks: Sequence[int], j: int, leftmost: bool) -> int:
    """LEFTMOST / RIGHTMOST: M_j·[Σ of the marks before (after) j = 0]."""
    others = marks[:j] if leftmost else marks[j + 1:]
    return b.mul(marks[j], is_zero(b, b.add(*others)))


# -- the unrolling -------------------------------------------------------------------------

def unroll(T: Transformer, n: int) -> Builder:
    """U_N: inputs x[p][c] position-major, per layer the heads then the activation copies, outputs y[p][c]."""
    b = Builder()
    xs = [[b.input() for _ in T.coordinates] for _ in range(n)]
    for layer in T.layers:
        pooled = []
        for head in layer.heads:
            if isinstance(head.score, Bilinear):
                scores = [[bilinear(b, head.score, xs[i], xs[j]) for j in range(n)] for i in range(n)]
                b.uses[("bilinear", head.score.entries)] += n * n
            else:
                scores = [[copy(b, head.score, xs[i] + xs[j])[0] for j in range(n)] for i in range(n)]
                b.uses[("copy", head.score_key)] += n * n
            marks = [argmax_row(b, scores[i]) for i in range(n)]
            for j in range(n):
                b.uses[("argmax", j)] += n
            b.uses[("gt", None)] += n * n * (n - 1)
            if head.pooling == "average":
                pooled.append([_average(b, marks[i], xs) for i in range(n)])
                b.uses[("recip", None)] += n * n  # one induction step per term, N terms per position
            else:
                left = head.pooling == "leftmost"
                pooled.append([_unique(b, marks[i], xs, left) for i in range(n)])
                for j in range(n):
                    b.uses[(head.pooling, j)] += n
        xs = [copy(b, layer.activation, xs[i] + [w for a in pooled for w in a[i]]) for i in range(n)]
        b.uses[("copy", ("f", layer.key[1]))] += n
    b.outputs = [w for row in xs for w in row]
    return b


def _average(b: Builder, marks: Sequence[int], xs: Sequence[Sequence[int]]) -> list[int]:
    """c = Σ_j M_j, S[c] = Σ_j M_j·x_j[c], a[c] = S[c]·RECIP(c)."""
    count = b.add(*marks)
    sums = [b.add(*[b.mul(marks[j], xs[j][c]) for j in range(len(xs))]) for c in range(len(xs[0]))]
    r = reciprocal(b, count, len(xs))
    return [b.mul(s, r) for s in sums]


def _unique(b: Builder, marks: Sequence[int], xs: Sequence[Sequence[int]], leftmost: bool) -> list[int]:
    """a[c] = Σ_j L_j·x_j[c] with L_j the selector of the first (last) marked position."""
    firsts = [select(b, marks, j, leftmost) for j in range(len(xs))]
    return [b.add(*[b.mul(firsts[j], xs[j][c]) for j in range(len(xs))]) for c in range(len(xs[0]))]


def structure(b: Builder) -> dict[str, object]:
    """The canonical structure (docs/certificates.md circuit form): what the engine's U_N must hash to."""
    gates: list[list[object]] = []
    for g in b.gates:
        if g.op == "input":
            gates.append(["input", g.index])
        elif g.op == "const":
            gates.append(["const", str(g.value)])
        else:
            gates.append([g.op, list(g.args)])
    return {"gates": gates, "outputs": list(b.outputs)}


def depth(b: Builder) -> int:
    """The longest path to any gate (the audit's measured depth counts gates no output reads, too)."""
    return max(depths(b.circuit()), default=0)
