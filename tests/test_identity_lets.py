"""The kernel's normal form reads SMT-LIB ``let`` exactly: parallel bindings, shadowing, scope.

Its let chains are a loop over one environment (copied once per chain and extended in place: a copy per let made a
chain of k lets cost k², and a transformer of one 60,000-gate chain took 33 s to check, now 3 s).  So the property
that matters is the semantics: a random chain of lets, with names rebound and bindings that read the names of the
same ``let`` (which SMT-LIB's parallel let reads from *outside*), normalises as the term with every binding
substituted by hand; and a term that differs is not called an identity.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verified_aat.kernel.identity import decide
from verified_aat.kernel.smt import term
from verified_aat.kernel.data import Circuit, Gate

NAMES = ("a", "b", "c")
ATOMS = ("x", "y", "1.0", "2.0")


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, str, str]:
    """(let-term, the same term substituted by hand, the substituted term plus one)."""
    scope: dict[str, str] = {}  # name -> its value as a let-free term, in the scope reached so far
    levels = []
    for _ in range(draw(st.integers(1, 6))):
        bindings = {}
        for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True)):
            parts = draw(st.lists(st.sampled_from(ATOMS + tuple(scope)), min_size=1, max_size=3))
            op = draw(st.sampled_from(["+", "*"]))
            bindings[name] = (op, parts)
        text = " ".join(f"({n} ({op} {' '.join(parts)}))" for n, (op, parts) in bindings.items())
        inlined = {n: f"({op} {' '.join(scope.get(p, p) for p in parts)})" for n, (op, parts) in bindings.items()}
        scope.update(inlined)  # parallel: every binding read the scope before this let
        levels.append(text)
    body = draw(st.sampled_from(tuple(scope) + ATOMS))
    let_term = "".join(f"(let ({text}) " for text in levels) + body + ")" * len(levels)
    plain = scope.get(body, body)
    return let_term, plain, f"(+ {plain} 1.0)"


def _lemma(left: str, right: str) -> str:
    return f"(declare-const x Real)\n(declare-const y Real)\n(assert (not (= {left} {right})))\n(check-sat)\n"


@given(chains())
def test_a_let_chain_is_its_substitution(chain: tuple[str, str, str]) -> None:
    let_term, plain, other = chain
    assert decide(_lemma(let_term, plain)) is True
    assert decide(_lemma(let_term, other)) is None


def test_a_long_chain_of_lets_prints_and_reads_back() -> None:
    """The printer's chain of k lets (one per gate) and the normal form of it: x + k."""
    k = 20_000
    gates = [Gate("input", index=0), Gate("const", value=1)]
    gates += [Gate("add", (0 if i == 0 else i + 1, 1)) for i in range(k)]  # gate i + 2 = (gate i + 1) + 1
    circuit = Circuit(tuple(gates), (len(gates) - 1,), 1, (0,))
    text = term(circuit, 0, ["x"])
    assert text.count("(let ") == k and text.endswith(")" * k)
    assert decide(f"(declare-const x Real)\n(assert (not (= {text} (+ x {k}.0))))\n(check-sat)\n") is True
