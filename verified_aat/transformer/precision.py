"""How many bits of floating-point precision a compiled transformer needs on a given encoding.

The exact engine never rounds; the floating-point engine (``run --engine float64|float32``) does,
and a rounded score can create a false tie (or break a true one), which corrupts an average.  The
bound here is *sufficient*: when it fits the engine's mantissa, every argmax set of the float run
is the exact one (the values themselves may still be rounded; see ``value_bits``).

* **Bilinear (dot-product) scores** x_iᵀ Q x_j are computed as sums of products of structural
  coordinates: with M_c = max |x[c]| over the encoding, every partial sum is at most
  B = Σ |q_rc|·M_r·M_c, and integers below 2^p are exact in a p-bit mantissa.  The maximum of a
  row is about a_i² (``gate-edge-dot``), so B grows like 2·(largest id)²: float32 (p = 24) is
  exceeded from about 2,900 ids on.
* **Circuit scores** of the constructions have the form −(k_i − k_j)² − pen(j) with small,
  dyadic penalties.  Rounding is monotone, so a score far below the maximum stays below it; the
  scores within 2 of the maximum come from |k_i − k_j| ≤ 1 and are exact when the keys and their
  differences are: 2·M < 2^p.  This is why ``gate-edge`` stays exact in float32 up to 2²³ ids.
  (An edited score of another form gets the same estimate, labelled as an assumption.)
* **Values**: with |x_i| ≤ B the circuit's values are bounded by interval arithmetic, and the
  constructions form squares of values (``sq``, polarization 2·m² − m₂), so integers up to
  2·V² appear; averages over a fan-in k that is not a power of two are rounded (S/k is not a
  binary fraction), as are constants such as 1/3.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ..circuits.ir import Circuit, Kind
from .model import BilinearScore, Score, Transformer

MANTISSA_BITS = {"float64": 53, "float32": 24}


def _magnitude(q: Fraction | int) -> int:
    """m with |q| < 2^m for the integer part, plus one bit for a fraction (⌊|q|⌋ has m bits)."""
    q = Fraction(q)
    return (abs(q.numerator) // q.denominator).bit_length() + (0 if q.denominator == 1 else 1)


def _bits(bound: Fraction | int) -> int:
    """Mantissa bits for every integer of magnitude ≤ ``bound`` to be exact (2^p > bound)."""
    return max(1, _magnitude(bound))


def _short(q: Fraction | int) -> str:
    """|q| in three digits, or as a power of two past a float's range (a document's structural row can be a number of
    60,000 digits, which neither float() nor Python's str writes: compile then failed after writing; red team, round 12)."""
    try:
        return f"{float(q):.3g}"
    except OverflowError:
        return f"about 2^{_magnitude(q)}"


def _grouped(n: int) -> str:
    """n with thousands separators, as :func:`_short` past 4,000 digits (Python's str stops at 4,300)."""
    return f"{n:,}" if n.bit_length() < 13_000 else _short(n)


def _dyadic(q: Fraction) -> bool:
    d = Fraction(q).denominator
    return d & (d - 1) == 0


@dataclass(frozen=True)
class HeadPrecision:
    layer: int
    head: str
    form: str        # "bilinear" or "key-distance"
    bound: Fraction  # the largest magnitude an argmax-deciding score computation reaches
    bits: int


@dataclass(frozen=True)
class Precision:
    """The mantissa bits a float run needs: scores (argmax sets) and, given a circuit, values."""

    heads: tuple[HeadPrecision, ...]
    largest_structural: int
    value_magnitude_bits: int | None = None   # |C_g(x)| < 2^this for |x_i| ≤ input_bound; None without a circuit
    input_bound: Fraction = Fraction(1)
    non_dyadic: tuple[str, ...] = ()            # fan-ins and constants that make values inexact

    @property
    def score_bits(self) -> int:
        return max((h.bits for h in self.heads), default=1)

    @property
    def value_bits(self) -> int | None:
        return None if self.value_magnitude_bits is None else 2 * self.value_magnitude_bits + 1  # 2·V² < 2^(2m+1)

    def scores_fit(self, engine: str) -> bool:
        return self.score_bits <= MANTISSA_BITS[engine]

    def lines(self) -> list[str]:
        worst = max(self.heads, key=lambda h: h.bits, default=None)
        verdicts = ", ".join(f"{e} ({p}): {'exact argmax' if self.score_bits <= p else 'too few, ties may be wrong'}"
                             for e, p in MANTISSA_BITS.items())
        text = [f"scores need {self.score_bits} bits (largest structural coordinate {_grouped(self.largest_structural)}"
                + (f"; {worst.form} head {worst.head!r} reaches {_short(worst.bound)}" if worst else "")
                + f"): {verdicts}"]
        if self.value_magnitude_bits is not None:
            text.append(f"values need {self.value_bits} bits for |x| ≤ {self.input_bound} "
                        f"(|values| < 2^{self.value_magnitude_bits}, squares up to 2·V²)"
                        + (f"; rounded anyway: {', '.join(self.non_dyadic)}" if self.non_dyadic else ""))
        return text

    def warning(self, engine: str) -> str | None:
        """A one-line warning when the engine's mantissa is too short for exact argmax sets."""
        if engine not in MANTISSA_BITS or self.scores_fit(engine):
            return None
        worst = max(self.heads, key=lambda h: h.bits)
        return (f"{engine} has {MANTISSA_BITS[engine]} mantissa bits, but head {worst.head!r} (layer {worst.layer}) "
                f"needs {worst.bits} for exact argmax sets ({worst.form} scores up to {_short(worst.bound)}, "
                f"structural coordinates up to {_grouped(self.largest_structural)}): false ties may corrupt averages; "
                "use --engine float64 or the exact engine")


