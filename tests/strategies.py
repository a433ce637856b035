"""Hypothesis strategies for circuits, shared by the test modules.

``circuits()`` draws random DAGs in the strict basis: every gate kind,
multi-edges (``mul x x``), fan-in-0 additions, rational constants including
negative fractions, inputs interleaved with other gates (indices increasing
with position, as the builder makes them), repeated outputs, outputs that are
inputs, named and unnamed gates.  ``same_circuit(a, b)`` compares two
circuits up to the names a printer invents for unnamed gates.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from verified_aat.circuits.assemble import is_valid_name
from verified_aat.circuits.ir import Circuit, Domain, Gate, Kind, Provenance

TEXT_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\[\]\-]{0,6}", fullmatch=True).filter(is_valid_name)
# any printable name: the readers refuse control, format and separator characters (wording.unprintable)
ANY_NAMES = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")), min_size=1, max_size=8)

CONSTANTS = st.one_of(
    st.fractions(min_value=-20, max_value=20, max_denominator=12),
    st.sampled_from([Fraction(0), Fraction(-3, 4), Fraction(7, 2), Fraction(1, 10**30), Fraction(-(10**40), 3)]),
)


def provenances(names: st.SearchStrategy[str] = TEXT_NAMES) -> st.SearchStrategy[Provenance | None]:
    """None, or a provenance with an arithmetization and possibly netlist facts."""
    counts = st.one_of(st.none(), st.integers(0, 10**6))
    return st.one_of(st.none(), st.builds(
        Provenance,
        source_format=st.one_of(st.none(), st.sampled_from(["bench", "blif"])),
        source_path=st.one_of(st.none(), st.sampled_from(["c17.bench", "/tmp/a b/ctrl.blif"])),
        arithmetization=st.sampled_from(["exact", "threshold"]),
        netlist_gates=counts, netlist_depth=counts, netlist_max_fan_in=counts,
        netlist_gate_types=st.lists(st.sampled_from(["AND", "NAND", "XOR", "NOT"]), max_size=3,
                                    unique=True).map(tuple),
    ))


@st.composite
def circuits(draw: st.DrawFn, max_gates: int = 20, max_inputs: int = 4,
             names: st.SearchStrategy[str] = TEXT_NAMES, min_outputs: int = 1,
             inputs_first: bool = False) -> Circuit:
    """A random circuit (see the module docstring); ``inputs_first`` puts inputs at 0..n-1."""
    n_inputs = draw(st.integers(0, max_inputs))
    n_other = draw(st.integers(0 if n_inputs else 1, max_gates))
    layout = [True] * n_inputs + [False] * n_other
    if not inputs_first:
        layout = draw(st.permutations(layout))
    used: set[str] = set()

    def fresh_name() -> str | None:
        name = draw(st.one_of(st.none(), names))
        if name is None or name in used:
            return None
        used.add(name)
        return name

    gates: list[Gate] = []
    next_input = 0
    for is_input in layout:
        position = len(gates)
        if is_input:
            gates.append(Gate(Kind.INPUT, index=next_input, name=fresh_name()))
            next_input += 1
            continue
        kinds = [Kind.CONST, Kind.ADD] + ([Kind.MUL, Kind.SIGN] if position else [])
        kind = draw(st.sampled_from(kinds))
        earlier = st.integers(0, position - 1) if position else st.nothing()
        if kind is Kind.CONST:
            gates.append(Gate(kind, value=draw(CONSTANTS), name=fresh_name()))
            continue
        low, high = {Kind.ADD: (0, 5), Kind.MUL: (2, 4), Kind.SIGN: (1, 1)}[kind]
        if not position:
            high = 0
        args = draw(st.lists(earlier, min_size=low, max_size=high))
        gates.append(Gate(kind, tuple(args), name=fresh_name()))
    outputs = draw(st.lists(st.integers(0, len(gates) - 1), min_size=min_outputs, max_size=5))
    output_names = draw(st.one_of(st.none(), st.lists(names, min_size=len(outputs),
                                                       max_size=len(outputs)).map(tuple)))
    return Circuit(
        gates=tuple(gates),
        outputs=tuple(outputs),
        name=draw(st.one_of(st.just("circuit"), names)),
        domain=draw(st.sampled_from(list(Domain))),
        output_names=output_names,
        provenance=draw(provenances()),
    )


def input_vectors(n: int) -> st.SearchStrategy[list[Fraction]]:
    """Exact rational inputs, with 0, 1 and small negatives common."""
    value = st.one_of(st.sampled_from([Fraction(0), Fraction(1), Fraction(-1)]),
                      st.fractions(min_value=-5, max_value=5, max_denominator=7))
    return st.lists(value, min_size=n, max_size=n)


def _normal_provenance(p: Provenance | None) -> Provenance | None:
    return None if p == Provenance() else p


def same_circuit(a: Circuit, b: Circuit, *, output_names: bool = True, provenance: bool = True) -> bool:
    """Equal up to the names of gates that ``a`` leaves unnamed (printers invent those)."""
    if (a.name, a.domain, a.outputs, len(a.gates)) != (b.name, b.domain, b.outputs, len(b.gates)):
        return False
    for ga, gb in zip(a.gates, b.gates):
        if (ga.kind, ga.args, ga.value, ga.index) != (gb.kind, gb.args, gb.value, gb.index):
            return False
        if ga.name is not None and ga.name != gb.name:
            return False
    if output_names and a.output_names is not None and a.output_names != b.output_names:
        return False
    arith_a = a.provenance.arithmetization if a.provenance else None
    arith_b = b.provenance.arithmetization if b.provenance else None
    if arith_a != arith_b:
        return False
    return not provenance or _normal_provenance(a.provenance) == _normal_provenance(b.provenance)
