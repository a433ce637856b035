"""Layering of verified_aat: no module import cycle, no package arrow outside the table below.

The analyser reads every module with ``ast`` and counts every import: at module level, inside
functions (lazy imports are arrows too) and under ``if TYPE_CHECKING:``; relative imports are
resolved against the importing module's package.  A *unit* is a top-level subpackage of
verified_aat (``circuits``, ``kernel``, ...) or a top-level module (``api``, ``display``, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "verified_aat"

# Shared utilities: leaves (they import no other unit, or only each other) that every unit may import.
SHARED = {"errors", "status", "limits", "files", "wording", "gc_pause", "display", "json_envelope", "json_lines"}

# unit -> the units it may import, besides SHARED.  Lower units never import higher ones.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),            # the one InputError and the exit codes: imports nothing
    "status": set(),            # Status / Verdict enums: imports nothing
    "limits": set(),            # resource limits: imports nothing
    "wording": set(),           # English helpers: imports nothing
    "gc_pause": set(),          # a context manager around the garbage collector: imports nothing
    "display": {"wording"},     # repr/HTML formatting of duck-typed values: of verified_aat only counted nouns
    "files": {"errors"},        # reading input files safely, bad input as InputError
    "json_envelope": {"errors"},  # the --json envelope and its exit codes
    "json_lines": set(),        # the line of a value in a JSON text (Locator): imports nothing
    "kernel": set(),            # the trusted core: self-contained, only kernel/ (asserted separately too)
    "circuits": set(),          # the arithmetic-circuit IR, netlists and their formats: the bottom stage
    "transformer": {"circuits"},  # transformers (scores and activations are circuits) and their engines
    "constructions": {"circuits", "transformer"},  # a circuit's encoding and the transformer T_K built for it
    "export": {"circuits", "transformer"},  # npz / ONNX of a transformer
    "refutation": {"circuits", "constructions", "transformer"},  # counterexample search on T_K
    "certificates": {"circuits", "constructions", "transformer"},  # certificate documents a certify run writes
    "symbolic": {"certificates", "circuits", "constructions", "refutation", "transformer"},  # obligations, certify
    "schematic": {"certificates", "circuits", "constructions", "kernel", "refutation", "symbolic", "transformer"},
    # any-C proofs; symbolic: the engine's key-lemma prover for the witness replay
    "audit": {"certificates", "circuits", "constructions", "kernel", "pipeline", "schematic", "symbolic", "transformer"},
    # unroll T, audit; schematic: the proof-object search both provers share; pipeline: the round trip's link 1 is
    # certify's own (the engine, then the kernel)
    "pipeline": {"certificates", "circuits", "constructions", "kernel", "shards", "symbolic", "transformer"},
    # certify end to end: the engine's stages, then the kernel's verdict
    "results": {"kernel"},
    "given_circuit": {"circuits", "constructions", "kernel"},
    "shards": set(),            # a Dask client that runs a derivation's stripes on workers (the callers' code)  # check --circuit: bad input, then the kernel's readers      # typed wrappers of the kernel's report for the API
    "report": {"certificates", "circuits", "constructions", "refutation", "results", "symbolic",
               "transformer"},  # HTML report pages of results and certificates (below api and cli)
    "api": {"audit", "certificates", "circuits", "constructions", "given_circuit", "kernel", "pipeline", "refutation", "results", "shards",
            "schematic", "symbolic", "transformer"},  # the Python API: the top, with the CLI
    "cli": {"api", "audit", "certificates", "circuits", "constructions", "export", "kernel", "pipeline", "report", "shards",
            "results", "symbolic", "transformer"},  # the command line: the top; results: check's
    # transformer line from the kernel's readers alone
    "__init__": {"api", "circuits", "results"},  # `import verified_aat as va`: re-exports the API
}
TOP = {"api", "cli", "__init__"}  # nothing below these may import them
DEMO = {"verified_aat.audit.mutants"}  # deliberately broken unrollings: tests and demos only
# The only module that may import DEMO, lazily inside functions: `audit --defect NAME` must keep working.
DEMO_USERS = {"verified_aat.cli.round_trip_cmd"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports_of(name: str, source: str, modules: set[str]) -> set[str]:
    """The verified_aat modules that module ``name`` (whose text is ``source``) imports, anywhere in it."""
    package = name if MODULES.get(name, Path()).name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names if a.name.split(".")[0] == "verified_aat")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "verified_aat":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in modules else base)  # `from . import x` imports module x
    found = set()
    for target in targets:
        while target and target not in modules:  # `import verified_aat.a.b.name` -> the module that defines it
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


GRAPH = {name: imports_of(name, path.read_text(encoding="utf-8"), set(MODULES)) for name, path in MODULES.items()}


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def package_arrows(graph: dict[str, set[str]]) -> set[tuple[str, str, str, str]]:
    """(unit, imported unit, importing module, imported module) for every import across units."""
    return {(unit(m), unit(t), m, t) for m, ts in graph.items() for t in ts if unit(m) != unit(t)}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_unit_is_in_the_table() -> None:
    units = {unit(m) for m in MODULES}
    assert units == set(ALLOWED), (sorted(units - set(ALLOWED)), sorted(set(ALLOWED) - units))
    assert SHARED <= set(ALLOWED) and TOP <= set(ALLOWED)


def test_no_module_import_cycle() -> None:
    found = cycles(GRAPH)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_package_arrow_outside_the_table() -> None:
    bad = sorted(f"{m} imports {t} ({a} -> {b})" for a, b, m, t in package_arrows(GRAPH)
                 if b not in ALLOWED[a] and not (b in SHARED and a not in SHARED))
    assert not bad, "arrows not in ALLOWED:\n" + "\n".join(bad)


def test_the_table_has_no_cycle_and_nothing_imports_the_top() -> None:
    table = {a: {b for b in ALLOWED[a] | (SHARED - {a} if a not in SHARED else set())} for a in ALLOWED}
    assert not cycles(table), cycles(table)
    assert not [(a, b) for a, bs in table.items() for b in bs if b in TOP and a not in TOP]


def test_kernel_is_self_contained() -> None:
    outside = sorted(f"{m} imports {t}" for m, ts in GRAPH.items() if unit(m) == "kernel"
                     for t in ts if unit(t) != "kernel")
    assert not outside, outside


def module_level_imports(name: str) -> set[str]:
    """The verified_aat modules that ``name`` imports outside any function (what importing it runs)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    body = [node for node in tree.body if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                    ast.ClassDef))]
    return imports_of(name, ast.unparse(ast.Module(body=body, type_ignores=[])), set(MODULES))


