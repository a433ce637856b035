"""The formula language of construction documents: exact rational arithmetic, no ``eval``.

A formula computes one coordinate of an encoded row from the position's parameters
(``id``, ``k``, ``c``, ``index`` for gates; ``src``, ``dst``, ``slot``, ``k``, ``c`` for edges
and sinks) and the document's named constants.  Grammar (recursive descent)::

    expr  := term (('+' | '-') term)*
    term  := unary ('*' unary)*
    unary := '-' unary | atom
    atom  := RATIONAL | NAME | ('min' | 'max') '(' expr ',' expr ')' | '(' expr ')'

``RATIONAL`` is ``3`` or ``1/2`` (a literal, never a division: a formula cannot divide by a
parameter, so evaluating it never fails).  Parsing checks every name against the allowed
set, so a bad formula is refused when the document is read, not when a circuit is encoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
import operator
from typing import Any, Callable, Mapping, Union

from ..circuits.rationals import NumeralError, read_numeral

MAX_LENGTH = 2000
MAX_DEPTH = 60
_TOKEN = re.compile(r"\s*(?:(\d+(?:/\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(.))", re.ASCII)  # "٣" is no digit here
MAX_ROW_DEGREE = 8  # a row formula's degree in the parameters: the kernel's limit (kernel/formula.py MAX_DEGREE)
MAX_FOLDED_BITS = 200_000  # one step of folding a formula's constants: the kernel's limit (kernel/formula.py fit)


@dataclass(frozen=True)
class Num:
    value: int | Fraction  # an int when integral: integer rows stay in fast int arithmetic


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Op:
    op: str  # '+', '-', '*', 'neg', 'min', 'max'
    args: tuple["Node", ...]


Node = Union[Num, Name, Op]


@dataclass(frozen=True)
class Formula:
    """A parsed formula and its source text."""

    text: str
    tree: Node
    names: frozenset[str]

    def evaluate(self, env: Mapping[str, Fraction | int]) -> int | Fraction:
        """The exact value for the parameter and constant values ``env`` (ints stay ints)."""
        return _eval(self.tree, env)


class FormulaError(ValueError):
    """A formula that does not parse; the message says where."""


def parse_formula(text: str, allowed: frozenset[str] | set[str]) -> Formula:
    """Parse ``text``; every name must be in ``allowed`` (parameters and constants)."""
    if not isinstance(text, str):
        raise FormulaError(f"expected a formula as a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula longer than {MAX_LENGTH} characters")
    tokens = _tokens(text)
    parser = _Parser(tokens, text, frozenset(allowed))
    tree = parser.expr(0)
    if parser.pos != len(tokens):
        raise FormulaError(f"unexpected {tokens[parser.pos][1]!r} in formula {text!r}")
    return Formula(text, tree, frozenset(parser.names))


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:  # only trailing spaces left
            break
        pos = m.end()
        number, name, other = m.groups()
        if number is not None:
            out.append(("num", number))
        elif name is not None:
            out.append(("name", name))
        elif other is not None:
            if other not in "+-*(),":
                raise FormulaError(f"unexpected character {other!r} in formula {text!r}")
            out.append(("op", other))
    if not out:
        raise FormulaError("empty formula")
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], text: str, allowed: frozenset[str]):
        self.tokens, self.text, self.allowed, self.pos = tokens, text, allowed, 0
        self.names: set[str] = set()

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _expect(self, symbol: str) -> None:
        token = self._peek()
        if token != ("op", symbol):
            found = "the end" if token is None else repr(token[1])
            raise FormulaError(f"expected {symbol!r}, found {found} in formula {self.text!r}")
        self.pos += 1

    def _depth(self, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise FormulaError(f"formula nested more than {MAX_DEPTH} deep")
        return depth + 1

    def expr(self, depth: int) -> Node:
        depth = self._depth(depth)
        chain = [("+", self.term(depth))]
        while (token := self._peek()) in (("op", "+"), ("op", "-")):
            self.pos += 1
            chain.append((token[1], self.term(depth)))  # type: ignore[index]
        return _tree(chain)

    def term(self, depth: int) -> Node:
        chain = [("*", self.unary(depth))]
        while self._peek() == ("op", "*"):
            self.pos += 1
            chain.append(("*", self.unary(depth)))
        return _tree(chain)

    def unary(self, depth: int) -> Node:
        depth = self._depth(depth)
        if self._peek() == ("op", "-"):
            self.pos += 1
            return Op("neg", (self.unary(depth),))
        return self.atom(depth)

    def atom(self, depth: int) -> Node:
        token = self._peek()
        if token is None:
            raise FormulaError(f"formula {self.text!r} ends too early")
        kind, value = token
        self.pos += 1
        if kind == "num":
            try:
                q = read_numeral(value, decimals=False)  # the engine's one reader of numerals
            except NumeralError as exc:
                raise FormulaError(f"{exc} in formula {self.text!r}") from None
            return Num(exact(q))
        if kind == "name" and value in ("min", "max"):
            self._expect("(")
            left = self.expr(depth)
            self._expect(",")
            right = self.expr(depth)
            self._expect(")")
            return Op(value, (left, right))
        if kind == "name":
            if value not in self.allowed:
                known = ", ".join(sorted(self.allowed)) or "none"
                raise FormulaError(f"unknown name {value!r} in formula {self.text!r} (known here: {known})")
            self.names.add(value)
            return Name(value)
        if value == "(":
            node = self.expr(depth)
            self._expect(")")
            return node
        raise FormulaError(f"unexpected {value!r} in formula {self.text!r}")


def _tree(chain: list[tuple[str, Node]]) -> Node:
    """A chain a ± b ± … (or a * b * …) as a left fold, ((a − b) + c); past 16 operands a balanced tree over the
    signed operands, as the kernel reads it: a 999-term chain's tree 999 deep took every walker of it past Python's
    stack, an internal error (red team, round 11)."""
    node = chain[0][1]
    if len(chain) <= 16:
        for op, operand in chain[1:]:
            node = Op(op, (node, operand))
        return node
    nodes: list[Node] = [operand if op != "-" else Op("neg", (operand,)) for op, operand in chain]
    while len(nodes) > 1:
        nodes = [Op(chain[0][0], tuple(nodes[i:i + 2])) if i + 1 < len(nodes) else nodes[i]
                 for i in range(0, len(nodes), 2)]
    return nodes[0]


def check_folding(formula: Formula, constants: Mapping[str, int | Fraction]) -> None:
    """FormulaError if folding the formula's constant parts (with the document's ``constants``) passes
    MAX_FOLDED_BITS at some step: the kernel would not check the document, and computing it took minutes."""
    def walk(node: Node) -> int | Fraction | None:  # the value of a constant part, None where a parameter enters
        if isinstance(node, Num):
            return node.value
        if isinstance(node, Name):
            return constants.get(node.name)
        values = [walk(a) for a in node.args]
        if any(v is None for v in values):
            return None
        value = Fraction(_fold(node.op, values))  # type: ignore[arg-type]
        if value.numerator.bit_length() + value.denominator.bit_length() > MAX_FOLDED_BITS:
            raise FormulaError(f"its constants fold to a number past {MAX_FOLDED_BITS:,} bits (the kernel's limit)")
        return value
    walk(formula.tree)


def row_degree(formula: Formula, parameters: set[str] | frozenset[str]) -> int:
    """The syntactic degree in ``parameters`` (a product adds, min/max take the larger), as the kernel counts it."""
    def walk(node: Node) -> int:
        if isinstance(node, Num):
            return 0
        if isinstance(node, Name):
            return int(node.name in parameters)
        degrees = [walk(a) for a in node.args]
        return sum(degrees) if node.op == "*" else max(degrees)
    return walk(formula.tree)


def _eval(node: Node, env: Mapping[str, Fraction | int]) -> int | Fraction:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        return env[node.name]
    values = [_eval(a, env) for a in node.args]
    if node.op == "+":
        return values[0] + values[1]
    if node.op == "-":
        return values[0] - values[1]
    if node.op == "*":
        return values[0] * values[1]
    if node.op == "neg":
        return -values[0]
    return min(values) if node.op == "min" else max(values)


def exact(value: int | Fraction) -> int | Fraction:
    """An int when integral (as the Python constructions' rows), else the Fraction."""
    if type(value) is int:
        return value
    return value.numerator if value.denominator == 1 else value  # type: ignore[union-attr]


Compiled = Callable[[tuple], "int | Fraction"]


def maybe_fraction(node: Node, fractional: frozenset[str] | set[str]) -> bool:
    """Whether ``node`` may take a non-int value (``fractional``: the names that may)."""
    if isinstance(node, Num):
        return type(node.value) is not int
    if isinstance(node, Name):
        return node.name in fractional
    return any(maybe_fraction(a, fractional) for a in node.args)


_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max}


