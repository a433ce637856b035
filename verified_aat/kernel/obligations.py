"""Per-position obligations (docs/soundness.md S9) as SMT-LIB lemmas (docs/certificates.md): for a layer function F, a
position p and a settle layer s of p's claims, one at the first layer ≥ s that uses F; a *shape key* renders each once."""

from __future__ import annotations

import bisect
import functools
import hashlib
from collections import Counter
from itertools import chain
from operator import itemgetter
from typing import Any, Sequence

from .circuits import cone, mean, partial, reads
from .data import Circuit, Layer, NotChecked, Number, Transformer
from .agreement import charge  # the room of lemma text (S11), reject-only
from .derivation import Derivation, Function, Lemma
from .schedule import Claims
from .smt import HEADER, LOGIC, SGN, declare, define_fun, numeral

PARALLEL_MIN_POSITIONS = 200_000  # below this, sending the inputs to workers costs more than it saves


# an obligation's names y<n>, h<n> and squares (* v v), each built once
Y, H, SQUARE = (functools.cache(form.format) for form in ("y{}", "h{}", "(* {0} {0})"))


class Reads:
    """The argmax-set members that means read in S8 and S9, in all: past 64 a position + 10^7, *not checked*.
    Counted where read, as an honest wide set is shared by positions that never read it (docs/soundness.md)."""

    def __init__(self, positions: int):
        self.left = 64 * positions + 10**7

    def spend(self, members: int) -> None:
        self.left -= members
        if self.left < 0:
            raise NotChecked("means read more argmax-set members than 64 a position + 10^7 in all")


def pooled(pooling: str, members: tuple[int, ...], rows: Sequence[Sequence[Number]], c: int, budget: Reads) -> Number:
    """The pooled value of coordinate c over an argmax set: the rule of S7, the same everywhere."""
    if pooling in ("leftmost", "rightmost"):
        return rows[members[0] if pooling == "leftmost" else members[-1]][c]
    assert pooling == "average"
    budget.spend(len(members))
    return mean([rows[j][c] for j in members])


def activation_params(transformer: Transformer, layer: Layer) -> list[str]:
    """SMT names of an activation's inputs: ``x_<coord>`` then ``<head>_<coord>`` per head."""
    return [f"{owner}_{c}" for owner in ["x", *(h.name for h in layer.heads)] for c in transformer.coordinates]


