"""Link 3 of the round trip by partial evaluation: U_N(enc(C, x)) and C(x) as polynomials in x.

U_N's structure is concrete and x symbolic: :func:`reached` marks the gates that depend on x, those are
walked as sparse polynomials (with sign atoms) and the rest evaluated exactly once
(:func:`residual_outputs`); C's outputs become polynomials with the same atoms
(:func:`circuit_polynomials`).  Their differences are 0 by normal form, or :func:`z3_identity` decides them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..status import Status
from ..circuits.evaluate import fold_circuit
from ..circuits.ir import Circuit
from ..circuits.rationals import format_rational
from ..symbolic import polynomial as poly
from .flat import ADD, MUL, SIGN, FlatCircuit, _csr
from .unroll import flatten

Value = int | Fraction | dict  # concrete, or a sparse polynomial (poly.Poly)
PROVED, UNKNOWN = Status.PROVED, Status.UNKNOWN  # the one vocabulary (status.py)


def reached(flat: FlatCircuit, sources: Sequence[int]) -> np.ndarray:
    """Boolean mask of the gates that depend on one of the gates ``sources`` (level by level, vectorised)."""
    mask = np.zeros(flat.size, dtype=bool)
    mask[list(sources)] = True
    order = np.argsort(flat.depths, kind="stable")
    order = order[(flat.depths[order] > 0) & (flat.fanins[order] > 0)]
    levels = np.split(order, np.flatnonzero(np.diff(flat.depths[order])) + 1) if len(order) else []
    for outs in levels:
        idx, starts, _ = _csr(flat, outs)
        mask[outs] = np.logical_or.reduceat(mask[idx], starts)
    return mask


def _as_poly(v: Value) -> dict:
    return v if isinstance(v, dict) else poly.constant(Fraction(v))


def _product(values: list[Value]) -> Value:
    if any(not isinstance(v, dict) and v == 0 for v in values):
        return 0
    out = poly.constant(Fraction(1))
    for v in values:
        out = poly.mul(out, _as_poly(v))
    return out


def residual_outputs(flat: FlatCircuit, sequence: Sequence[Sequence[Any]], symbolic_inputs: dict[int, int],
                     outputs: Sequence[int], atoms: poly.SignAtoms) -> tuple[list[dict], int]:
    """The gates ``outputs`` of ``flat`` as polynomials in the variables of ``symbolic_inputs``.

    ``symbolic_inputs`` maps an input number of ``flat`` to a variable index;
    the other inputs take their values from ``sequence``.  Also returns the
    number of gates evaluated symbolically.
    """
    gates = [flat.input_gates[k] for k in symbolic_inputs]
    mask = reached(flat, gates)
    concrete = flat.evaluator.run(flatten(sequence))   # exact; right on every gate outside ``mask``
    kinds, offsets, argv = flat.kinds, flat.offsets, flat.argv
    values: dict[int, Value] = {g: poly.variable(v) for g, v in zip(gates, symbolic_inputs.values())}
    walked = np.flatnonzero(mask)
    for g in walked.tolist():
        if g in values:
            continue
        args = [values[a] if mask[a] else concrete[a] for a in argv[offsets[g]:offsets[g + 1]].tolist()]
        kind = kinds[g]
        if kind == ADD:
            value: Value = poly.add(*(_as_poly(v) for v in args))
        elif kind == MUL:
            value = _product(args)
        else:
            assert kind == SIGN
            value = atoms.sign(_as_poly(args[0]))
        values[g] = value
    return [_as_poly(values[g]) if mask[g] else poly.constant(Fraction(concrete[g])) for g in outputs], len(walked)


def circuit_polynomials(circuit: Circuit, atoms: poly.SignAtoms) -> list[dict]:
    """C's outputs as polynomials in x_0 … x_{n−1} (variable k = x_k), with the same sign atoms."""
    def product(args: list[dict]) -> dict:
        return _as_poly(_product(list(args)))

    return fold_circuit(circuit, [poly.variable(k) for k in range(circuit.n_inputs)],
                        lambda v: poly.constant(Fraction(v)), lambda args: poly.add(*args) if args else {},
                        product, lambda p: atoms.sign(p))


def _z3_term(p: dict, xs: list[Any], atom_vars: dict[int, Any]) -> Any:
    import z3
    terms = []
    for mono, coef in p.items():
        factors = [z3.RealVal(format_rational(coef))]  # str() stops at 4,300 digits (red team 19)
        for var, exp in mono:
            factors.extend([atom_vars[var] if var in atom_vars else xs[var]] * exp)
        terms.append(z3.Product(*factors) if len(factors) > 1 else factors[0])
    return z3.Sum(*terms) if len(terms) > 1 else (terms[0] if terms else z3.RealVal(0))


def z3_identity(diffs: list[dict], n_inputs: int, atoms: poly.SignAtoms, boolean: bool,
                timeout_ms: int) -> tuple[str, list[Fraction] | None, str]:
    """Whether every polynomial in ``diffs`` is 0 for all x (atoms defined as signs): proved / sat / unknown."""
    import z3
    xs = [z3.Real(f"x{k}") for k in range(n_inputs)]
    atom_vars = {index: z3.Real(f"sgn{index}") for index in atoms.atoms.values()}
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    for key, index in sorted(atoms.atoms.items(), key=lambda item: item[1]):
        arg = _z3_term(dict(key), xs, atom_vars)
        solver.add(atom_vars[index] == z3.If(arg > 0, 1, z3.If(arg < 0, -1, 0)))
    if boolean:
        solver.add(*[z3.Or(x == 0, x == 1) for x in xs])
    solver.add(z3.Or(*[_z3_term(d, xs, atom_vars) != 0 for d in diffs]))
    result = solver.check()
    if result == z3.unsat:
        return PROVED, None, ""
    if result != z3.sat:
        return UNKNOWN, None, f"z3: {solver.reason_unknown()}"
    model = solver.model()
    witness = []
    for x in xs:
        value = model.eval(x, model_completion=True)
        if not z3.is_rational_value(value):
            return UNKNOWN, None, f"z3 found an irrational x ({value}); no rational witness"
        witness.append(Fraction(value.numerator_as_long(), value.denominator_as_long()))
    return "sat", witness, ""
