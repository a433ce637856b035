"""The link from the certified arithmetic circuit down to a Boolean netlist (docs/soundness.md N): the section as
``netlist_parse.py`` reads it, lemmas (a) to (c) stated over their cuts and decided by ``netlist_decide.py``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .data import Gate, Number
from .netlist_cands import Form, load_link, multilinear
from .context import Context
from .netlist_decide import Node, children, difference
from .problems import Problem, no_link
from .sparse_poly import MAX_PRODUCT_WORK, TooLarge

MAX_NODES = 100_000           # nodes in one lemma's expansion
DEEPER = 3                    # deeper cuts tried for a lemma that fails at its frontier
MAX_BASIS = 64                # operands a sum is matched against
UNDECIDED = 20                # lemmas left undecided (a limit, a solver's unknown) before the rest are not stated
LINK_WORK = 10_000_000        # expansion steps and operands read by all lemmas together, and 64 a netlist gate


def link_report(ctx: Context) -> tuple[list[Problem | str], str, dict[str, int]]:
    """(problems, theorem sentence, counts: lemmas stated, distinct lemmas, solver runs) for the certificate's
    netlist section and ``--circuit NETLIST``."""
    raw = ctx.doc.get("netlist")
    if raw is None and ctx.options.netlist is not None and ctx.hashes.get("circuit") in ctx.options.binarized_sha256:
        ctx.unchecked.append(no_link(ctx))  # the netlist's circuit binarizes to the certified one (B)
        return [], "", {}
    if raw is None:
        return ([], "", {}) if ctx.options.netlist is None else \
            (["a netlist was given (--circuit), but the certificate carries no netlist link"], "", {})
    C = ctx.original if ctx.original is not None else ctx.circuit  # with a record of the circuit before binarization, the link is about it (B)
    link = load_link(raw, C, ctx.options.netlist)  # a malformed field (the netlist's text too) raises Malformed
    if isinstance(link, Problem):
        return [link], "", {}
    problems: list[Problem | str] = []
    prover = _Prover(ctx, link.gates, link.notes, link.mode == "threshold", LINK_WORK + 64 * len(link.netlist.gates))
    for t in sorted(link.notes):
        prover.equal(t, link.notes[t], link.cuts[t], t, f"annotation of gate {t}", problems)
    for gate in link.netlist.gates:
        for k, (form, origin) in enumerate(link.cands[gate.name]):
            operands = [link.cands[a][o][0] for a, o in zip(gate.args, origin)]
            prover.gate(gate, form, operands, f"candidate {k} of signal {gate.name!r} ({gate.op})", problems)
    for j, (s, o) in enumerate(zip(link.netlist.outputs, link.outputs)):
        form = link.cands[s][o][0]
        prover.equal(C.outputs[j], form, {prover.base(g) for g, _ in form[1]}, None, f"output {j} ({s!r})", problems)
    stats = {"lemmas": prover.stated, "distinct": len(prover.verdicts), "solver_runs": prover.runs}
    if problems:
        return problems, "", stats
    what = "the Boolean function" if link.mode == "threshold" else "the gate-wise multilinear extension"
    on = f"{{0,1}}^{C.n_inputs}" if link.mode == "threshold" else f"all of R^{C.n_inputs}"
    return [], f"C equals {what} of netlist {link.name!r} (sha256 {link.sha}) on {on}", stats


class _Prover:
    """States lemmas as hash-consed expression DAGs and decides each canonical listing once."""

    def __init__(self, ctx: Context, gates: list[Gate], notes: dict[int, Form], threshold: bool, limit: int):
        self.ctx, self.gates, self.notes, self.threshold, self.limit = ctx, gates, notes, threshold, limit
        self.verdicts: dict[tuple[tuple[Node, ...], tuple[int, ...]], str] = {}
        self.stated = self.runs = self.undecided = self.work = 0

    # -- the three kinds --------------------------------------------------------
    def equal(self, g: int, form: Form, cut: set[int], subject: int | None, what: str, problems: list[Problem | str]
              ) -> None:
        """(a), with g its ``subject``, and (c): gate g equals ``form``, at ``cut``."""
        self._decide(what, problems, cut, subject, lambda: (self._expand(g), self._form(form), []))

    def gate(self, gate: Any, form: Form, operands: list[Form], what: str, problems: list[Problem | str]) -> None:
        """(b): F = OP(y_1..y_k) where y_i = F_i (and, in threshold mode, y_i ∈ {0,1}); one y a node."""
        def state() -> tuple[int, int, list[int]]:
            ys: dict[int, int] = {}  # an operand's node -> its y
            which = [ys.setdefault(self._form(f), len(ys)) for f in operands]
            self._eliminate(list(ys))  # from here on, a sum that is an affine combination of the F_i uses the y_i
            lhs = self._form(form)
            return lhs, multilinear(gate, [self._node(("y", i)) for i in which], self._affine, self._product), list(ys)

        self._decide(what, problems, {self.base(g) for f in operands for g, _ in f[1]}, None, state)

    # -- statements -------------------------------------------------------------
    def base(self, g: int) -> int:
        """The gate an alias stands for: t = c·w (a one-term annotation) is w, through chains of them."""
        while g in self.notes and self.notes[g][0] == 0 and len(self.notes[g][1]) == 1:
            g = self.notes[g][1][0][0]
        return g

    def _form(self, form: Form) -> int:
        return self._affine(form[0], [(c, self._expand(g)) for g, c in form[1]])

    def _deps(self, g: int, subject: int | None) -> list[int]:
        if g != subject and g in self.notes:
            return [h for h, _ in self.notes[g][1]]
        return list(self.gates[g].args)

    def _node(self, key: Node) -> int:
        found = self.ids.get(key)
        if found is None:
            if len(self.defs) >= MAX_NODES:
                raise TooLarge(f"more than {MAX_NODES} nodes")
            found = self.ids[key] = len(self.defs)
            self.defs.append(key)
        return found

    def _product(self, factors: list[int]) -> int:
        """Π factors, numerals multiplied out (mul(const c, w) is c·w)."""
        k: Number = 1
        rest = []
        for n in factors:
            if self.defs[n][0] == "n":
                k *= self.defs[n][1]
            else:
                rest.append(n)
        product = rest[0] if len(rest) == 1 else self._node(("mul", tuple(rest))) if rest else self._node(("n", 1))
        return self._affine(0, [(k, product)])

    def _affine(self, const: Number, parts: list[tuple[Number, int]]) -> int:
        acc: dict[int, Number] = {}
        for c, n in parts:  # flattened: numerals and sums are taken apart
            key = self.defs[n]
            const += c * key[1] if key[0] in ("n", "+") else 0
            for m, k in key[2] if key[0] == "+" else [(n, 1)] if key[0] != "n" else []:
                acc[m] = acc.get(m, 0) + c * k
        terms = tuple(sorted((n, c) for n, c in acc.items() if c != 0))
        if not terms:
            return self._node(("n", const))
        if const == 0 and terms[0][1] == 1 and len(terms) == 1:
            return terms[0][0]
        return self._node(("+", const, terms))

    def _eliminate(self, operands: list[int]) -> None:
        """A row-echelon basis of the operand nodes: (pivot, sum part, its y combination, constant)."""
        for i, n in enumerate(operands[:MAX_BASIS]):
            key = self.defs[n]
            c0, form = (key[1], dict(key[2])) if key[0] == "+" else (key[1], {}) if key[0] == "n" else (0, {n: 1})
            vector, combination, c0 = self._reduce(form, {i: Fraction(1)}, c0)
            if vector:
                self.basis.append((min(vector), vector, combination, c0))

    def _reduce(self, vector: dict[int, Number], combination: dict[int, Number], c0: Number
                ) -> tuple[dict[int, Number], dict[int, Number], Number]:
        """vector + c0 less a·(row) for each basis row, a clearing the row's pivot, and ``combination`` less a·(the
        row's y combination): vector + c0 − Σ combination_i·F_i is kept."""
        for pivot, v, comb, c in self.basis:
            a = Fraction(vector.get(pivot, 0)) / v[pivot]
            if a:
                vector = {h: x for h in vector.keys() | v.keys() if (x := vector.get(h, 0) - a * v.get(h, 0))}
                combination = {j: x for j in combination.keys() | comb.keys()
                               if (x := combination.get(j, 0) - a * comb.get(j, 0))}
                c0 -= a * c
        return vector, combination, c0

    def _expand(self, root: int) -> int:
        stack, steps = [root], 0
        while stack:
            g = stack[-1]
            steps += 1
            if steps > 4 * MAX_NODES:
                raise TooLarge("expansion too deep")
            if g in self.memo:
                stack.pop()
            elif g in self.frontier:
                self.memo[g] = self._node(("v", g))
            else:
                deps = self._deps(g, self.subject)
                self.work += len(deps)
                todo = [h for h in deps if h not in self.memo]
                if todo:
                    stack.extend(todo)
                    continue
                args = [self.memo[h] for h in deps]  # g's definition: its annotation, else its gate
                if g != self.subject and g in self.notes:
                    n = self._affine(self.notes[g][0], [(c, a) for (_, c), a in zip(self.notes[g][1], args)])
                elif (gate := self.gates[g]).op in ("input", "const"):
                    n = self._node(("v", g) if gate.op == "input" else ("n", gate.value))
                elif gate.op == "add":
                    n = self._affine(0, [(1, a) for a in args])
                else:
                    n = self._product(args) if gate.op == "mul" else self._node(("sign", (args[0],)))
                key = self.defs[n]
                self.memo[g] = n
                if self.basis and key[0] == "+":  # a sum const + Σ c·n that elimination on the basis makes
                    vector, taken, const = self._reduce(dict(key[2]), {}, key[1])  # const − Σ taken_i·F_i + vector
                    if taken and not vector:  # β + Σ α_i·F_i is β + Σ α_i·y_i: e.g. the sum under a sign gate
                        self.memo[g] = self._affine(const, [(-c, self._node(("y", i))) for i, c in taken.items()])
        self.work += steps
        return self.memo[root]

    # -- deciding ---------------------------------------------------------------
    def _decide(self, what: str, problems: list[Problem | str], frontier: set[int], subject: int | None, state: Any) -> None:
        """Decide the lemma at its frontier, and where it fails there at deeper cuts (docs/soundness.md N)."""
        if self.work > self.limit and self.undecided < UNDECIDED:  # one bound for all lemmas: each had one (100
            self.ctx.unchecked.append(f"netlist link: the lemmas from {what} on are not stated: the expansions passed "
                                      f"{self.limit} steps (docs/soundness.md, Limits)")  # lemmas of a 10^5-gate chain: 22 s)
            self.undecided = UNDECIDED
        if len(problems) >= 5 or self.undecided >= UNDECIDED:  # a bound on the work: past five false (or
            return  # undecided) lemmas the rest are not stated, and the certificate is not accepted
        self.stated += 1
        self.subject = subject
        first = ""
        for depth in range(DEEPER + 2):
            if depth == DEEPER + 1:
                frontier = set()  # last, the whole way down to inputs and constants
            # a frontier gate built from frontier gates only is expanded too (hash-consing can make a gate x·y of
            # one operand the very product the left side forms of x and y); constants are numerals
            self.frontier = {g for g in frontier if self.gates[g].op == "input" or (
                self.gates[g].op != "const" and not all(h in frontier for h in self._deps(g, subject)))}
            self.ids: dict[Node, int] = {}
            self.defs: list[Node] = []
            self.memo: dict[int, int] = {}
            self.basis: list[tuple[int, dict[int, Number], dict[int, Number], Number]] = []
            try:
                lhs, rhs, bs = state()
                order, roots = self._canonical([lhs, rhs] + bs)
                key = (tuple(order), tuple(roots))
                if key not in self.verdicts:
                    self.verdicts[key] = self._verdict(order, roots)
                verdict = self.verdicts[key]
            except TooLarge as exc:
                verdict = f"too large to check: {exc}"
            first = verdict if not first or first.startswith("unknown:") else first
            if verdict == "ok" or verdict.startswith("too large"):  # undecided at this cut: a deeper one may
                break  # decide it, as after a solver's sat (without one, XOR(a, a, XOR(a, a)) was not checked)
            used = {key[1] for key in self.defs if key[0] == "v" and self.gates[key[1]].op != "input"}
            if not used:
                break
            frontier = (frontier - used) | {h for g in used for h in self._deps(g, subject)}
        if verdict.startswith("unknown:"):
            self._undecided(f"{what}: {verdict}")
        elif verdict.startswith("too large"):  # a limit: not decided, neither proved nor refuted
            self._undecided(f"{what}: the lemma is {verdict} (docs/soundness.md N)")
        elif verdict != "ok":
            problems.append(Problem("{what:160}: the local lemma does not hold ({why:200})", {"what": what, "why": first}))

    def _undecided(self, why: str) -> None:
        self.ctx.unchecked.append(f"netlist link, {why}")
        self.undecided += 1
        if self.undecided == UNDECIDED:
            self.ctx.unchecked.append(f"netlist link: the lemmas after these {UNDECIDED} undecided ones are not stated")

    def _canonical(self, roots: list[int]) -> tuple[list[Node], list[int]]:
        """Post-order listing of the nodes under ``roots``, variables renamed by first occurrence (one lemma each)."""
        new: dict[int, int] = {}
        names: dict[int, int] = {}
        order: list[Node] = []
        for root in roots:
            stack = [root]
            while stack:
                n = stack[-1]
                key = self.defs[n]
                kids = children(key)
                todo = [m for m in kids if m not in new]
                if n in new or todo:
                    stack.pop() if n in new else stack.extend(reversed(todo))
                    continue
                if key[0] == "v":
                    item: Node = ("v", names.setdefault(key[1], len(names)))
                elif key[0] == "+":
                    item = ("+", key[1], tuple((new[m], c) for m, c in key[2]))
                else:
                    item = (key[0], tuple(new[m] for m in kids)) if kids else key
                new[n] = len(order)
                order.append(item)
        return order, [new[r] for r in roots]

    def _verdict(self, order: list[Node], roots: list[int]) -> str:
        lhs, rhs, bs = roots[0], roots[1], roots[2:]
        signs = any(item[0] == "sign" for item in order)
        if signs and not self.threshold:
            return "a sign occurs in exact mode"
        limit = MAX_PRODUCT_WORK // 20 if signs else MAX_PRODUCT_WORK  # with signs, the solvers may do better
        try:  # an identity with every sign(…) an independent variable is a proof
            d = difference(order, lhs, rhs, bs, limit)
            if not d:
                return "ok"
            if not signs and not (self.threshold and bs):  # a non-zero polynomial is non-zero somewhere
                return "not a polynomial identity over its frontier variables"
        except TooLarge:
            if not self.threshold:
                raise
        if self.threshold and bs:  # branch and bound over y ∈ {0,1}^k: threshold mode only (a trusted-base kind)
            from .netlist_threshold import on_operands
            found = on_operands(order, lhs, rhs, bs)  # True: the sides agree wherever y = F can hold
            if found is not None:
                return "ok" if found else "a counterexample over its frontier variables under the hypotheses F_i ∈ " \
                                          "{0,1} (branch and bound)"
        if not self.ctx.options.solver_trust:
            return "unknown: the kernel's own procedures do not decide it, and no solver is trusted (--no-solver-trust)"
        from .netlist_smt import solvers_verdict  # the solver runner: reached only for a lemma the trust line then names
        verdict, runs = solvers_verdict(self.ctx, order, lhs, rhs, bs)
        self.runs += runs
        return verdict