class Deriver:
    """Renders every obligation of one (circuit, transformer, encoding, claims, argmax sets)."""

    def __init__(self, circuit: Circuit, transformer: Transformer, rows: Sequence[Sequence[Number]],
                 claims: Claims, structural: set[int], sets: dict[tuple[int, int], list[tuple[int, ...]]], budget: Reads):
        self.gates, self.budget, self.t, self.d, self.rows = circuit.gates, budget, transformer, transformer.dimension, rows
        self.claims, self.structural, self.sets, self.derivation = claims, structural, sets, Derivation()
        self._prefix: dict[tuple[int, tuple[int, ...]], str] = {}
        self._templates: dict[Any, int] = {}  # (function, coords, static values) → number (see _template)
        self._residuals: dict[Any, set[int]] = {}  # (activation, coords, static values) → the inputs it reads
        self._constants = {g: numeral(gate.value) for g, gate in enumerate(self.gates) if gate.op == "const"}  # type: ignore[arg-type]

    # -- the plan: which layers check which position --------------------------------
    def run(self, functions: list[Function], shards: Any = None) -> Derivation:
        """Derive every obligation into ``self.derivation``, on ``shards`` (``Options.shards``) when given and the
        encoding has PARALLEL_MIN_POSITIONS (``sharded.py``, entered only then), else here; in first-use order."""
        parts = None
        if shards is not None and len(self.claims) >= PARALLEL_MIN_POSITIONS:
            from .sharded import derive_on_shards
            parts = derive_on_shards(self, functions, shards)  # None: a worker or the cluster failed
        found, counts = parts or self._run_range(functions, [range(len(self.claims))])
        self.derivation.counts.update(counts)
        for digest, (text, kind, uses, _, where) in found.items():
            self.derivation.lemmas.setdefault(digest, Lemma(kind, text, where=where)).uses += uses
        return self.derivation

    def _run_range(self, functions: list[Function], blocks: list[range]) -> tuple[dict, Counter]:
        """The obligations of the positions in ``blocks`` (increasing): lemma id → [text, kind, uses, order key,
        where], and the counts by kind.  An obligation's shape (its inputs' and goal's texts) is rendered once."""
        # long because it is the derivation's inner loop (4.6 * 10^6 obligations at 10^6 gates), in locals: an
        # obligation's names (ys: gate → name, hs: (position, coordinate) → name) are two dicts, cleared each time
        found: dict[str, list] = {}
        counts: Counter = Counter()
        shapes: dict[Any, list] = {}  # shape → its lemma's entry in found
        patterns, roles, rows, sets, gates = self.claims.patterns, self.claims.roles, self.rows, self.sets, self.gates
        constants, local, frame = self._constants, self._local_kinds, self._frame_kinds  # p's kinds: see ``tally``
        ys: dict[int, str] = {}
        hs: dict[tuple[int, int], str] = {}
        left = self.derivation.room  # a stripe's own distinct texts: past the certificate's, the union's are too
        tally = Counter(zip(map(id, map(patterns.__getitem__, chain(*blocks))), map(local.__getitem__, chain(*blocks)),
                            map(frame.__getitem__, chain(*blocks))))  # (pattern, local and frame kind) → positions:
        # each of a pattern's plan entries is one obligation a position, of its kind in ``local`` or ``frame``
        for f_index, fn in enumerate(functions):
            plans: dict[int, list[tuple[int, list, tuple[int, ...], list, dict, Any, list, int]]] = {}  # by pattern
            number, heads = fn.number, fn.layer.heads
            for block in blocks:
                for p in block:
                    pattern = patterns[p]
                    plan = plans.get(id(pattern))
                    if plan is None:
                        plan = plans[id(pattern)] = self._plan(fn, pattern)
                    role = roles[p]
                    for layer, kinds, coords, static, templates, own, goals, k in plan:
                        values = own(rows[p]) if own else tuple([rows[p][c] if owner == 0 else pooled(  # see _plan
                            heads[owner - 1].pooling, sets[(number, owner - 1)][p], rows, c, self.budget) for owner, c, _ in static])
                        template = templates.get(values) or self._template(fn, coords, static, values, templates, pattern, layer, goals)
                        if (same := template[5]) is not None and (entry := same.get(named := constants.get(role[template[6]]))):
                            entry[2] += 1  # a known shape: a function of the numeral (or None) of the one gate read (S9)
                            continue
                        ys.clear()
                        hs.clear()
                        limit = layer - 1
                        shape = [template[0], 0, 0]  # then the non-literal inputs, in input order, and the goal
                        for c, among, pooling, f, power in template[3]:  # own values (among None), then pooled ones
                            if among is None:  # p's own value: its claim (role f) if settled by ``limit``, else havoc
                                v = hs.get((p, c)) or hs.setdefault((p, c), H(len(hs))) if f is None else \
                                    ys.get(g := role[f]) or constants.get(g) or ys.setdefault(g, Y(len(ys)))
                                shape.append(v if power != 2 else SQUARE(v))
                                continue
                            if len(members := among[p]) == 1 or pooling in ("leftmost", "rightmost"):  # one member
                                members = (members[0] if pooling == "leftmost" else members[-1],)
                            else:
                                self.budget.spend(len(members))
                            names = []
                            for j in members:  # the claim on (j, c) settled by ``limit``, named, else a havoc value
                                if (entry := patterns[j].get(c)) is None or entry[2] > limit:
                                    names.append(hs.get((j, c)) or hs.setdefault((j, c), H(len(hs))))
                                else:  # a gate's name: a constant's numeral, else a variable y<n> in order of use
                                    v = ys.get(g := roles[j][entry[0]]) or constants.get(g) or ys.setdefault(g, Y(len(ys)))
                                    names.append(v if entry[1] == 1 else SQUARE(v))
                            shape.append(names[0] if len(names) == 1 else f"(/ (+ {' '.join(names)}) {len(names)}.0)")
                        for f, power in goals:  # p's claims on ``coords``: (role, power)
                            if (rhs := ys.get(g := role[f])) is None and (gate := gates[g]).op in ("const", "input"):
                                rhs = constants.get(g) or ys.setdefault(g, Y(len(ys)))  # named: its Gate unread
                            elif rhs is None:
                                parts = [ys.get(a) or constants.get(a) or ys.setdefault(a, Y(len(ys))) for a in gate.args]
                                rhs = (f"(sgn {parts[0]})" if gate.op == "sign" else "0.0" if not parts else parts[0]
                                       if len(parts) == 1 else f"({'+' if gate.op == 'add' else '*'} {' '.join(parts)})")
                            shape.append(rhs if power == 1 else f"(* {rhs} {rhs})")
                        shape[1], shape[2] = len(ys), len(hs)  # the template fixes how many inputs and goals follow
                        key = tuple(shape)
                        entry = shapes.get(key)
                        if entry is None:
                            text = self._render(fn, coords, template, shape)
                            digest = hashlib.sha256(text.encode()).hexdigest()
                            left = left if digest in found else charge(left, len(text))
                            entry = shapes[key] = found.setdefault(digest, [text, kinds[p], 0, (f_index, p, k),
                                                                            f"layer {layer}, position {p}"])
                        entry[2] += 1
                        if same is not None:
                            same[named] = entry
            for (pattern_id, *kind), n in tally.items():  # the counts by kind: every plan entry is one obligation
                for step in plans[pattern_id]:
                    counts[kind[step[1] is frame]] += n
        return found, counts

    def set_roles(self, role_kinds: list[str], frame_kinds: list[str]) -> None:
        """Obligation kinds: local-step:<gate op or role kind>, frame:<role kind> (one string per kind)."""
        self._local_kinds, self._frame_kinds = ([*map({kind: prefix + kind for kind in set(kinds)}.__getitem__, kinds)]
                                                for prefix, kinds in (("local-step:", role_kinds), ("frame:", frame_kinds)))

    def _plan(self, fn: Function, pattern: dict[int, tuple[int, int, int]]) -> list[tuple]:
        """Where F checks a position whose claims are ``pattern`` (coordinate → (role, power, settle)): at the first layer ≥
        each settle, the goal's coordinates (settled by then, increasing), static reads (``own``: all p's) and (role, power)s."""
        signature = [(s, c) for c, (_, _, s) in pattern.items()]
        settles, act, plan = {s for s, _ in signature}, fn.layer.activation, []
        at = {fn.layers[i] for i in (bisect.bisect_left(fn.layers, s) for s in settles) if i < len(fn.layers)}
        for layer in sorted(at):
            coords = tuple(sorted(c for s, c in signature if s <= layer))
            static = [divmod(k, self.d) + (k,) for k in sorted(reads(act, [act.outputs[c] for c in coords]))
                      if k % self.d in self.structural]
            own = all(owner == 0 for owner, _, _ in static) and static and itemgetter(*(c for _, c, _ in static))
            goals = [(pattern[c][0], pattern[c][1]) for c in coords]  # the goal's (role, power) pairs
            kinds = self._local_kinds if layer in settles else self._frame_kinds  # a position's kind, by position
            plan.append((layer, kinds, coords, static, {}, own, goals, len(plan)))  # {}: templates by static values
        return plan

    def _render(self, fn: Function, coords: tuple[int, ...], template: tuple[int, list, int, list], shape: list) -> str:
        """The lemma text of an obligation of ``shape``: F's outputs on ``coords`` at its inputs are not its goal."""
        args, names, n = template[1].copy(), self.t.coordinates, len(template[3])
        for k, value in zip(template[4], shape[3:3 + n]):  # the literals, then the reads in their places
            args[k] = value
        joined = " ".join(args)
        equations = [f"(= (out_{names[c]} {joined}) {rhs})" for c, rhs in zip(coords, shape[3 + n:])]
        goal = equations[0] if len(equations) == 1 else f"(and {' '.join(equations)})"
        prefix = self._prefix.get((fn.number, coords))  # F's out_c on ``coords``, once per function and coords
        if prefix is None:
            funs = [define_fun(f"out_{names[c]}", fn.layer.activation, c, activation_params(self.t, fn.layer))
                    for c in coords]
            prefix = self._prefix[(fn.number, coords)] = "\n".join([HEADER, LOGIC, SGN, *funs]) + "\n"
        return (prefix + declare([*map(Y, range(shape[1])), *map(H, range(shape[2])),
                                  *(f"f{i}" for i in range(template[2]))])
                + f"(assert (not {goal}))\n(check-sat)\n")

    def _template(self, fn: Function, coords: tuple[int, ...], static: list[tuple[int, int, int]],
                  values: Any, memo: dict, pattern: dict, layer: int, goals: list) -> tuple:
        """Per activation input a literal (numeral or free variable), the own value or a pooled value: a number (one per
        function, coords and static ``values``; in ``memo``), the literals in input order (None elsewhere), how many free
        variables, (coordinate, head, pooling, role, power) for the others (an own value: no head, and its claim's role
        and power in ``pattern`` if settled before ``layer``, else None: havoc), their inputs, ``same`` and its field."""
        key, values = values, (values,) if len(static) == 1 and type(values) is not tuple else values
        act, known = fn.layer.activation, {k: v for (_, _, k), v in zip(static, values)}
        residual = self._residuals.get((id(act), coords, key))  # once per activation: layers that share one large
        if residual is None:  # activation each evaluated it again (red team, round 9)
            residual = self._residuals[(id(act), coords, key)] = partial(act, list(coords), known)[1]
        literals: list[str | None] = []
        inputs, free = [], 0
        for k in range(act.n_inputs):
            literals.append(numeral(known[k]) if k in known else None if k in residual else f"f{free}")
            free += k not in known and k not in residual
            inputs += [k] if literals[-1] is None else []
        own = {c: (f, power) if settle < layer else (None, None) for c, (f, power, settle) in pattern.items()}
        slots = [(k, None, None, *own.get(k, (None, None))) if k < self.d else
                 (k % self.d, self.sets[(fn.number, k // self.d - 1)], fn.layer.heads[k // self.d - 1].pooling, None, None)
                 for k in inputs]
        number = self._templates.setdefault((fn.number, coords, values), len(self._templates))
        fields = {f for _, among, _, f, _ in slots if among is None and f is not None}  # one, the goal's too, no member:
        same = {} if len(fields) == 1 == len({f for f, _ in goals} | fields) and all(s[1] is None for s in slots) else None
        return memo.setdefault(key, (number, literals, free, slots, inputs, same, same is not None and fields.pop()))


def frame_changes(fn: Function, transformer: Transformer, rows: Sequence[Sequence[Number]], structural: set[int],
                  sets: dict[tuple[int, int], list[tuple[int, ...]]], budget: Reads, left: list[int]) -> list[str]:
    """S8: F's output c ∈ Σ equals the encoded value at every position, given Σ unchanged before F; ``left``: the
    gate evaluations all functions may spend (one bound: 1,000 layers sharing one large activation had one each)."""
    act, d = fn.layer.activation, transformer.dimension
    problems = []
    for c in sorted(structural):
        root = act.gates[act.outputs[c]]
        if root.op == "input" and root.index == c:
            continue  # the identity x.c
        needed = reads(act, [act.outputs[c]])
        if any(k % d not in structural for k in needed):
            problems.append(f"layer {fn.layers[0]}: structural coordinate {transformer.coordinates[c]} is computed "
                            f"from value coordinates")
            continue
        left[0] -= len(rows) * len(cone(act, [act.outputs[c]]))
        if left[0] < 0:
            raise NotChecked(f"layer {fn.layers[0]}: structural coordinate {transformer.coordinates[c]} is computed "
                             "by circuits too large to evaluate at every position (all layers' together)")
        for p, row in enumerate(rows):
            known = {}
            for k in needed:
                owner, cc = divmod(k, d)
                known[k] = row[cc] if owner == 0 else pooled(fn.layer.heads[owner - 1].pooling,
                                                             sets[(fn.number, owner - 1)][p], rows, cc, budget)
            value = partial(act, [c], known)[0][0]
            if value != row[c]:
                problems.append(f"layer {fn.layers[0]} changes structural coordinate {transformer.coordinates[c]} "
                                f"at position {p} ({row[c]} -> {value})")
                break
    return problems