def compiled_parts(node: Node, slots: Mapping[str, int], constants: Mapping[str, int | Fraction]) -> tuple[str, Any]:
    """("const", value), ("slot", index) or ("fn", closure)."""
    if isinstance(node, Num):
        return "const", node.value
    if isinstance(node, Name):
        return ("const", constants[node.name]) if node.name in constants else ("slot", slots[node.name])
    parts = [compiled_parts(a, slots, constants) for a in node.args]
    if all(k == "const" for k, _ in parts):
        return "const", _fold(node.op, [v for _, v in parts])
    if node.op == "neg":
        (k, x), = parts
        return "fn", (lambda p: -p[x]) if k == "slot" else (lambda p: -x(p))
    op = _OPS[node.op]
    (ka, a), (kb, b) = parts
    inner = node.args[0]
    if kb == "const" and isinstance(inner, Op) and inner.op in _OPS and len(inner.args) == 2:
        (ki, i), (kj, j) = (compiled_parts(x, slots, constants) for x in inner.args)
        if ki == kj == "slot":  # ``x*y + c``, one frame instead of two
            inner_op = _OPS[inner.op]
            return "fn", lambda p: op(inner_op(p[i], p[j]), b)
    if ka == "slot":
        closure = {"slot": lambda p: op(p[a], p[b]), "const": lambda p: op(p[a], b), "fn": lambda p: op(p[a], b(p))}[kb]
    elif ka == "const":
        closure = {"slot": lambda p: op(a, p[b]), "fn": lambda p: op(a, b(p))}[kb]
    else:
        closure = {"slot": lambda p: op(a(p), p[b]), "const": lambda p: op(a(p), b), "fn": lambda p: op(a(p), b(p))}[kb]
    return "fn", closure


def _fold(op: str, values: list[int | Fraction]) -> int | Fraction:
    return -values[0] if op == "neg" else _OPS[op](*values)
