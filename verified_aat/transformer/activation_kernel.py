"""Activations for the exact engine: :class:`ActivationKernel`, memoised on what they read.

An activation is evaluated only on the coordinates its computed outputs read; the outputs that are
plain inputs are copied, and an earlier evaluation on equal inputs is reused (the activation is a
function of those values).  The engine decides which positions to apply it to.  Numbers are the
engine's (:mod:`.exact_kernels`: ints, GMP rationals; in a settled run also forms and ⊥).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from ..circuits.evaluate import straight_line
from ..circuits.ir import Circuit, Kind
from .exact_kernels import _normal, _sign, inner, live_gates
from .unknown import UNKNOWN, Form

#: a settled run first evaluates a key holding forms with ⊥ in their place (:meth:`ActivationKernel.apply_settled`);
#: off: always on the forms themselves, as before (the tests compare the two)
COARSE = True
WITNESS = inner(Fraction(7919, 13))  # the value of every atom in ActivationKernel._witness (any value would do)


class ActivationKernel:
    """An activation split into copied outputs and computed ones, memoised on what they read.

    ``apply(row, (pooled_1, …, pooled_H))`` gives the new vector.  Inputs are
    numbered as in the activation circuit: ``x.<c>`` is ``k = c`` and head h's
    ``<h>.<c>`` is ``k = (h + 1)·d + c``.
    """

    def __init__(self, circuit: Circuit, d: int, n_heads: int):
        self.d = d
        gates = circuit.gates
        computed = [o for o in dict.fromkeys(circuit.outputs) if gates[o].kind is not Kind.INPUT]
        live = live_gates(circuit, computed)
        self.key_inputs = sorted(g.index for i, g in enumerate(gates) if live[i] and g.kind is Kind.INPUT)
        copied = {g.index for o in circuit.outputs if (g := gates[o]).kind is Kind.INPUT}
        #: the coordinates whose new value is not the row's own (computed, or copied from elsewhere)
        self.written = frozenset(c for c, o in enumerate(circuit.outputs)
                                 if gates[o].kind is not Kind.INPUT or gates[o].index != c)
        #: per computed output (in ``compute``'s order), the coordinates it is written to
        self.slot_coords = [frozenset(c for c, o2 in enumerate(circuit.outputs) if o2 == o) for o in computed]
        #: the pooled columns each head must provide
        self.pooled_cols: list[list[int]] = [
            sorted({k - (h + 1) * d for k in set(self.key_inputs) | copied if (h + 1) * d <= k < (h + 2) * d})
            for h in range(n_heads)]
        self.memo: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # cleared, never replaced: ``_step`` reads it
        consts: dict[str, Any] = {"_sign": _sign, "_normal": _normal}
        lines = _source(circuit, d, n_heads, self.key_inputs, computed, live, consts)
        consts.update({name: inner(value) for name, value in consts.items() if isinstance(value, Fraction)})
        namespace: dict[str, Any] = dict(consts, _get=self.memo.get, _Form=Form, _U=UNKNOWN)
        exec(compile("\n".join(lines), f"<activation {circuit.name}>", "exec"), namespace)  # noqa: S102
        self.compute: Callable[..., tuple[Any, ...]] = namespace["_act"]
        self.key: Callable[..., tuple[Any, ...]] = namespace["_key"]
        self.assemble: Callable[..., tuple[Any, ...]] = namespace["_assemble"]
        #: ``step(row, pooled_1, …, pooled_H)``: :meth:`apply` when the memo holds the key's outputs, else None
        #: (one call per position, for the engine's bulk pass)
        self.step: Callable[..., tuple[Any, ...] | None] = namespace["_step"]
        #: ``settled_step(row, pooled_1, …, pooled_H, mode)``: the same for a settled run (its key may hold forms; _source)
        self.settled_step: Callable[..., tuple[Any, ...] | None] = namespace["_sstep"]
        self.evaluations = 0

    def apply(self, row: tuple[Any, ...], pooled: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
        """The new vector of one position: ``row`` itself when it does not change.

        The computed outputs come from the memo when the values they read were
        seen before, else from one evaluation.
        """
        return self.assemble(row, *pooled, self._outputs(self.key(row, *pooled)))

    def _outputs(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        vals = self.memo.get(key)
        if vals is None:
            vals = self.memo[key] = self.compute(*key)
            self.evaluations += 1
        return vals

    def apply_settled(self, row: tuple[Any, ...], pooled: tuple[tuple[Any, ...], ...],
                      forgotten: Callable[[int], frozenset[int]] | None = None, p: int = 0,
                      normal: bool = False, loose: bool = False) -> tuple[Any, ...]:
        """:meth:`apply` for a settled run, whose keys may hold forms.

        With ``forgotten`` (the coordinates of position ``p`` that the layer boundary replaces by atoms), the key
        is first evaluated with ⊥ in place of every form: a number computed so is the number computed on the
        forms (⊥ is "any value", and the operations on ⊥ give a number only where any value gives it, as
        ``0·⊥ = 0``), so the result is taken when no output is left ⊥.  When each output left ⊥ goes to a forgotten
        coordinate (surely so when ``loose``: every coordinate an output goes to is), the boundary overwrites it
        with an atom whatever the forms gave, so the result is taken too if the forms' outputs would also make a
        new row (which the boundary then maps to the same image): when the row is ``normal`` (its own boundary
        image: either way the same row), or when some output differs from the row at one value of the atoms
        (:meth:`_witness`).  Else :meth:`_apply_forms`."""
        key = self.key(row, *pooled)
        if not any(type(v) is Form for v in key):
            return self.assemble(row, *pooled, self._outputs(key))
        if forgotten is not None and COARSE:
            vals = self._outputs(tuple([UNKNOWN if type(v) is Form else v for v in key]))
            unknown = [self.slot_coords[i] for i, v in enumerate(vals) if v is UNKNOWN]
            if (not unknown or (loose or frozenset().union(*unknown) <= forgotten(p))
                    and (normal or self._witness(row, key, vals))):
                return self.assemble(row, *pooled, vals)
        return self._apply_forms(row, pooled, key)

    def _witness(self, row: tuple[Any, ...], key: tuple[Any, ...], vals: tuple[Any, ...]) -> bool:
        """Whether the outputs on the forms of ``key`` surely differ from ``row`` somewhere (``vals``: with ⊥ for
        the forms).  An output that is a number on the forms is that number at every value of the atoms, so an
        output that differs from the row at one value (each atom ``WITNESS``) is not the row's number."""
        at = self._outputs(tuple([v.const + WITNESS * sum(v.terms.values()) if type(v) is Form else v for v in key]))
        for i, v in enumerate(vals):
            if v is UNKNOWN:
                v = at[i]
                if v is UNKNOWN:
                    continue
            for c in self.slot_coords[i]:
                if v != row[c]:
                    return True
        return False

    def _apply_forms(self, row: tuple[Any, ...], pooled: tuple[tuple[Any, ...], ...],
                     key: tuple[Any, ...]) -> tuple[Any, ...]:
        """The activation on a key holding forms, memoised by its signature, the forms with their atoms renamed
        in order of appearance (−1, −2, …), so positions that differ only in which atoms they hold share one
        evaluation; the outputs are renamed back."""
        names: dict[int, int] = {}
        signature = []
        for v in key:
            if type(v) is Form:
                terms = []
                for atom, q in v.terms.items():
                    i = names.get(atom)
                    if i is None:
                        i = names[atom] = -1 - len(names)
                    terms.append((i, q))
                signature.append((v.const, tuple(terms)))  # a tuple: no number is one
            else:
                signature.append(v)
        sig = tuple(signature)
        found = self.memo.get(sig)
        if found is None:  # evaluated on the canonical forms, memoised under their signature
            found = self.memo[sig] = self.compute(*[Form(v[0], dict(v[1])) if type(v) is tuple else v for v in sig])
            self.evaluations += 1
        if any(type(v) is Form for v in found):
            back = {i: atom for atom, i in names.items()}
            found = tuple([v.renamed(back) if type(v) is Form else v for v in found])
        return self.assemble(row, *pooled, found)

    def trim_memo(self, limit: int = 1 << 20) -> None:
        """Forget the memo when it has grown past ``limit`` entries (it only saves time)."""
        if len(self.memo) > limit:
            self.memo.clear()


