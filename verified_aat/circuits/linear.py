"""Linear-size arithmetization: every netlist signal is one *literal* α + β·w.

A literal is a :class:`~.affine.Form` with at most one term: a constant α plus β times one
wire w of the gate list.  NOT, BUFF and every other affine map of a literal cost no gate.
Always β = ±1 (a lone monomial c·m with |c| ≠ 1 becomes the wire ``mul(const c, m)``) and,
by induction, α ∈ {0, 1} (a binary step's constant is f(α, γ), a sign form's 0 or 1), so a
binary step's coefficients are 0, ±1 or ±2 (XOR's product; a repeated wire) and exact mode
uses no constants but −2, −1, 0, 1, 2.

A binary step ``f(x, y) = p0 + p1·x + p2·y + p3·x·y`` (AND ``xy``, OR ``x + y − xy``, XOR
``x + y − 2xy``) over literals x = α + β·u, y = γ + δ·v is a polynomial
``c0 + c_u·u + c_v·v + c_uv·uv`` over at most three monomials.  One that is a constant or a
single monomial is a literal at once (AND of two wires is the gate ``mul(u, v)``);
otherwise it becomes ONE ``add`` gate over its monomials divided by a pivot p ∈ {1, −1}
(the result is c0 + p·add): a monomial whose coefficient is not p is ``mul(const c/p, m)``,
cached per (m, c/p), and the product is ``mul(u, v)``.  The pivot is the one that makes
fewer new gates, then the shallower add.  So a binary step makes at most 4 gates (the
product, two scalings, the add): XOR of two wires is ``add(u, v, mul(−2, mul(u, v)))``,
3 gates, and OR is ``add(u, v, mul(−1, mul(u, v)))``.  A k-input AND/OR/XOR (and NAND/NOR/
XNOR, their free negations; a BLIF cube, the AND of its literals) is a depth-balanced tree
of k − 1 binary steps: at most 4·(k − 1) gates and 3·⌈log2 k⌉ levels.  Gates are
hash-consed, so shared subterms are made once.

Threshold mode (meant for {0,1} inputs) may instead write a k-input AND/OR/NAND/NOR/cube
through one sign gate: OR = sign(Σxᵢ), AND = 1 + sign(Σxᵢ − k) (Σxᵢ − k ≤ 0 on {0,1}), the
sum one add gate over the literals' wires (a constant and at most k − 1 scalings): at most
k + 2 ≤ 4·(k − 1) gates and 2 or 3 levels.  Each gate takes the shallower of the two forms
(then the one with fewer new gates); the form not taken is rolled back, so it leaves no gate.
A gate of more than :data:`MAX_SIGN_FAN_IN` operands keeps its polynomial: the kernel decides a sign form by
branch and bound over {0,1}^k within a fixed budget of node intervals, which an AND and a NOR of 300 inputs
fit (6 s) and of 600 did not (z3 then timed out: unknown, exit 3), while their polynomials are identities it
decides at once.

An output whose literal is not a plain wire is materialized: ``mul(const β, w)``, with
``add(const α, ·)`` around it when α ≠ 0 (at most 2 gates).  Altogether (:func:`gate_bound`)

    |C| ≤ n_inputs + 4·Σ_g max(k_g − 1, 0) + 2·n_outputs + 5

where k_g is gate g's fan-in; the 5 are shared constants (every other constant gate belongs
to a threshold sign form's own budget).  A BLIF cover of several rows is the sum of its
disjoint cubes (:mod:`.covers`; its multilinear polynomial, also in threshold mode): each cube
an AND fold, then one add gate, so it costs at most Σ 4·(l_c − 1) + m + 1 for m disjoint cubes
of l_c literals (:func:`gate_cost`, used by :func:`gate_bound` in place of 4·(k_g − 1)).
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any, Iterable

from .affine import Engine, Form, Number, Wire, num
from .covers import disjoint_cubes
from .ir import Kind
from .netlists import BoolGate, Netlist

AND2 = (0, 0, 0, 1)
OR2 = (0, 1, 1, -1)
XOR2 = (0, 1, 1, -2)
MAX_SIGN_FAN_IN = 256  # threshold mode: wider gates keep their polynomial (module docstring)
_FOLD = {"AND": AND2, "NAND": AND2, "OR": OR2, "NOR": OR2, "XOR": XOR2, "XNOR": XOR2, "CUBE": AND2}
SHARED_CONSTANTS = 5


def gate_cost(gate: BoolGate) -> int:
    """At most this many gates for ``gate``: 4·(k − 1) for a k-input gate; a cover's disjoint
    cubes 4·(l − 1) each for l literals, then at most one scaling per cube and one add."""
    if gate.op != "COVER":
        return 4 * max(len(gate.args) - 1, 0)
    cubes = disjoint_cubes(gate.cubes)
    return sum(4 * max(len(c) - c.count("-") - 1, 0) for c in cubes) + len(cubes) + 1


def gate_bound(netlist: Netlist) -> int:
    """The size bound of the linear arithmetization of ``netlist`` (module docstring)."""
    return len(netlist.inputs) + sum(gate_cost(g) for g in netlist.gates) + 2 * len(netlist.outputs) \
        + SHARED_CONSTANTS


def _negate(x: Form) -> Form:
    return x.affine(-1, 1)


class LinearEngine(Engine):
    """The hash-consed gate list of :class:`Engine`, with literal operations and roll-back."""

    def __init__(self) -> None:
        super().__init__(cap=0)
        self._times: dict[tuple[Wire, Number], Wire] = {}
        self._journal: list[tuple[dict[Any, Wire], Any]] = []  # table entries made since commit()
        self._out: dict[Form, Wire] = {}
        self.trace: list[Any] = []  # the last gate's steps: [(i, j, literal)] of its fold, or ["sign", literal]
        self.traces: dict[str, list[Any]] = {}  # each netlist gate's trace (:mod:`.step_section`)

    # -- gates, journalled so that a trial can be rolled back -----------------------------
    def _made(self, key: Any, kind: Kind, args: tuple[Wire, ...] = (), value: Fraction | None = None) -> Wire:
        wire = self._cons.get(key)
        if wire is None:
            wire = self._cons[key] = self._new(kind, args, value)
            self._journal.append((self._cons, key))
        return wire

    def const(self, value: Number) -> Wire:
        q = Fraction(value)
        return self._made(("c", q), Kind.CONST, value=q)

    def gate(self, kind: Kind, args: tuple[Wire, ...]) -> Wire:
        """An add/mul/sign gate, shared with an identical earlier one."""
        return self._made((kind, tuple(sorted(args))), kind, args)

    def times(self, w: Wire, c: Number) -> Wire:
        """A wire computing c·w: w itself for c = 1, else ``mul(const c, w)`` (cached)."""
        c = num(c)
        if c == 1:
            return w
        key = (w, c)
        found = self._times.get(key)
        if found is None:
            found = self._times[key] = self.gate(Kind.MUL, (self.const(c), w))
            self._journal.append((self._times, key))
        return found

    def mark(self) -> tuple[int, int]:
        return len(self.kinds), len(self._journal)

    def undo(self, mark: tuple[int, int]) -> None:
        """Forget every gate and table entry made since ``mark``."""
        n, j = mark
        for table, key in reversed(self._journal[j:]):
            del table[key]
        del self._journal[j:]
        self.edges -= sum(len(a) for a in self.args[n:])
        for column in (self.kinds, self.args, self.values, self.names, self.depth):
            del column[n:]

    def commit(self) -> None:
        self._journal.clear()

    # -- literals ---------------------------------------------------------------------------
    def lit_depth(self, x: Form) -> int:
        return self.depth[x.terms[0][0]] if x.terms else 0

    def _pivot_cost(self, items: list[tuple[Wire, Number]], p: int) -> tuple[int, int, int]:
        new, deepest = 0, 0
        for w, c in items:
            k = c * p  # c / p, p = ±1
            if k == 1:
                deepest = max(deepest, self.depth[w])
            elif (w, k) in self._times:
                deepest = max(deepest, self.depth[self._times[(w, k)]])
            else:
                new += 1
                deepest = max(deepest, self.depth[w] + 1)
        return new, deepest, p != 1

    def _sum(self, const: Number, items: list[tuple[Wire, Number]]) -> tuple[Wire, int]:
        """(s, p) with one add gate s such that p·s = const + Σ c·w, p ∈ {1, −1}."""
        p = min((1, -1), key=lambda q: self._pivot_cost(items, q))
        args = ([self.const(const * p)] if const else []) + [self.times(w, c * p) for w, c in items]
        return self.gate(Kind.ADD, tuple(args)), p

    def literal(self, const: Number, terms: dict[tuple[Wire, ...], Number]) -> Form:
        """The literal of the polynomial ``const + Σ c·m`` over monomials m = (u,) or (u, v)."""
        items = sorted((m, num(c)) for m, c in terms.items() if c != 0)
        if not items:
            return Form.of(const)
        wires = [(m[0] if len(m) == 1 else self.gate(Kind.MUL, m), c) for m, c in items]
        if len(wires) == 1:  # β = ±1 always: c·w with |c| ≠ 1 is a scaled wire
            w, c = wires[0]
            return Form(num(const), ((w, c) if c in (1, -1) else (self.times(w, c), 1),))
        s, p = self._sum(0, wires)
        return Form(num(const), ((s, p),))

    def binary(self, f: tuple[int, int, int, int], x: Form, y: Form) -> Form:
        """f(x, y) = p0 + p1·x + p2·y + p3·x·y for literals x, y."""
        p0, p1, p2, p3 = f
        a, (u, b) = x.const, x.terms[0] if x.terms else (None, 0)
        c, (v, d) = y.const, y.terms[0] if y.terms else (None, 0)
        terms: dict[tuple[Wire, ...], Number] = {}

        def put(m: tuple[Wire, ...], k: Number) -> None:
            if k:
                terms[m] = terms.get(m, 0) + k
        if u is not None:
            put((u,), b * (p1 + p3 * c))
        if v is not None:
            put((v,), d * (p2 + p3 * a))
        if u is not None and v is not None:
            put((min(u, v), max(u, v)), p3 * b * d)
        return self.literal(p0 + p1 * a + p2 * c + p3 * a * c, terms)

    def fold(self, f: tuple[int, int, int, int], xs: list[Form]) -> Form:
        """A depth-balanced tree of binary steps f over ``xs`` (f associative, commutative)."""
        heap = [(self.lit_depth(x), i, x) for i, x in enumerate(xs)]
        heapq.heapify(heap)
        count = len(heap)
        while len(heap) > 1:
            (_, i, x), (_, j, y) = heapq.heappop(heap), heapq.heappop(heap)
            z = self.binary(f, x, y)
            self.trace.append((i, j, z))  # leaves are 0 … k − 1, the n-th step's result k + n
            heapq.heappush(heap, (self.lit_depth(z), count, z))
            count += 1
        return heap[0][2]

    def polynomial(self, gate: BoolGate, xs: list[Form]) -> Form:
        """The gate's multilinear polynomial of its operand literals, as a literal."""
        op = gate.op
        self.trace = []
        if op in ("CONST0", "CONST1"):
            return Form.of(int(op == "CONST1"))
        if op in ("BUFF", "NOT"):
            return xs[0] if op == "BUFF" else _negate(xs[0])
        if op == "CUBE":
            xs = [x if lit == "1" else _negate(x) for lit, x in zip(gate.cube, xs) if lit != "-"]
            if not xs:
                return Form.of(gate.polarity)
        if op == "COVER":  # the sum of disjoint cubes: the cover's multilinear polynomial
            cubes, folds, roots = disjoint_cubes(gate.cubes), [], []
            for cube in cubes:
                self.trace = []
                lits = [x if lit == "1" else _negate(x) for lit, x in zip(cube, xs) if lit != "-"]
                roots.append(self.fold(AND2, lits) if lits else Form.of(1))
                folds.append(self.trace)
            total = self.add_literals(roots)
            self.trace = ["cover", cubes, folds, total]
            return total if gate.polarity else _negate(total)
        r = self.fold(_FOLD[op], xs)
        return _negate(r) if op in ("NAND", "NOR", "XNOR") or (op == "CUBE" and not gate.polarity) else r

    def add_literals(self, xs: list[Form]) -> Form:
        """The literal of Σ xs (one add gate over their wires, with scalings as needed)."""
        const: Number = sum((x.const for x in xs), 0)
        terms: dict[tuple[Wire, ...], Number] = {}
        for x in xs:
            for w, c in x.terms:
                terms[(w,)] = terms.get((w,), 0) + c
        return self.literal(const, terms)

    def threshold(self, gate: BoolGate, xs: list[Form]) -> Form | None:
        """The gate through one sign gate (None if it has no such form); {0,1} inputs only."""
        op = gate.op
        if op in ("AND", "NAND", "OR", "NOR"):
            conj, negate = op in ("AND", "NAND"), op in ("NAND", "NOR")
        elif op == "CUBE":
            xs = [x if lit == "1" else _negate(x) for lit, x in zip(gate.cube, xs) if lit != "-"]
            conj, negate = True, gate.polarity == 0
        else:
            return None
        if len(xs) < 2:
            return None
        const: Number = sum(x.const for x in xs) - (len(xs) if conj else 0)
        acc: dict[Wire, Number] = {}
        for x in xs:
            for w, c in x.terms:
                acc[w] = acc.get(w, 0) + c
        items = sorted((w, c) for w, c in acc.items() if c)
        if not items:
            s = Form.of((const > 0) - (const < 0))
        elif const == 0 and len(items) == 1:
            w, c = items[0]
            s = Form(0, ((self.gate(Kind.SIGN, (w,)), 1 if c > 0 else -1),))
        else:
            a, p = self._sum(const, items)
            s = Form(0, ((self.gate(Kind.SIGN, (a,)), p),))
        r = s.affine(1, 1) if conj else s  # AND = 1 + sign(Σx − k), OR = sign(Σx)
        self.trace = ["sign", r]
        return _negate(r) if negate else r

    def netlist_gate(self, gate: BoolGate, xs: list[Form], threshold: bool) -> Form:
        """The gate's literal: its polynomial, or in threshold mode the shallower of that and
        its sign form (then the one with fewer new gates); the other leaves no gate behind."""
        if not threshold or gate.op not in ("AND", "NAND", "OR", "NOR", "CUBE") \
                or not 2 <= len(gate.args) <= MAX_SIGN_FAN_IN:
            return self.polynomial(gate, xs)
        start = self.mark()
        via_sign = self.threshold(gate, xs)
        sign_cost = (self.lit_depth(via_sign), len(self.kinds) - start[0]) if via_sign is not None else None
        self.undo(start)
        poly = self.polynomial(gate, xs)
        if sign_cost is None or (self.lit_depth(poly), len(self.kinds) - start[0]) <= sign_cost:
            return poly
        self.undo(start)
        via_sign = self.threshold(gate, xs)
        assert via_sign is not None
        return via_sign

    def traced(self, names: Iterable[str]) -> list[Wire]:
        """Every wire the traces of the netlist gates ``names`` name (:mod:`.step_section`): the circuit keeps them,
        so that a step of a gate some output reads still names C's gates where no output reads its result (an
        XOR(x, x) = 0 above x's gates)."""
        return [w for name in names for w in _traced(self.traces[name])]

    def output(self, x: Form) -> Wire:
        """A wire computing literal x (at most 2 new gates besides constants)."""
        found = self._out.get(x)
        if found is None:
            if not x.terms:
                found = self.const(x.const)
            else:
                (w, b), = x.terms
                found = self.times(w, b)
                if x.const:
                    found = self.gate(Kind.ADD, (self.const(x.const), found))
            self._out[x] = found
        return found


