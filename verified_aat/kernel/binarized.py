"""The link from the certified (binarized) circuit B back to the user's circuit C (docs/soundness.md B1–B5): the
``original`` section's C, its hash and per gate g of C the gate ``roots[g]`` of B that computes it (a hint), proved
by induction over C with exact structural identities only."""

from __future__ import annotations

from collections import Counter

from .data import as_dict, as_int, as_list, counted, load_structure, need
from .context import Context
from .problems import Problem
from .rules import sha256_json

TREE_WORK = 4  # tree gates visited per gate of B (and per operand of C) before the check gives up


def load_original(ctx: Context) -> list[str]:
    """B1: the section is well formed, C loads with the kernel's reader, its hash is the stated one, C has B's inputs,
    outputs and domain; every root names a gate of B (checks.py enters B1-B5 only with the section, B3-B5 after B1)."""
    sec = as_dict(ctx.doc["original"], "$.original", {"circuit", "sha256", "roots"})
    circuit = sec["circuit"]
    C = load_structure(circuit, "$.original.circuit")
    B = ctx.circuit
    assert B is not None
    if sec["sha256"] != (digest := sha256_json(circuit)):
        return [Problem("the circuit before binarization has hash {mine:16}, the section says {given:16}",
                        {"mine": digest, "given": sec["sha256"]})]
    if circuit.get("domain") != ctx.domain:
        return [Problem("the circuit before binarization is over {given!r:20}, the certified one over {domain!r}",
                        {"given": circuit.get("domain"), "domain": ctx.domain})]
    if (C.n_inputs, len(C.outputs)) != (B.n_inputs, len(B.outputs)):
        return [f"the circuit before binarization has {counted(C.n_inputs, 'input')} and {counted(len(C.outputs), 'output')}, "
                f"the certified one {B.n_inputs} and {len(B.outputs)}"]
    roots = as_list(sec["roots"], "$.original.roots", len(C.gates), size=False)
    need(len(roots) == len(C.gates), "$.original.roots", f"needs one gate of B per gate of C ({len(C.gates)})")
    for g, r in enumerate(roots):
        as_int(r, f"$.original.roots[{g}]", 0, len(B.gates) - 1)
    ctx.original, ctx.original_roots, ctx.hashes["original"] = C, tuple(roots), digest
    return []


def gate_failures(ctx: Context, trees: bool = False) -> list[str | Problem]:
    """B3: inputs, constants and signs of C are B's same gates over the roots of their operands; with ``trees``, B4:
    every sum or product of C is a tree of B's gates of the same op over its operands' roots (one walk, two checks)."""
    C, B, roots = ctx.original, ctx.circuit, ctx.original_roots
    assert C is not None and B is not None
    budget = TREE_WORK * (len(B.gates) + sum(len(g.args) for g in C.gates)) + 16
    problems: list[str | Problem] = []
    for g, gate in enumerate(C.gates):
        if (gate.op in ("add", "mul")) != trees:
            continue
        root, wanted = B.gates[roots[g]], Counter(roots[a] for a in gate.args)
        if not trees:  # an input is B's same input; a constant or sign the same op, value and (rooted) operand
            if not (roots[g] == B.input_gates[gate.index] if gate.op == "input" else  # type: ignore[index]
                    (root.op, root.value, root.args) == (gate.op, gate.value, tuple(roots[a] for a in gate.args))):
                problems.append(Problem("gate {g} of C ({op}) has no equal gate in B: its root {root} is {image:120}",
                                        {"g": g, "op": gate.op, "root": roots[g],
                                         "image": f"{root.op}{list(root.args) if root.args else ''}"}))
        elif root.op != gate.op or roots[g] in wanted:
            problems.append(f"gate {g} of C is {gate.op} of {counted(len(gate.args), 'operand')}, but its root "
                            f"{roots[g]} in B is {'one of its operands' if roots[g] in wanted else root.op}, not a "
                            f"tree of {gate.op} gates above them")
        else:
            leaves: Counter[int] = Counter()
            stack = [roots[g]]
            while stack:
                budget -= 1
                if budget < 0:
                    ctx.unchecked.append("original-trees: the trees share so many gates that the kernel's work "
                                         "bound is reached (not checked)")
                    return problems
                k = stack.pop()
                if k in wanted or B.gates[k].op != gate.op:
                    leaves[k] += 1
                else:
                    stack.extend(B.gates[k].args)
            if leaves != wanted:
                missing, extra = sorted((wanted - leaves).elements()), sorted((leaves - wanted).elements())
                problems.append(Problem("gate {g} of C is {op} of B's gates {wanted:80}, but the {op} tree under B's gate "
                                        "{root} lacks {missing:40} and has {extra:40} as leaves",
                                        {"g": g, "op": gate.op, "wanted": sorted(wanted.elements()), "root": roots[g],
                                         "missing": missing, "extra": extra}))
        if len(problems) == 3:
            break
    return problems


def output_failures(ctx: Context) -> list[str]:
    """B5: output j of C is output j of B (so T's read-out of B(x) is C(x))."""
    C, B, roots = ctx.original, ctx.circuit, ctx.original_roots
    assert C is not None and B is not None
    return [f"output {j} of C is gate {o}, whose root {roots[o]} is not B's output {j} (gate {b})"
            for j, (o, b) in enumerate(zip(C.outputs, B.outputs)) if roots[o] != b]
