"""The kernel's own reader of construction-document formulas (docs/construction-format.md; docs/soundness.md S2:
no name but the role's parameters and the document's constants, so no row can mention x), by recursive descent::

    expr  := term (('+' | '-') term)*
    term  := unary ('*' unary)*
    unary := '-' unary | atom
    atom  := RATIONAL | NAME | ('min' | 'max') '(' expr ',' expr ')' | '(' expr ')'

computed on exact numbers (``encoding.py``), or on symbolic ones for the schematic templates (``schematic_lemmas``).
"""

from __future__ import annotations

import functools
import operator
import re
from typing import Any, Mapping

from .data import MAX_BITS, Malformed, NotChecked, bits, exact, read_numeral

MAX_LENGTH = 2000
MAX_DEPTH = 60
MAX_DEGREE = 8  # a row is a polynomial of at most this degree in the parameters (keeps rows small)
_TOKEN = re.compile(r"\s*(?:(\d{1,200}(?:/\d{1,200})?)|([A-Za-z_][A-Za-z0-9_]*)|(\S))", re.ASCII)

Node = tuple  # ("num", q) | ("name", n) | (op, a[, b]) with op in + - * neg min max
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max}  # on exact numbers


def fit(value: Any) -> Any:
    """One step of a formula's arithmetic, exact, or *not checked* past MAX_BITS (960 products took 147 s to fold)."""
    if bits(value) > MAX_BITS:
        raise NotChecked(f"a construction document's formula computes a number past {MAX_BITS} bits")
    return exact(value)


def fold(node: Node, constants: Mapping[str, Any]) -> Node:
    """Named constants and constant subformulas as their values (each step fitted): computed once per document."""
    if node[0] == "name" and node[1] in constants:
        return ("num", constants[node[1]])
    if node[0] in ("num", "name"):
        return node
    args = [fold(a, constants) for a in node[1:]]
    if all(a[0] == "num" for a in args):
        values = [a[1] for a in args]
        return ("num", -values[0] if node[0] == "neg" else fit(ARITHMETIC[node[0]](*values)))
    return (node[0], *args)


def degree(node: Node, parameters: frozenset[str]) -> int:
    """The syntactic degree in the parameters (a product adds, min/max take the larger)."""
    if node[0] == "num":
        return 0
    if node[0] == "name":
        return int(node[1] in parameters)
    ds = [degree(a, parameters) for a in node[1:]]
    return sum(ds) if node[0] == "*" else max(ds)


def parse(text: Any, allowed: frozenset[str], path: str) -> Node:
    """Parse ``text``; every name must be in ``allowed``.  Problems are :class:`Malformed` at ``path``."""
    if type(text) is not str or not text.strip():
        raise Malformed(path, "expected a formula as a non-empty string")
    if len(text) > MAX_LENGTH:
        raise NotChecked(f"{path}: a formula longer than {MAX_LENGTH} characters, past the kernel's limit")
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        number, name, other = m.groups()
        if other is not None and other not in "+-*(),":
            raise _Parser([], text, allowed, path).fail("unexpected character {other!r}", other=other)
        tokens.append(("num", number) if number else ("name", name) if name else ("op", other))
    parser = _Parser(tokens, text, allowed, path)
    node = parser.expr(0)
    if parser.pos != len(tokens):
        raise parser.fail("unexpected {token!r}", token=tokens[parser.pos][1])
    return node


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], text: str, allowed: frozenset[str], path: str):
        self.tokens, self.text, self.allowed, self.path, self.pos = tokens, text, allowed, path, 0

    def fail(self, message: str, **data: object) -> Malformed:
        return Malformed(self.path, message + " in formula {formula!r}", {**data, "formula": self.text})

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expect(self, symbol: str) -> None:
        if self.peek() != ("op", symbol):
            raise self.fail(f"expected {symbol!r}")
        self.pos += 1

    def expr(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise NotChecked(f"{self.path}: a formula nested more than {MAX_DEPTH} deep, past the kernel's limit")
        chain = [("+", self.term(depth + 1))]
        while (token := self.peek()) in (("op", "+"), ("op", "-")):
            self.pos += 1
            chain.append((token[1], self.term(depth + 1)))  # type: ignore[index]
        return _tree(chain)

    def term(self, depth: int) -> Node:
        chain = [("*", self.unary(depth))]
        while self.peek() == ("op", "*"):
            self.pos += 1
            chain.append(("*", self.unary(depth)))
        return _tree(chain)

    def unary(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise NotChecked(f"{self.path}: a formula nested more than {MAX_DEPTH} deep, past the kernel's limit")
        if self.peek() == ("op", "-"):
            self.pos += 1
            return ("neg", self.unary(depth + 1))
        return self.atom(depth + 1)

    def atom(self, depth: int) -> Node:
        token = self.peek()
        if token is None:
            raise self.fail("unexpected end")
        kind, value = token
        self.pos += 1
        if kind == "num":
            if (number := read_numeral(value)) is None:
                raise self.fail("zero denominator")
            return ("num", number)
        if kind == "name" and value in ("min", "max"):
            self.expect("(")
            left = self.expr(depth)
            self.expect(",")
            right = self.expr(depth)
            self.expect(")")
            return (value, left, right)
        if kind == "name":
            if value not in self.allowed:
                raise self.fail("unknown name {name!r} (only the role's parameters and the constants)", name=value)
            return ("name", value)
        if value == "(":
            node = self.expr(depth)
            self.expect(")")
            return node
        raise self.fail("unexpected {token!r}", token=value)


def _tree(chain: list[tuple[str, Node]]) -> Node:  # ((a − b) + c); past 16 operands a balanced tree over the signed
    if len(chain) <= 16:  # operands: a chain's tree 999 deep took its walkers past the stack (red team, round 11)
        return functools.reduce(lambda a, b: (b[0], a, b[1]), chain[1:], chain[0][1])
    nodes = [t if op != "-" else ("neg", t) for op, t in chain]
    while len(nodes) > 1:
        nodes = [(chain[0][0], *nodes[i:i + 2]) if i + 1 < len(nodes) else nodes[i] for i in range(0, len(nodes), 2)]
    return nodes[0]