def _traced(trace: list[Any]) -> list[Wire]:
    if trace[:1] == ["sign"]:
        return [w for w, _ in trace[1].terms]
    if trace[:1] == ["cover"]:
        return [w for t in trace[2] for w in _traced(t)] + [w for w, _ in trace[3].terms]
    return [w for _, _, z in trace for w, _ in z.terms]


def read_by_outputs(netlist: Netlist) -> list[str]:
    """The netlist gates some output depends on, in netlist order (the gates the link by steps states)."""
    read, gates = set(netlist.outputs), list(netlist.gates)
    for gate in reversed(gates):  # topological order: a gate's readers come after it
        if gate.name in read:
            read.update(gate.args)
    return [gate.name for gate in gates if gate.name in read]


Candidates = dict[str, list[tuple[Form, list[int]]]]


def run_linear(netlist: Netlist, mode: str) -> tuple[LinearEngine, Candidates, list[int], list[tuple[Wire, str]]]:
    """The engine after arithmetizing ``netlist``: one literal per signal (its only candidate),
    the candidate each output uses (0) and the output wires."""
    eng = LinearEngine()
    lits: dict[str, Form] = {name: Form.wire(eng.input(name)) for name in netlist.inputs}
    threshold = mode == "threshold"
    for gate in netlist.gates:
        lits[gate.name] = eng.netlist_gate(gate, [lits[a] for a in gate.args], threshold)
        eng.traces[gate.name] = eng.trace
        eng.commit()
    outputs = [(eng.output(lits[name]), name) for name in netlist.outputs]
    cands: Candidates = {name: [(lits[name], [])] for name in netlist.inputs}
    for gate in netlist.gates:
        cands[gate.name] = [(lits[gate.name], [0] * len(gate.args))]
    return eng, cands, [0] * len(netlist.outputs), outputs
