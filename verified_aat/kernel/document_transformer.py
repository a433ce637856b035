"""Whether a certificate's transformer is its construction document's own T_K = prefix + K × block + suffix
(``info.transformer = "own"``; docs/soundness.md S2, ``own-transformer``, and P2), circuit by circuit as hash-consed
terms (argument order matters; gate numbering and duplicate gates do not). It can only reject, or add "X's own T_K".
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .data import Bilinear, Circuit, Malformed, Transformer, need, read_numeral
from .problems import Problem

_DEFINITION = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.\[\]\-]*)\s*=\s*(const|add|mul|sign)\b(.*)\Z")
_LITERAL = re.compile(r"([+-]?)(\d+(?:/\d+)?|\d+\.\d*|\.\d+)\Z", re.ASCII)  # -3, +7/2, .5, 5.: read_literal
MAX_LINES = 100_000


def read_literal(token: str) -> Any:  # a circuit-text literal's value, else None (a name); the file readers' too
    m = _LITERAL.match(token)
    value = read_numeral(("0" + m[2] if m[2][0] == "." else m[2]).removesuffix(".")) if m else None
    return None if value is None else -value if m[1] == "-" else value  # type: ignore[index]


class Terms:
    """Hash-consed terms: equal circuits (up to numbering and duplicates) get equal term ids."""

    def __init__(self) -> None:
        self.ids: dict[tuple[Any, ...], int] = {}
        self.read: dict[tuple[Any, ...], tuple[int, ...] | None] = {}  # of_text by (function, inputs): ``_terms``

    def term(self, key: tuple[Any, ...]) -> int:
        return self.ids.setdefault(key, len(self.ids))

    def of_circuit(self, circuit: Circuit) -> tuple[int, ...]:
        ids: list[int] = []
        for gate in circuit.gates:
            if gate.op == "input":
                ids.append(self.term(("input", gate.index)))
            elif gate.op == "const":
                ids.append(self.term(("const", gate.value)))
            else:
                ids.append(self.term((gate.op, tuple(ids[a] for a in gate.args))))
        return tuple(ids[o] for o in circuit.outputs)

    def of_text(self, lines: Any, inputs: list[str]) -> tuple[int, ...] | None:
        """The output terms of a document circuit (lines of the text format, implicit ``inputs``, gates in any order);
        None where the kernel's reader does not read it (then T is not the document's T_K): an undefined name, a
        cycle, a constant that is not a rational the kernel reads (one p, p.d or p/q)."""
        if type(lines) is not list or len(lines) > MAX_LINES or not all(type(x) is str for x in lines):
            return None
        definitions: dict[str, tuple[str, list[str]]] = {}
        outputs: list[str] = []
        for raw in lines:
            line = raw.split("#", 1)[0].strip()
            if not line or line.split()[0] in ("circuit", "domain", "arithmetization", "provenance"):  # no terms
                continue
            if line.startswith("output ") or line == "output":
                outputs += [item.split("=", 1)[-1] for item in line.split()[1:]]
                continue
            m = _DEFINITION.match(line)
            if m is None or m.group(1) in definitions or m.group(1) in inputs:
                return None
            definitions[m.group(1)] = (m.group(2), m.group(3).split())
        known: dict[str, int] = {name: self.term(("input", k)) for k, name in enumerate(inputs)}

        def place(name: str) -> None:  # an undefined name is a constant: of its value if a rational literal
            op, args = definitions.get(name, ("const", [name]))
            need(op != "const" or len(args) == 1 and read_literal(args[0]) is not None, "$", "not a term")
            known[name] = self.term(("const", read_literal(args[0])) if op == "const"
                                    else (op, tuple(known[a] for a in args)))
        try:  # a constant's literal is walked too, harmlessly
            for ref in outputs:
                walk(ref, lambda name: definitions.get(name, ("", []))[1], lambda name: name not in known, place)
        except Malformed:
            return None
        return tuple(known[ref] for ref in outputs)


def walk(root: Any, children: Callable[[Any], list[Any]], descend: Callable[[Any], bool], place: Callable[[Any], None]
         ) -> None:
    """Depth-first from ``root`` without recursion: each name ``descend`` admits is ``place``d after its ``children``
    in order (the circuit formats' stable order, circuit_file.py's), Malformed on a cycle."""
    stack, on_stack = ([(root, 0)], {root}) if descend(root) else ([], set())
    while stack:
        name, i = stack[-1]
        if i == len(args := children(name)):
            stack.pop()
            on_stack.discard(name)
            place(name)
        elif descend(args[i]):
            need(args[i] not in on_stack, "$", "a cycle among gates")
            on_stack.add(args[i])
            stack[-1:] = [(name, i + 1), (args[i], 0)]
        else:
            stack[-1] = (name, i + 1)


def own_depth(document: Any, T: Transformer) -> int | None:
    """K with T = the document's prefix + K × block + suffix (None: T is not the document's T_K for any K)."""
    spec = document.get("transformer") if type(document) is dict else None
    if type(spec) is not dict:
        return None
    parts = [spec.get(key, []) for key in ("prefix", "block", "suffix")]
    functions = spec.get("functions", {})
    if not all(type(p) is list for p in parts) or not parts[1] or type(functions) is not dict:
        return None
    K, rest = divmod(len(T.layers) - len(parts[0]) - len(parts[2]), len(parts[1]))
    if K < 1 or rest:
        return None
    layers = parts[0] + parts[1] * K + parts[2]
    terms = Terms()
    seen: dict[int, bool] = {}
    for raw, layer in zip(layers, T.layers):
        key = id(raw), id(layer)
        if key not in seen:
            seen[key] = _same_layer(raw, layer, T.coordinates, functions, terms)
        if not seen[key]:
            return None
    return K


def _same_layer(raw: Any, layer: Any, coordinates: tuple[str, ...], functions: dict[str, Any], terms: Terms) -> bool:
    if type(raw) is not dict or type(raw.get("heads")) is not list or len(raw["heads"]) != len(layer.heads):
        return False
    for given, head in zip(raw["heads"], layer.heads):
        if type(given) is not dict or (given.get("name"), given.get("pooling")) != (head.name, head.pooling):
            return False
        score = given.get("score")
        if isinstance(head.score, Bilinear):
            if _bilinear(score, coordinates) != head.score.entries:
                return False
        else:
            inputs = [f"i.{c}" for c in coordinates] + [f"j.{c}" for c in coordinates]
            if _terms(score, functions, inputs, terms) != terms.of_circuit(head.score):
                return False
    inputs = [f"x.{c}" for c in coordinates] + [f"{h.name}.{c}" for h in layer.heads for c in coordinates]
    return _terms(raw.get("activation"), functions, inputs, terms) == terms.of_circuit(layer.activation)


def _terms(ref: Any, functions: dict[str, Any], inputs: list[str], terms: Terms) -> tuple[int, ...] | None:
    key = (ref if type(ref) is str else id(ref), *inputs)  # a function's name, or its lines: each read once (N layers
    return terms.read[key] if key in terms.read else terms.read.setdefault(key, terms.of_text(  # of one F-line
        functions.get(ref) if type(ref) is str else ref, inputs))  # function cost N·F: red team 26)


def _bilinear(score: Any, coordinates: tuple[str, ...]) -> tuple[tuple[int, int, Any], ...] | None:
    if type(entries := score.get("bilinear") if type(score) is dict else None) is not dict:
        return None
    out = []
    for key, value in entries.items():
        parts = key.split() if type(key) is str else []
        if len(parts) != 2 or not parts[0].startswith("i.") or not parts[1].startswith("j.") \
                or parts[0][2:] not in coordinates or parts[1][2:] not in coordinates \
                or type(value) is not str or read_numeral(value) is None:
            return None
        out.append((coordinates.index(parts[0][2:]), coordinates.index(parts[1][2:]), read_numeral(value)))
    return tuple(sorted(e for e in out if e[2]))  # an entry "0" is absent, as the engine's reader reads it


def own_transformer_problems(ctx: Any, info: Any) -> list[str]:
    """S2 / P2: a certificate that says its transformer is the construction's own T_K must embed exactly that."""
    if (claimed := info.get("transformer") if type(info) is dict else None) is None:
        return []
    need(claimed == "own", "$.info.transformer", "the only claim about the transformer is 'own'")
    ctx.own_depth = own_depth(ctx.construction.data, ctx.transformer)
    if ctx.own_depth is None:
        return [Problem("the certificate says its transformer is {construction}'s own T_K, but T is not the document's "
                        "prefix + K × block + suffix for any K", {"construction": ctx.doc["construction"]})]
    return []
