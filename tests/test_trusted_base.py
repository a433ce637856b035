"""The trusted base per kind of certificate: the kernel modules its checker runs, counted in lines.

A false ACCEPTED of a kind must fool the code on that kind's import path (module-level and
function-level relative imports, ``if TYPE_CHECKING`` blocks left out); code that can only reject
(the defence interpreter; ``problems.py``, the wording of a failed check) is counted apart.  A per-circuit
certificate without a netlist section,
checked without a netlist file, never enters the netlist link (``checks._netlist`` returns before it),
so "per-circuit" leaves out what only ``netlist_link`` imports and "per-circuit with a netlist link"
counts it; likewise the reader of a text or JSON circuit file given with ``--circuit``
(``circuit_file``, entered by the check ``given-circuit`` only when a file is given).  The README states each number; this test keeps them true.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "verified_aat" / "kernel"
KINDS = {"per-circuit": ("checks", {"netlist_link", "circuit_file"}),
         "per-circuit with a circuit file": ("checks", {"netlist_link"}),
         "per-circuit with a netlist link": ("checks", {"circuit_file"}),
         "schematic": ("schematic", set()), "audit (listed N)": ("audit_proof", set()),
         "audit (every N)": ("audit_family", set())}  # kind: (root, modules its checker does not enter)
REJECT_ONLY = {"defence", "problems"}
TARGET = 3_000  # issue 19
OVER_TARGET = {"per-circuit": 3_459, "per-circuit with a circuit file": 3_700, "per-circuit with a netlist link": 4_544}  # not there yet: no growth


def _imports(module: str, modules: set[str]) -> set[str]:
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                for other in child.orelse:
                    walk(other)
                continue
            if isinstance(child, ast.ImportFrom) and child.level == 1:
                found.update([child.module.split(".")[0]] if child.module else [a.name for a in child.names])
            walk(child)
    walk(ast.parse((KERNEL / f"{module}.py").read_text()))
    return found & modules


def trusted_base() -> dict[str, tuple[int, list[str]]]:
    modules = {p.stem for p in KERNEL.glob("*.py")}
    edges = {m: _imports(m, modules) for m in modules}
    lines = {m: len((KERNEL / f"{m}.py").read_text().splitlines()) for m in modules}
    out = {}
    for kind, (root, skipped) in KINDS.items():
        seen, stack = set(), [root]
        while stack:
            m = stack.pop()
            if m not in seen and m not in skipped:
                seen.add(m)
                stack += edges[m]
        counted = sorted(seen - REJECT_ONLY)
        out[kind] = (sum(lines[m] for m in counted), counted)
    return out


def test_the_readme_states_each_kinds_trusted_base() -> None:
    readme = (ROOT / "README.md").read_text()
    for kind, (lines, modules) in trusted_base().items():
        assert f"| {kind} | {lines:,} |" in readme, (kind, lines, modules)


def test_the_audit_kinds_do_not_run_the_per_circuit_derivation() -> None:
    base = trusted_base()
    for kind in ("audit (listed N)", "audit (every N)"):
        lines, modules = base[kind]
        assert not {"checks", "obligations", "layouts", "netlist_link", "schedule"} & set(modules), modules


def test_the_schematic_kind_does_not_run_the_per_circuit_derivation() -> None:
    lines, modules = trusted_base()["schematic"]
    assert not {"checks", "obligations", "encoding", "schedule", "attention", "circuits", "netlist_link"} & set(modules)


def test_each_kinds_trusted_base_is_within_the_target() -> None:
    for kind, (lines, _) in trusted_base().items():
        assert lines <= OVER_TARGET.get(kind, TARGET), (kind, lines)
