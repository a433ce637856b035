"""Arithmetization of Boolean netlists into FSAC⁰[sign] circuits over Q.

Two modes; both use only binary multiplications, unbounded additions and (in
threshold mode) sign gates, and both keep the netlist's input and output names
(an output that is an input is that input gate; a constant output is a const
gate).

``exact`` (domain :attr:`Domain.RATIONALS`): every gate becomes its standard
polynomial — NOT a = 1−a, AND = Πaᵢ, NAND = 1−Πaᵢ, NOR = Π(1−aᵢ),
OR = 1−Π(1−aᵢ), XOR₂ = a+b−2ab (XOR_k a balanced tree of XOR₂, i.e.
(1−Π(1−2aᵢ))/2), XNOR = 1−XOR, a BLIF cube = Π of literals aᵢ or 1−aᵢ
(negated for an off-set row).  The circuit computes exactly this polynomial on
all of Q; on {0,1} inputs it equals the netlist.  No sign gates.

``threshold`` (domain :attr:`Domain.BOOLEAN`): meant for {0,1} inputs only.
An AND/OR/NAND/NOR/cube may instead go through one sign gate (OR_k =
sign(Σaᵢ), AND_k = 1 + sign(Σaᵢ − k) on 0/1 values), whichever is shallower (up to
``linear.MAX_SIGN_FAN_IN`` operands: wider gates keep their polynomial);
XOR/XNOR are always polynomial.  Off {0,1} the circuit need not match the
polynomial.

By default (``cap=None``) the construction is *linear* (:mod:`.linear`): each
signal is one literal α + β·w, NOT and BUFF are free, and a k-input gate
costs at most 4·(k − 1) gates and 3·⌈log2 k⌉ levels; in all,
|C| ≤ n_inputs + 4·Σ max(k_g − 1, 0) + 2·n_outputs + 5
(:func:`.linear.gate_bound`).  An XOR chain of n gates is 3n gates.

``cap=N`` asks for the older depth-aware construction (:mod:`.affine`):
affine forms with products expanded into binary ``mul`` gates (one level)
while they have at most N terms and same-depth "scaled twins" for negative
coefficients — shallower, but it can grow much faster than the netlist on
XOR-heavy circuits.  It is guarded: when it makes more than
``GUARD``·bound gates or 3·``GUARD``·bound edges (the bound above), it is
abandoned and the linear construction is used instead, so every result is
linear in the netlist.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Callable

from ..errors import InputError
from .affine import Engine, Form
from .ir import Circuit, Domain, Provenance
from .linear import MAX_SIGN_FAN_IN, Candidates, gate_bound, read_by_outputs, run_linear
from .netlists import BoolGate, Netlist, measure_netlist, parse_netlist, read_netlist_file

MODES = ("exact", "threshold")
FOREIGN_FORMATS = ("aiger", "verilog")
FOREIGN_EXTENSIONS = {".aag": "aiger", ".aig": "aiger", ".v": "verilog", ".sv": "verilog"}
DEFAULT_CAP: int | None = None  # the linear construction
GUARD = 4  # cap mode gives up beyond GUARD times the linear gate bound
STEP_LINK = True  # the linear construction's netlist link: by binary steps (False: by candidates, as cap mode's)


def _exact_form(eng: Engine, gate: BoolGate, fs: list[Form]) -> Form:
    """The exact polynomial of ``gate`` applied to its argument forms."""
    op = gate.op
    if op == "CONST0":
        return Form.of(0)
    if op == "CONST1":
        return Form.of(1)
    if op == "BUFF":
        return fs[0]
    if op == "NOT":
        return fs[0].affine(-1, 1)
    if op in ("AND", "NAND"):
        p = eng.product(fs)
        return p if op == "AND" else p.affine(-1, 1)
    if op in ("OR", "NOR"):
        p = eng.product([f.affine(-1, 1) for f in fs])
        return p if op == "NOR" else p.affine(-1, 1)
    if op in ("XOR", "XNOR"):
        x = _xor_tree(eng, fs)
        return x if op == "XOR" else x.affine(-1, 1)
    if op == "COVER":  # the sum of disjoint cubes (its multilinear polynomial)
        from .covers import disjoint_cubes
        total = Form.lin([(1, eng.product([f if lit == "1" else f.affine(-1, 1)
                                           for lit, f in zip(cube, fs) if lit != "-"]))
                          for cube in disjoint_cubes(gate.cubes)])
        return total if gate.polarity else total.affine(-1, 1)
    assert op == "CUBE"
    p = eng.product([f if lit == "1" else f.affine(-1, 1) for lit, f in zip(gate.cube, fs) if lit != "-"])
    return p if gate.polarity else p.affine(-1, 1)


def _xor_tree(eng: Engine, fs: list[Form]) -> Form:
    """A depth-balanced tree of XOR₂(a, b) = a + b − 2ab."""
    layer = sorted(fs, key=eng.form_depth)
    while len(layer) > 1:
        a, b = layer.pop(0), layer.pop(0)
        x = Form.lin([(1, a), (1, b), (-2, eng.mul(a, b))])
        layer.append(x)
        layer.sort(key=eng.form_depth)
    return layer[0]


def _threshold_forms(eng: Engine, gate: BoolGate, fs: list[Form]) -> list[Form]:
    """0/1 forms of ``gate`` through one sign gate (empty if it has none); {0,1} inputs only."""
    op = gate.op
    if op in ("AND", "NAND", "OR", "NOR"):
        lits = [(1, f) for f in fs]
        conj, negate = op in ("AND", "NAND"), op in ("NAND", "NOR")
    elif op == "CUBE":
        lits = [(1 if lit == "1" else -1, f) for lit, f in zip(gate.cube, fs) if lit != "-"]
        conj, negate = True, gate.polarity == 0
    else:
        return []
    k = len(lits)
    if not 2 <= k <= MAX_SIGN_FAN_IN:  # as the linear construction: the kernel decides wider sign forms too slowly
        return []
    # literal values as forms: f or 1 − f
    values = [f if sgn == 1 else f.affine(-1, 1) for sgn, f in lits]
    # (1) sign over 0/1 values: OR = sign(Σ ℓᵢ), AND = 1 − sign(Σ (1 − ℓᵢ))
    t = eng.sign(Form.lin([(-1 if conj else 1, v) for v in values], k if conj else 0))
    direct = t if conj == negate else t.affine(-1, 1)
    # (2) sign over ±1 values sᵢ = 2ℓᵢ − 1: AND = [Σsᵢ + 1−k > 0], OR = [Σsᵢ + k−1 > 0]
    s = eng.sign(Form.lin([(2, v) for v in values], -k + ((1 - k) if conj else (k - 1))))
    return [direct, s.affine(Fraction(-1, 2) if negate else Fraction(1, 2), Fraction(1, 2))]


def _run(netlist: Netlist, mode: str, cap: int, budget: int | None = None
         ) -> tuple[Engine, Candidates, list[int], list[tuple[int, str]]] | None:
    """The depth-aware engine after arithmetizing ``netlist``: each signal's candidate forms
    with the index of the operand candidate each was built from, the candidate each output
    uses and the output wires; None once it has made more than ``budget`` gates or
    3·``budget`` edges."""
    eng = Engine(cap)
    # Each signal keeps up to three candidate forms: the best operand for
    # products (shallowest terms), for sums (shallowest add) and as an output.
    keys: list[Callable[[Form], tuple[int, int]]] = [
        lambda f: (eng.form_depth(f), f.size), lambda f: (eng.sum_depth(f), f.size),
        lambda f: (eng.materialized_depth(f), f.size)]
    cands: Candidates = {name: [(Form.wire(eng.input(name)), [])] for name in netlist.inputs}

    def best(name: str, key: Callable[[Form], tuple[int, int]]) -> int:
        forms = cands[name]
        return min(range(len(forms)), key=lambda i: key(forms[i][0]))

    def over(forms: list[tuple[Form, list[int]]] | tuple[()] = ()) -> bool:
        return budget is not None and (len(eng.kinds) > budget or eng.edges > 3 * budget
                                       or sum(f.size for f, _ in forms) > 3 * budget)

    for gate in netlist.gates:
        pick = [best(a, keys[0]) for a in gate.args]
        found = [(_exact_form(eng, gate, [cands[a][i][0] for a, i in zip(gate.args, pick)]), pick)]
        if mode == "threshold":
            pick = [best(a, keys[1]) for a in gate.args]
            found += [(f, pick) for f in _threshold_forms(eng, gate, [cands[a][i][0] for a, i in zip(gate.args, pick)])]
        kept: dict[Form, list[int]] = {}
        for key in keys:
            form, origin = found[min(range(len(found)), key=lambda i: key(found[i][0]))]
            kept.setdefault(form, origin)
        cands[gate.name] = list(kept.items())
        if over(cands[gate.name]):
            return None
    chosen, outputs = [], []
    for name in netlist.outputs:  # one at a time: materializing an output can change the next one's key
        chosen.append(best(name, keys[2]))
        outputs.append((eng.materialize(cands[name][chosen[-1]][0]), name))
        if over():
            return None
    return eng, cands, chosen, outputs


def _build(netlist: Netlist, mode: str, cap: int | None, provenance: Provenance | None
           ) -> tuple[Circuit, Engine, Candidates, list[int]]:
    if mode not in MODES:
        raise InputError(f"unknown arithmetization mode {mode!r} (expected exact or threshold)")
    if cap is not None and (type(cap) is not int or cap < 1):
        raise InputError(f"cap must be a positive integer, got {cap!r}")
    if provenance is None:
        m = measure_netlist(netlist)
        provenance = Provenance(arithmetization=mode, netlist_gates=m.gates, netlist_depth=m.depth,
                                netlist_max_fan_in=m.max_fan_in, netlist_gate_types=m.gate_types)
    domain = Domain.RATIONALS if mode == "exact" else Domain.BOOLEAN
    if cap is not None:
        bound = GUARD * gate_bound(netlist)
        run = _run(netlist, mode, cap, bound)
        if run is not None:
            eng, cands, chosen, outputs = run
            circuit = eng.build(netlist.name, outputs, domain, provenance)
            if circuit.size <= bound and sum(g.fan_in for g in circuit.gates) <= 3 * bound:
                return circuit, eng, cands, chosen
    eng, cands, chosen, outputs = run_linear(netlist, mode)  # C keeps every wire the outputs' gates' steps name
    return eng.build(netlist.name, outputs, domain, provenance, keep=eng.traced(read_by_outputs(netlist))), eng, \
        cands, chosen


def arithmetize(netlist: Netlist, mode: str = "exact", cap: int | None = DEFAULT_CAP,
                provenance: Provenance | None = None) -> Circuit:
    """The arithmetic circuit of ``netlist`` in ``mode`` (``"exact"`` or ``"threshold"``).

    ``cap=None`` (default): the linear construction.  ``cap=N``: the depth-aware one, which
    expands products of up to N terms (shallower, often bigger), guarded by the linear bound.
    """
    return _build(netlist, mode, cap, provenance)[0]


def import_netlist(path: str, mode: str = "exact", cap: int | None = DEFAULT_CAP, fmt: str | None = None,
                   drop_dead: bool = False, steps: bool | None = None) -> Circuit:
    """Read a ``.bench``/``.blif``/Bristol Fashion/AIGER file or synthesize a Verilog one (``fmt``
    overrides what the name and text suggest: :func:`.netlists.netlist_format`, ``.aag``/``.aig``,
    ``.v``/``.sv``) and arithmetize it; provenance records the
    source and carries the netlist link section (:mod:`.link_section`) that lets the kernel
    prove the circuit equals the netlist.  ``drop_dead`` drops the gates no output depends on
    before the netlist is checked (ISCAS-89 s400's undefined net feeds only dead logic); the
    section then says so and the kernel drops the same gates.  With the linear construction the section is
    the link by binary steps (:mod:`.step_section`, the default: ``STEP_LINK``), else (``steps=False``, or
    ``cap``) the link by candidates (:mod:`.link_section`)."""
    if mode not in MODES:
        raise InputError(f"unknown arithmetization mode {mode!r} (expected exact or threshold)", path)
    fmt = fmt or FOREIGN_EXTENSIONS.get(Path(path).suffix.lower())
    link_file, link_fmt = Path(path).name, fmt
    if fmt in FOREIGN_FORMATS:  # AIGER bytes, or Verilog synthesized to AIGER by Yosys
        from .aiger import read_aiger_source
        netlist, data, link_file = read_aiger_source(path, fmt)
        text, link_fmt = data.decode("latin-1"), "aiger"  # one character per byte: binary .aig too
    else:
        data, text, fmt = read_netlist_file(path, fmt)
        netlist, link_fmt = parse_netlist(text, path, fmt, drop_dead), fmt
    m = measure_netlist(netlist)
    prov = Provenance(source_format=fmt, source_path=str(Path(path)), arithmetization=mode,
                      netlist_gates=m.gates, netlist_depth=m.depth, netlist_max_fan_in=m.max_fan_in,
                      netlist_gate_types=m.gate_types)
    circuit, eng, cands, chosen = _build(netlist, mode, cap, prov)
    from .link_section import attach_link, link_section
    if (STEP_LINK if steps is None else steps) and cap is None:  # by binary steps: the linear construction only
        from .step_section import step_section
        section = step_section(circuit, eng, netlist, file=link_file, fmt=link_fmt, mode=mode, data=data,  # type: ignore[arg-type]
                               text=text)
    else:
        section = link_section(circuit, eng, netlist, cands, chosen, file=link_file, fmt=link_fmt, mode=mode,
                               data=data, text=text)
    if drop_dead and link_fmt in ("bench", "blif"):
        section["drop_dead"] = True
    return attach_link(circuit, section)