def precision(transformer: Transformer, rows: Sequence[Sequence[Fraction | int]], structural: Sequence[str],
              circuit: Circuit | None = None, input_bound: Fraction | int = 1) -> Precision:
    """The precision ``transformer`` needs on an encoding with these ``rows`` (module docstring)."""
    coords = transformer.coordinates
    largest = [0] * len(coords)
    for c, name in enumerate(coords):
        if name in structural:
            largest[c] = Fraction(max((abs(row[c]) for row in rows), default=0))  # ints compare natively
    top = max(largest, default=0)
    heads: list[HeadPrecision] = []
    seen: dict[int, None] = {}
    for number, layer in enumerate(transformer.layers, start=1):
        if id(layer) in seen:
            continue
        seen[id(layer)] = None
        for head in layer.heads:
            if isinstance(head.score, BilinearScore):
                bound = sum((abs(q) * largest[r] * largest[c] for r, c, q in head.score.entries()), Fraction(0))
                heads.append(HeadPrecision(number, head.name, "bilinear", Fraction(bound), _bits(bound)))
            else:
                heads.append(HeadPrecision(number, head.name, "key-distance", Fraction(2 * top), _bits(2 * top)))
    magnitude, odd = (None, ()) if circuit is None else _values(circuit, Fraction(input_bound))
    return Precision(tuple(heads), int(top), magnitude, Fraction(input_bound), odd)


def _values(circuit: Circuit, bound: Fraction) -> tuple[int, tuple[str, ...]]:
    """m with max_g |C_g(x)| < 2^m over |x_i| ≤ bound (interval arithmetic on bit lengths, in integers:
    a product chain's bound is doubly exponential, so the bound itself is never formed), and what
    rounds even small values."""
    size: list[int] = []
    fan_ins: set[int] = set()
    constants: set[Fraction] = set()
    for gate in circuit.gates:
        args = [size[a] for a in gate.args]
        if gate.kind is Kind.INPUT:
            size.append(_magnitude(bound))
        elif gate.kind is Kind.CONST:
            value = Fraction(gate.value)  # type: ignore[arg-type]
            size.append(_magnitude(value))
            if not _dyadic(value):
                constants.add(value)
        elif gate.kind is Kind.ADD:
            size.append(max(args, default=0) + (len(args) - 1).bit_length() if args else 0)
            if gate.fan_in & (gate.fan_in - 1):
                fan_ins.add(gate.fan_in)
        elif gate.kind is Kind.MUL:
            size.append(sum(args))
        else:
            size.append(1)
    odd = tuple([f"means over fan-in {', '.join(map(str, sorted(fan_ins)))}"] if fan_ins else []) + \
        tuple([f"constants {', '.join(map(str, sorted(constants)))}"] if constants else [])
    return max(size, default=0), odd


def exact_score_bits(score: Score, largest: Sequence[int], d: int) -> int | None:
    """Mantissa bits that make every float operation of ``score`` exact on integer vectors with
    |x[c]| ≤ ``largest[c]`` (None when a constant is not a binary fraction).

    Every value the evaluation forms (each gate, each partial sum or product, in any order) is
    a multiple of 2^-e with |value| ≤ b, tracked per gate: inputs (largest[c], 0), constants
    (|q|, log₂ of the denominator), sums (Σ b, max e), products (Π max(b, 1), Σ e), signs (1, 0).
    When every b·2^e fits the mantissa (b·2^e ≤ 2^p) each value is an integer multiple of 2^-e of
    at most p bits, so it is a float and no operation rounds: the float scores are the exact ones,
    and so are their argmax sets.  A bilinear score x_iᵀ Q x_j is bounded as Σ |q_rc|·M_r·M_c
    (every partial sum of either product order is below it).
    """
    worst = Fraction(0)
    if isinstance(score, BilinearScore):
        entries = score.entries()
        if not all(_dyadic(q) for _, _, q in entries):
            return None
        scale = max((Fraction(q).denominator for _, _, q in entries), default=1)
        bound = sum((abs(q) * largest[r] * largest[c] for r, c, q in entries), Fraction(0))
        worst = max([bound * scale] + [abs(q) * scale for _, _, q in entries])
        return _bits(worst)
    magnitude: list[tuple[Fraction, int]] = []
    for gate in score.circuit.gates:
        args = [magnitude[a] for a in gate.args]
        if gate.kind is Kind.INPUT:
            b, e = Fraction(largest[gate.index % d]), 0  # type: ignore[operator]
        elif gate.kind is Kind.CONST:
            q = Fraction(gate.value)  # type: ignore[arg-type]
            if not _dyadic(q):
                return None
            b, e = abs(q), q.denominator.bit_length() - 1
        elif gate.kind is Kind.ADD:
            b, e = sum((a for a, _ in args), Fraction(0)), max((x for _, x in args), default=0)
        elif gate.kind is Kind.MUL:
            b, e = Fraction(1), 0
            for a, x in args:
                b, e = b * max(a, Fraction(1)), e + x
        else:
            b, e = Fraction(1), 0
        magnitude.append((b, e))
        worst = max(worst, b * 2 ** e)
    return _bits(worst)


__all__ = ["MANTISSA_BITS", "HeadPrecision", "Precision", "exact_score_bits", "precision"]
