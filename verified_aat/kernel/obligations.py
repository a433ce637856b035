"""Per-position obligations (docs/soundness.md, S9), rendered as SMT-LIB lemmas.

For a layer function F (a distinct layer) and a position p whose claims
settle at layers S_p, the kernel checks p once per s ∈ S_p, at the first
layer ℓ ≥ s that uses F: with every claim settled by ℓ − 1 as a hypothesis
(its gate value a variable y, shared by all positions), every other value
coordinate a fresh *havoc* variable h, and structural inputs as numerals,
F's outputs at p equal p's claims settled by ℓ.  Every later layer using F
is a substitution instance of that lemma (S9 in docs/soundness.md).

The rendering is the one docs/certificates.md specifies; identical texts are
one lemma.  A per-position *shape key* (the tuple of argument and claim
tokens) avoids re-rendering texts that were already seen.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import Counter
from typing import Any, Sequence

from .circuits import cone, mean, partial, reads
from .data import Circuit, Layer, NotChecked, Number, Transformer
from .derivation import Derivation, Function, Lemma
from .schedule import Claims
from .smt import HEADER, LOGIC, SGN, declare, define_fun, numeral

PARALLEL_MIN_POSITIONS = 200_000  # below this, sending the inputs to workers costs more than it saves

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
    if pooling == "leftmost":
        return rows[members[0]][c]
    if pooling == "rightmost":
        return rows[members[-1]][c]
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
        self.gates = circuit.gates
        self.budget = budget
        self.t = transformer
        self.d = transformer.dimension
        self.rows = rows
        self.claims = claims
        self.structural = structural
        self.sets = sets
        self.derivation = Derivation()
        self._prefix: dict[tuple[int, tuple[int, ...]], str] = {}
        self._templates: dict[Any, tuple[int, list, int, list]] = {}  # see _template
        self._shapes: dict[Any, str] = {}  # shape key → lemma id (per range of positions)
        self._found: dict[str, list] = {}  # lemma id → [text, kind, uses, order key, where] (per range)
        self._counts: Counter = Counter()
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
            lemma = self.derivation.lemmas.get(digest)
            if lemma is None:
                lemma = self.derivation.lemmas[digest] = Lemma(kind, text, where=where)
            lemma.uses += uses
        return self.derivation

    def _run_range(self, functions: list[Function], blocks: list[range]) -> tuple[dict, Counter]:
        """The obligations of the positions in ``blocks`` (increasing): lemma id → [text, kind, uses, order
        key, where], and the counts by kind."""
        self._found: dict[str, list] = {}
        self._counts: Counter = Counter()
        self._shapes = {}
        # claims are shared dicts: one (settle, coordinate) signature per claim, one object per content
        signatures: dict[int, tuple[tuple[int, int], ...]] = {}
        interned: dict[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] = {}
        claims, local_kinds, frame_kinds, use = self.claims, self._local_kinds, self._frame_kinds, self._use
        for f_index, fn in enumerate(functions):
            plans: dict[int, list[tuple[int, bool, tuple[int, ...], list]]] = {}  # by signature object
            for p in (p for block in blocks for p in block):
                claim = claims[p]
                if not claim:
                    continue
                signature = signatures.get(id(claim))
                if signature is None:
                    found = tuple(sorted((s, c) for c, (_, _, s) in claim.items()))
                    signature = signatures[id(claim)] = interned.setdefault(found, found)
                plan = plans.get(id(signature))
                if plan is None:
                    plan = plans[id(signature)] = self._plan(fn, signature)
                for k, (layer, local, coords, static) in enumerate(plan):
                    use(fn, p, layer, local_kinds[p] if local else frame_kinds[p], coords, static, (f_index, p, k))
        return self._found, self._counts

    def set_roles(self, role_kinds: list[str], frame_kinds: list[str]) -> None:
        """Obligation kinds: local-step:<gate op or role kind>, frame:<role kind> (one string per kind)."""
        local = {kind: "local-step:" + kind for kind in set(role_kinds)}
        frame = {kind: "frame:" + kind for kind in set(frame_kinds)}
        self._local_kinds, self._frame_kinds = list(map(local.__getitem__, role_kinds)), list(map(frame.__getitem__, frame_kinds))

    def _plan(self, fn: Function, signature: tuple[tuple[int, int], ...]) -> list[tuple[int, bool, tuple[int, ...], list]]:
        """Where F checks a position whose claims settle as ``signature`` ((settle, coordinate) pairs): at the first
        layer ≥ each settle layer, the goal's coordinates (the claims settled by then, increasing) and static reads."""
        settles, act, plan = {s for s, _ in signature}, fn.layer.activation, []
        at = {fn.layers[i] for i in (bisect.bisect_left(fn.layers, s) for s in settles) if i < len(fn.layers)}
        for layer in sorted(at):
            coords = tuple(sorted(c for s, c in signature if s <= layer))
            static = [divmod(k, self.d) + (k,) for k in sorted(reads(act, [act.outputs[c] for c in coords]))
                      if k % self.d in self.structural]
            plan.append((layer, layer in settles, coords, static))
        return plan

    # -- one obligation -------------------------------------------------------------------
    def _use(self, fn: Function, p: int, layer: int, kind: str, coords: tuple[int, ...],
             static: list[tuple[int, int, int]], order: tuple) -> None:
        """The obligation of p under F at ``layer``, whose goal is the claims on ``coords`` (with ``static``, their
        structural reads); ``order`` is its place in the sequential derivation (for the merge)."""
        # long because it is the derivation's inner loop (once per position, layer and goal): its closures share
        # the obligation's variable names (ys, hs) as locals, which helpers would pass or look up on every value
        claim = self.claims[p]
        row, heads = self.rows[p], fn.layer.heads
        values = tuple([row[c] if owner == 0 else pooled(heads[owner - 1].pooling, self.sets[(fn.number, owner - 1)][p],
                                                          self.rows, c, self.budget) for owner, c, _ in static])
        tkey = (fn.number, coords, values)  # ``static`` is fixed by (function, coords): the values name the inputs
        template = self._templates.get(tkey)
        if template is None:
            template = self._templates[tkey] = self._template(fn, coords, {k: v for (_, _, k), v in zip(static, values)})
        ys: dict[int, str] = {}
        hs: dict[tuple[int, int], str] = {}
        gates, claims, limit, constants = self.gates, self.claims, layer - 1, self._constants

        def gate_value(g: int) -> str:  # a constant's numeral, else the gate's variable
            name = ys.get(g) or constants.get(g)
            if name is None:
                name = ys[g] = f"y{len(ys)}"
            return name

        def value_at(j: int, c: int) -> str:
            entry = claims[j].get(c)
            if entry is not None and entry[2] <= limit:
                v = gate_value(entry[0])
                return v if entry[1] == 1 else f"(* {v} {v})"
            name = hs.get((j, c))
            if name is None:
                name = hs[(j, c)] = f"h{len(hs)}"
            return name

        members_of = self.sets
        args = template[1].copy()  # the literals in place: own and pooled values go in, in input order
        for i, slot in template[3]:
            if slot[0] == "own":
                args[i] = value_at(p, slot[1])
            else:
                _, h, c, pooling = slot
                members = members_of[(fn.number, h)][p]
                if pooling == "leftmost":
                    args[i] = value_at(members[0], c)
                elif pooling == "rightmost" or len(members) == 1:
                    args[i] = value_at(members[-1], c)
                else:
                    self.budget.spend(len(members))
                    args[i] = f"(/ (+ {' '.join([value_at(j, c) for j in members])}) {len(members)}.0)"
        expected = []
        for c in coords:
            g, power, _ = claim[c]
            gate = gates[g]
            if gate.op in ("const", "input") or g in ys:
                rhs = gate_value(g)
            else:
                parts = [gate_value(a) for a in gate.args]
                if gate.op == "sign":
                    rhs = f"(sgn {parts[0]})"
                elif not parts:
                    rhs = "0.0"
                elif len(parts) == 1:
                    rhs = parts[0]
                else:
                    rhs = f"({'+' if gate.op == 'add' else '*'} {' '.join(parts)})"
            expected.append(rhs if power == 1 else f"(* {rhs} {rhs})")
        shape = (template[0], tuple(args), tuple(expected), len(ys), len(hs))
        self._counts[kind] += 1
        seen = self._shapes.get(shape)
        if seen is not None:
            self._found[seen][2] += 1
            return
        joined = " ".join(args)
        names = self.t.coordinates
        equations = [f"(= (out_{names[c]} {joined}) {rhs})" for c, rhs in zip(coords, expected)]
        goal = equations[0] if len(equations) == 1 else f"(and {' '.join(equations)})"
        text = (self._prefix_for(fn, coords)
                + declare([*ys.values(), *hs.values(), *(f"f{i}" for i in range(template[2]))])
                + f"(assert (not {goal}))\n(check-sat)\n")
        digest = hashlib.sha256(text.encode()).hexdigest()
        self._shapes[shape] = digest
        entry = self._found.get(digest)
        if entry is None:
            self._found[digest] = [text, kind, 1, order, f"layer {layer}, position {p}"]
        else:
            entry[2] += 1

    def _template(self, fn: Function, coords: tuple[int, ...], known: dict[int, Number]) -> tuple[int, list, int, list]:
        """Per activation input: a literal (numeral or free variable), the own value, or a pooled value; then the
        literals in input order (None elsewhere) and the (input, slot) pairs of the others."""
        act = fn.layer.activation
        residual = partial(act, list(coords), known)[1]
        slots: list[tuple] = []
        free = 0
        for k in range(act.n_inputs):
            owner, c = divmod(k, self.d)
            if k in known:
                slots.append(("lit", numeral(known[k])))
            elif k not in residual:
                slots.append(("lit", f"f{free}"))
                free += 1
            elif owner == 0:
                slots.append(("own", c))
            else:
                slots.append(("pool", owner - 1, c, fn.layer.heads[owner - 1].pooling))
        return (len(self._templates), [s[1] if s[0] == "lit" else None for s in slots], free,
                [(k, s) for k, s in enumerate(slots) if s[0] != "lit"])

    def _prefix_for(self, fn: Function, coords: tuple[int, ...]) -> str:
        key = (fn.number, coords)
        text = self._prefix.get(key)
        if text is None:
            params = activation_params(self.t, fn.layer)
            funs = [define_fun(f"out_{self.t.coordinates[c]}", fn.layer.activation, c, params) for c in coords]
            text = self._prefix[key] = "\n".join([HEADER, LOGIC, SGN, *funs]) + "\n"
        return text


def frame_changes(fn: Function, transformer: Transformer, rows: Sequence[Sequence[Number]], structural: set[int],
                  sets: dict[tuple[int, int], list[tuple[int, ...]]], budget: Reads) -> list[str]:
    """S8: F's output c ∈ Σ equals the encoded value at every position, given Σ unchanged before F."""
    act = fn.layer.activation
    d = transformer.dimension
    problems = []
    for c in sorted(structural):
        root = act.gates[act.outputs[c]]
        if root.op == "input" and root.index == c:
            continue  # the identity x.c
        needed = reads(act, [act.outputs[c]])
        if len(rows) * len(cone(act, [act.outputs[c]])) > max(10**7, 128 * len(rows)):
            raise NotChecked(f"layer {fn.layers[0]}: structural coordinate {transformer.coordinates[c]} is computed "
                             "by a circuit too large to evaluate at every position")
        if any(k % d not in structural for k in needed):
            problems.append(f"layer {fn.layers[0]}: structural coordinate {transformer.coordinates[c]} is computed "
                            f"from value coordinates")
            continue
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