def _source(circuit: Circuit, d: int, n_heads: int, key_inputs: list[int], computed: list[int], live: list[bool],
            consts: dict[str, Any]) -> list[str]:
    """Python source of the kernel's functions: ``_act`` (the computed outputs on the key's values),
    ``_key`` (the values they read), ``_assemble`` (the new vector from the outputs) and ``_step`` (the
    memo's outputs assembled, or None); ``consts`` receives the constants ``_act`` names."""
    gates = circuit.gates
    args = ", ".join(["row"] + [f"p{h}" for h in range(n_heads)])

    def source(k: int) -> str:
        return f"row[{k}]" if k < d else f"p{k // d - 1}[{k % d}]"

    key_expr = "(" + "".join(f"{source(k)}, " for k in key_inputs) + ")"  # the values the computed outputs read
    param = {k: f"x{k}" for k in key_inputs}
    lines = [f"def _act({', '.join(param[k] for k in key_inputs)}):"]
    lines += straight_line(circuit, param, live, consts)
    lines.append("    return (" + "".join(f"_normal(g{o}), " for o in computed) + ")")
    slot = {o: n for n, o in enumerate(computed)}
    out = [source(gates[o].index) if gates[o].kind is Kind.INPUT else f"vals[{slot[o]}]"  # type: ignore[arg-type]
           for o in circuit.outputs]
    # the new vector, or ``row`` itself when no output differs from the coordinate it replaces
    changed = [f"{e} != row[{c}]" for c, (e, o) in enumerate(zip(out, circuit.outputs))
               if gates[o].kind is not Kind.INPUT or gates[o].index != c]
    assemble = ([f"    if not ({' or '.join(changed)}):", "        return row"] if changed else ["    return row"])
    assemble.append(f"    return ({', '.join(out)}{',' if len(out) == 1 else ''})")
    lines += [f"def _key({args}):", f"    return {key_expr}", f"def _assemble({args}, vals):", *assemble]
    lines += [f"def _step({args}):", f"    vals = _get({key_expr})", "    if vals is None:", "        return None",
              *assemble]
    # a settled run's step: a key holding forms is looked up with ⊥ in their place (``mode`` 0: it is not); the outputs
    # are taken when none is ⊥, or with ``mode`` 2 (every coordinate a computed output goes to is forgotten at this
    # position and the row is its own boundary image: ActivationKernel.apply_settled) whatever they are; None: ask
    # apply_settled
    names = [f"k{n}" for n in range(len(key_inputs))]
    some_unknown = " or ".join(f"vals[{n}] is _U" for n in range(len(computed))) or "False"
    lines += [f"def _sstep({args}, mode):", *(f"    {v} = {source(k)}" for v, k in zip(names, key_inputs))]
    if names:
        lines += [f"    if {' or '.join(f'type({v}) is _Form' for v in names)}:", "        if not mode:",
                  "            return None",
                  "        vals = _get((" + "".join(f"_U if type({v}) is _Form else {v}, " for v in names) + "))",
                  f"        if vals is None or mode == 1 and ({some_unknown}):", "            return None",
                  "    else:", "        vals = _get((" + "".join(f"{v}, " for v in names) + "))"]
    else:
        lines.append("    vals = _get(())")
    lines += ["    if vals is None:", "        return None", *assemble]
    return lines
