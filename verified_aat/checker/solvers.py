"""Run an SMT-LIB lemma through Z3 or cvc5 and say whether it is unsat.

The checker's own, deliberately tiny solver front end: it shares nothing
with the symbolic engine's discharge code.
"""

from __future__ import annotations


def z3_result(text: str, timeout_ms: int) -> str:
    import z3

    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.from_string(text)
    return str(solver.check())


def cvc5_result(text: str, timeout_ms: int) -> str:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("tlimit-per", str(timeout_ms))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "lemma")
    symbols = parser.getSymbolManager()
    result = "unknown"
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out = command.invoke(solver, symbols)
        if out and out.strip():
            result = out.strip()
    return result


SOLVERS = {"z3": z3_result, "cvc5": cvc5_result}