def test_no_production_module_imports_the_demo_mutants() -> None:
    assert DEMO <= set(MODULES)
    users = {m for m, ts in GRAPH.items() if ts & DEMO}
    assert users <= DEMO_USERS, sorted(users - DEMO_USERS)
    assert not [m for m in DEMO_USERS if module_level_imports(m) & DEMO]  # lazily: only `--defect` loads it
    importers_of_unroll = {m for m, ts in GRAPH.items() if "verified_aat.audit.unroll" in ts}
    assert "verified_aat.audit.mutants" in importers_of_unroll  # the arrow goes from the demo to production
    assert not GRAPH["verified_aat.audit.unroll"] & DEMO


# -- the analyser itself can fail -------------------------------------------------------

def test_analyser_sees_lazy_relative_and_type_checking_imports() -> None:
    modules = {"verified_aat.circuits.ir", "verified_aat.circuits.measures", "verified_aat.display",
               "verified_aat.cli", "verified_aat.cli.main", "verified_aat.errors"}
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..errors import InputError\n"
              "def f():\n    from ..display import one_line\n    from . import measures\n"
              "    import verified_aat.cli.main\n")
    assert imports_of("verified_aat.circuits.ir", source, modules) == {
        "verified_aat.errors", "verified_aat.display", "verified_aat.circuits.measures", "verified_aat.cli.main"}


def test_analyser_finds_a_cycle_and_an_upward_arrow() -> None:
    graph = {"verified_aat.circuits.ir": {"verified_aat.display"}, "verified_aat.display": {"verified_aat.circuits.ir"},
             "verified_aat.report.data": {"verified_aat.cli.json_output"}, "verified_aat.cli.json_output": set()}
    assert cycles(graph) == [["verified_aat.circuits.ir", "verified_aat.display"]]
    arrows = {(a, b) for a, b, _, _ in package_arrows(graph)}
    assert ("report", "cli") in arrows and "cli" not in ALLOWED["report"]
    assert "circuits" not in ALLOWED["display"]


@pytest.mark.parametrize("name", ["verified_aat.audit.unroll", "verified_aat.circuits.netlists",
                                  "verified_aat.transformer.exact_engine"])
def test_real_modules_have_their_known_arrows(name: str) -> None:
    """A sanity check that the graph is read from the code: these arrows exist today."""
    expected = {"verified_aat.audit.unroll": "verified_aat.audit.flat",
                "verified_aat.circuits.netlists": "verified_aat.circuits.bristol",
                "verified_aat.transformer.exact_engine": "verified_aat.transformer.exact_reference"}[name]
    assert expected in GRAPH[name]


def test_the_table_is_no_looser_than_the_code() -> None:
    """Every allowed arrow is used today (so the table is what the code does; widen it only with a reason)."""
    used = {(a, b) for a, b, _, _ in package_arrows(GRAPH)}
    unused = sorted((a, b) for a, bs in ALLOWED.items() for b in bs if (a, b) not in used)
    assert not unused, unused
