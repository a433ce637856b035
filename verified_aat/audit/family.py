"""The uniform family U_N as data: instantiate any family at a length N (the engine's side of V2).

A family (docs/certificates.md, "Uniform families") names the index range of every sum of the
unrolling and the gates of every gadget; the kernel's own family is
:data:`verified_aat.kernel.audit_family.FAMILY`, the description of its unroller.  The kernel only
compares a certificate's family with its own.  This module *interprets* a family, so that a changed
one (``audit --defect NAME``: a range cut at 32, a count that saturates, a comparison with its
operands swapped) can be built at a given N and run on a sequence, to find the first N where it is
wrong and a witness there.  :func:`gadgets_of` turns a family into the :class:`~.unroll.Gadgets` that
:func:`~.unroll.unroll` builds with; the kernel's family gives exactly the kernel's gates
(``tests/test_audit_family.py``).
"""

from __future__ import annotations

import ast
import copy
import json
from fractions import Fraction
from typing import Any

from ..circuits.builder import Wire
from ..errors import InputError
from .unroll import Builder, Gadgets

Family = dict[str, Any]
_NAMES = {"N", "j", "m"}
_FUNCS = {"min": min, "max": max}


def kernel_family() -> Family:
    """A copy of the kernel's family (the only one an all-N certificate may carry)."""
    from ..kernel.audit_family import FAMILY
    return copy.deepcopy(FAMILY)


def same_family(a: Family, b: Family) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def value(expression: str, env: dict[str, int]) -> Fraction:
    """An index expression (integers, N, j, m, + − * /, min, max) at ``env``, exactly."""
    try:
        tree = ast.parse(expression.replace("−", "-"), mode="eval").body
    except SyntaxError:
        raise InputError(f"{expression!r} is not an index expression") from None
    return _eval(tree, env, expression)


def _eval(node: ast.AST, env: dict[str, int], text: str) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.Name) and node.id in _NAMES and node.id in env:
        return Fraction(env[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env, text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _eval(node.left, env, text), _eval(node.right, env, text)
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise InputError(f"{text!r} divides by 0")
            return a / b
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
            and node.args and not node.keywords):
        return _FUNCS[node.func.id](_eval(a, env, text) for a in node.args)
    raise InputError(f"{text!r} is not an index expression (integers, N, j, m, + - * /, min, max)")


def indices(family: Family, name: str, n: int, j: int = 0) -> list[int]:
    """The indices of range ``name`` at length N = n (and position j), in increasing order."""
    spec = family["ranges"][name]
    env = {"N": n, "j": j}
    lo, hi = value(spec["from"], env), value(spec["to"], env)
    skip = value(spec["except"], env) if "except" in spec else None
    return [k for k in range(int(max(lo, 0)), int(hi)) if k != skip]


def differs_at(family: Family, other: Family, n: int) -> bool:
    """Whether the two families build different gates at length n (ranges or gadgets)."""
    if family["gadgets"] != other["gadgets"]:
        return True
    return any(indices(family, name, n, j) != indices(other, name, n, j)
               for name in family["ranges"] for j in range(n))


class _Runner:
    """Builds a family's gadgets into an unrolling builder."""

    def __init__(self, family: Family):
        self.family = family

    def run(self, b: Builder, name: str, inputs: dict[str, Wire], env: dict[str, int]) -> Wire:
        gadget = self.family["gadgets"][name]
        for q in gadget.get("constants", []):
            b.const(value(q, env))
        wires: list[Wire] = []
        for op, *args in gadget["gates"]:
            vals = [wires[a] if type(a) is int else b.const(value(a[2:], env)) if a.startswith("c:") else inputs[a]
                    for a in args]
            if op == "add":
                wires.append(b.add(*vals))
            elif op == "mul":
                wires.append(b.mul(*vals))
            elif op == "sign":
                wires.append(b.sign(*vals))
            else:  # another gadget, on its inputs in order
                inner = self.family["gadgets"][op]["inputs"]
                wires.append(self.run(b, op, dict(zip(inner, vals)), env))
        return wires[-1]

    def argmax(self, b: Builder, scores: list[list[Wire]]) -> list[list[Wire]]:
        n = len(scores)
        b.const(1), b.const(-1), b.const(Fraction(1, 2))
        marks = []
        for i in range(n):
            negated = [self.run(b, "negate", {"s_j": scores[i][j]}, {"N": n}) for j in range(n)]
            row = []
            for j in range(n):
                terms = [self.run(b, "gt", {"s_k": scores[i][k], "s_j": scores[i][j], "neg_j": negated[j]},
                                  {"N": n, "j": j}) for k in indices(self.family, "argmax", n, j)]
                row.append(self.run(b, "none", {"sum": b.add(*terms)}, {"N": n, "j": j}))
            marks.append(row)
        return marks

    def average(self, b: Builder, marks: list[Wire], xs: list[list[Wire]]) -> list[Wire]:
        n, d = len(xs), len(xs[0])
        count = b.add(*(marks[j] for j in indices(self.family, "count", n)))
        pool = indices(self.family, "pool", n)
        sums = [b.add(*(b.mul(marks[j], xs[j][c]) for j in pool)) for c in range(d)]
        terms = [self.run(b, "reciprocal_term", {"count": count}, {"N": n, "m": m})
                 for m in indices(self.family, "reciprocal", n)]
        reciprocal = b.add(*terms)
        return [self.run(b, "average", {"sum": sums[c], "reciprocal": reciprocal}, {"N": n}) for c in range(d)]

    def unique(self, b: Builder, marks: list[Wire], xs: list[list[Wire]], leftmost: bool) -> list[Wire]:
        n, d = len(xs), len(xs[0])
        side = "leftmost" if leftmost else "rightmost"
        firsts = [self.run(b, "select", {"mark": marks[j],
                                         "prefix": b.add(*(marks[k] for k in indices(self.family, side, n, j)))},
                           {"N": n, "j": j}) for j in range(n)]
        pool = indices(self.family, "pool", n)
        return [b.add(*(b.mul(firsts[j], xs[j][c]) for j in pool)) for c in range(d)]


def gadgets_of(family: Family, name: str = "") -> Gadgets:
    """The :class:`~.unroll.Gadgets` that build ``family`` (``name``: the defect's, for circuit names)."""
    runner = _Runner(family)
    return Gadgets(name, runner.argmax, runner.average, runner.unique)


def literals(family: Family) -> list[int]:
    """The integers written in the family's ranges (where a changed range may start to differ)."""
    found = []
    for spec in family["ranges"].values():
        for key in ("from", "to", "except"):
            if key in spec:
                found += [abs(node.value) for node in ast.walk(ast.parse(spec[key].replace("−", "-"), mode="eval"))
                          if isinstance(node, ast.Constant) and type(node.value) is int]
    return found
