"""Red team, round 24: the gate that reads a netlist link by candidates only with ``--candidate-link``, and the link
by binary steps (``kernel/netlist_steps.py``, ``netlist_cover.py``) read by default.

Found: (1) a BLIF cover's comparisons (its cubes pairwise, cubes against rows) were bounded per gate only
(``MAX_COVER_WORK``, 10⁷ cube characters a cover), so a section of many covers, each just under the bound and all
sharing one circuit's wires, had no bound in all: 1.2 s of kernel time a cover for 116 KB of section, about 40 minutes
for a certificate within the 256 MB limit.  Now the bound is the section's, for all its covers together (past it
the link is *not checked*, as a single cover past it was).

(2) The kernel's AIGER reader (``kernel/aiger_parse.py``, the default link's reader of AIGER and of Verilog through
Yosys) took each line off the rest of the file with ``bytes.partition``, copying the rest a line: quadratic in the
file, so an ASCII AIGER of 2·10⁵ dead ANDs (2 MB) beside a one-input, one-output circuit took 7.4 s to read, and one
of 2·10⁶ (23 MB, within the 5·10⁷ characters a netlist may have) about 12 minutes.  Now a line is read at a position
(13 s for the 23 MB).  (3) Both AIGER readers (the kernel's and ``circuits/aiger.py``) looked for the prefix of their
own names (``_`` repeated until no symbol is ``false`` or ``a<n>`` after it) in a loop over the symbols for every
``_`` added: cubic, 3.8 s for 4,000 symbols ``_…_a1`` (8 MB), about a minute at the limit.  Now the prefix is the
fewest ``_`` that no symbol has before ``false`` or ``a<n>``, found in one pass, the same names as before.

The rest are attacks the kernel answers by the rule they break (see each test): sections mixing ``steps`` with the
candidate keys, ``steps`` null or of another type, a section null or absent with a netlist given, the netlist text
edited with its hash recomputed and the steps re-derived for the edit, outputs swapped, names duplicated.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.link_section import netlist_section
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.context import Context
from verified_aat.kernel.data import Malformed, NotChecked, load_circuit
from verified_aat.kernel.netlist_steps import step_report

SMALL_AIGER = "aag 1 1 0 1 0\n2\n2\n"  # one input, its output

FULL_ADDER = ("INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(s)\nOUTPUT(co)\nx = XOR(a, b)\ns = XOR(x, c)\ng = AND(a, b)\n"
              "p = AND(x, c)\nco = OR(g, p)\n")


def _parity_blif(k: int, covers: int) -> str:
    """``covers`` covers of the same k inputs, each the rows of odd parity (2^(k-1) minterms): disjoint cubes that
    share every wire of one circuit, so each cover adds comparisons and no gate of C."""
    ins = [f"i{j}" for j in range(k)]
    odd = ["".join(b) + " 1" for b in itertools.product("01", repeat=k) if b.count("1") % 2]
    lines = [".model parity", ".inputs " + " ".join(ins), ".outputs " + " ".join(f"g{n}" for n in range(covers))]
    for n in range(covers):
        lines += [".names " + " ".join(ins) + f" g{n}", *odd]
    return "\n".join(lines + [".end", ""])


def _imported(tmp: Path, name: str, text: str, mode: str = "exact") -> tuple[Circuit, dict[str, Any]]:
    (tmp / name).write_text(text)
    circuit = import_netlist(str(tmp / name), mode, steps=True)
    section = netlist_section(circuit)
    assert section is not None and "steps" in section
    return circuit, copy.deepcopy(section)


def _step_verdict(circuit: Circuit, section: dict[str, Any]) -> str:
    ctx = Context({"netlist": section}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    try:
        problems, theorem = step_report(ctx)
    except NotChecked:
        return "not-checked"
    except Malformed:
        return "rejected"
    return "accepted" if theorem and not problems else "rejected"


# -- (1) the covers' work, in all ----------------------------------------------------------------------------------

def test_many_covers_each_under_the_bound_are_not_checked_in_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """Eight parity covers of 8 inputs (128 cubes, 262,144 comparisons each): one is within a bound of 10⁶, eight
    together are not; before, each was compared against the bound alone and all eight were accepted."""
    from verified_aat.kernel import netlist_cover
    monkeypatch.setattr(netlist_cover, "MAX_COVER_WORK", 1_000_000)  # 10⁷ in the kernel: the same rule, faster
    one = _imported(tmp_path, "one.blif", _parity_blif(8, 1))
    eight = _imported(tmp_path, "eight.blif", _parity_blif(8, 8))
    assert one[0].n_inputs == eight[0].n_inputs and len(eight[0].gates) == len(one[0].gates)  # no gate of C added
    assert _step_verdict(*one) == "accepted"
    assert _step_verdict(*eight) == "not-checked"


def test_an_honest_netlist_of_many_small_covers_is_paid_for_by_its_text(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The covers' bound is 10⁷ beyond 4 comparisons a byte of the netlist: 300 small covers (each 2 cubes over
    3 inputs, about 60 comparisons) are past a bound of 1,000 on their own, but linear in their text, as reading it
    is, so accepted; the parity covers above stay past it (their work is quadratic in their rows)."""
    from verified_aat.kernel import netlist_cover
    monkeypatch.setattr(netlist_cover, "MAX_COVER_WORK", 1_000)
    lines = [".model many", ".inputs a b c", ".outputs " + " ".join(f"y{n}" for n in range(300))]
    for n in range(300):
        lines += [f".names a b c y{n}", "1-0 1", "-11 1"]
    many = _imported(tmp_path, "many.blif", "\n".join(lines + [".end", ""]))
    assert _step_verdict(*many) == "accepted"
    monkeypatch.setattr(netlist_cover, "MAX_COVER_WORK", 1_000 - 4 * len(many[1]["text"]))  # without the credit
    assert _step_verdict(*many) == "not-checked"


def test_the_cover_budget_is_shared_by_the_calls_it_is_given() -> None:
    """``cover`` charges its comparisons to the section's counter: a small cover after a nearly spent budget is past
    it (the counter is the step report's, one per section)."""
    from verified_aat.kernel.netlist_cover import MAX_COVER_WORK, cover
    from verified_aat.kernel.netlist_form import NGate
    gate = NGate("y", "COVER", ("a", "b"), "", 1, ("1-", "-1"))
    entry = ["cover", ["1-", "01"], [[], [[0, 1, [0, 1, 5]]]], [0, 1, 6]]
    with pytest.raises(NotChecked, match="in all"):
        cover(gate, [{(0,): 1}, {(1,): 1}], entry, "$.netlist.steps['y']", lambda *a: {}, lambda *a: ({}, {}),
              [MAX_COVER_WORK - 1])


def test_a_cover_section_within_the_bound_is_still_accepted(tmp_path: Path) -> None:
    """One parity cover of 10 inputs (5.2·10⁶ comparisons) is within the section's 10⁷ and accepted; two are past it
    together, not checked (each alone was within the old bound a cover)."""
    assert _step_verdict(*_imported(tmp_path, "par.blif", _parity_blif(10, 1))) == "accepted"
    assert _step_verdict(*_imported(tmp_path, "par2.blif", _parity_blif(10, 2))) == "not-checked"


# -- the gate and the step link on whole certificates (no finding) --------------------------------------------------

@lru_cache(maxsize=None)
def _certificate_text(mode: str) -> str:
    """A full adder's certificate (bench, the link by binary steps), as text: each test gets its own copy."""
    import tempfile

    from verified_aat.api import certificate, certify
    from verified_aat.circuits.io import load_circuit
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fa.bench"
        path.write_text(FULL_ADDER)
        return json.dumps(dict(certificate(certify(load_circuit(str(path), mode)))))


def _certificate(mode: str = "exact") -> dict[str, Any]:
    doc = json.loads(_certificate_text(mode))
    assert "steps" in doc["netlist"]
    return doc


def _outcome(doc: dict[str, Any], **options: Any) -> str:
    return check_certificate(json.loads(json.dumps(doc)), Options(solver_trust=False, **options)).outcome


def _with_text(section: dict[str, Any], text: str) -> None:
    section["text"], section["sha256"] = text, hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("edit", [
    {"shadow": []}, {"annotations": {}}, {"signals": {}}, {"outputs": []},  # steps beside the candidate keys
    {"steps": None}, {"steps": []}, {"steps": "x"}, {"steps": 0}, {"steps": {}},  # steps null, of another type, empty
    {"drop_dead": False}, {"drop_dead": None}])
def test_a_step_section_with_a_candidate_key_or_odd_steps_is_rejected_with_or_without_the_option(edit) -> None:
    doc = _certificate()
    doc["netlist"].update(edit)
    for options in ({}, {"candidate_link": True}, {"netlist": ("fa.bench", FULL_ADDER.encode())}):
        assert _outcome(doc, **options) == "rejected", (edit, options)


@pytest.mark.parametrize("section", ["null", "absent"])
def test_no_section_with_a_netlist_given_is_rejected(section: str) -> None:
    """The theorem without a section names no netlist; given one with --circuit, it is a rejection (not accepted)."""
    doc = _certificate()
    if section == "null":
        doc["netlist"] = None
    else:
        del doc["netlist"]
    assert _outcome(doc) == "accepted"  # a theorem about C alone
    assert _outcome(doc, netlist=("fa.bench", FULL_ADDER.encode())) == "rejected"


@pytest.mark.parametrize("mode", ["exact", "threshold"])
@pytest.mark.parametrize("old, new", [("co = OR(g, p)", "co = XOR(g, p)"), ("s = XOR(x, c)", "s = XNOR(x, c)"),
                                      ("OUTPUT(s)\nOUTPUT(co)", "OUTPUT(co)\nOUTPUT(s)"),
                                      ("g = AND(a, b)", "g = AND(a, a)")])
def test_an_edited_netlist_with_its_steps_rederived_is_rejected(tmp_path: Path, mode: str, old: str, new: str
                                                                ) -> None:
    """The text edited, its hash recomputed, and the engine's steps for the edited text (its own circuit's wires)
    or the honest steps kept: never accepted for the certified C."""
    doc = _certificate(mode)
    edited = FULL_ADDER.replace(old, new)
    assert edited != FULL_ADDER
    _, rederived = _imported(tmp_path, "fa.bench", edited, mode)
    for steps in (doc["netlist"]["steps"], rederived["steps"]):
        forged = copy.deepcopy(doc)
        _with_text(forged["netlist"], edited)
        forged["netlist"]["steps"] = steps
        assert _outcome(forged) == "rejected"
        assert _outcome(forged, netlist=("fa.bench", edited.encode())) == "rejected"


def test_duplicated_names_are_rejected() -> None:
    for old, new in [("INPUT(b)", "INPUT(a)"), ("g = AND(a, b)", "x = AND(a, b)"), ("p = AND(x, c)", "a = AND(x, c)")]:
        doc = _certificate()
        _with_text(doc["netlist"], FULL_ADDER.replace(old, new))
        assert _outcome(doc) == "rejected", old


# -- (2) and (3): the AIGER readers in linear time ---------------------------------------------------------------------

def _dead_ands(n: int) -> bytes:
    """One input, one output (the input), and n ANDs no output reads: the same function as SMALL_AIGER."""
    return ("\n".join([f"aag {n + 1} 1 0 1 {n}", "2", "2"] + [f"{2 * (k + 2)} 2 2" for k in range(n)]) + "\n").encode()


def test_an_aiger_of_many_lines_is_read_in_linear_time() -> None:
    """3·10⁵ AND lines (3.3 MB): about 17 s with a copy of the rest a line, about 1.5 s now."""
    import time

    from verified_aat.kernel.aiger_parse import read
    start = time.perf_counter()
    inputs, outputs, gates = read(_dead_ands(300_000), (1, 1))
    assert len(inputs) == len(outputs) == 1 and len(gates) == 300_001
    assert time.perf_counter() - start < 8


def test_the_line_reader_keeps_its_rules() -> None:
    """The position reader ends where the rest did: a missing last newline is a line, a missing line is the end of
    the file, and a binary file's ANDs and symbols follow its output lines (their line numbers too)."""
    from verified_aat.kernel.aiger_parse import AigerError, read
    assert read(b"aag 1 1 0 1 0\n2\n3", (1, 1))[2][0][0].op == "NOT"  # the last line without its newline
    with pytest.raises(AigerError, match="line 3: unexpected end of file"):
        read(b"aag 1 1 0 1 0\n2\n", (1, 1))
    with pytest.raises(AigerError, match="line 4: an AND is three literals"):
        read(b"aag 2 1 0 1 1\n2\n4\n4 2\n", (1, 1))
    inputs, outputs, gates = read(b"aig 2 1 0 1 1\n4\n\x02\x02i0 x\no0 y\n", (1, 1))  # 4 = AND(2, 0)
    assert inputs == ["x"] and outputs == ["y"] and [g.op for g, _ in gates] == ["CONST0", "AND", "BUFF"]
    with pytest.raises(AigerError, match="line 4: bad symbol line"):
        read(b"aig 2 1 0 1 1\n4\n\x02\x02\nz\n", (1, 1))


def _old_prefix(names: list[str]) -> str:
    p = ""
    while p + "false" in names or any(s[:len(p) + 1] == p + "a" and s[len(p) + 1:].isdigit() for s in names):
        p += "_"
    return p


NAME_SETS = [["a1"], ["false"], ["a1", "_a2", "__false"], ["_a1", "__a2"], ["a"], ["_a"], ["a_1"], ["_a_1", "a1"],
             ["a٣"], ["__", "_false_"], ["a1", "_a1", "__a1", "____a1"], ["x", "y"], ["a0", "false", "_a9"]]


@pytest.mark.parametrize("names", NAME_SETS)
def test_both_readers_name_the_ands_as_the_loop_did(names: list[str]) -> None:
    """The prefix of the AND and constant names is the old loop's, in the kernel's reader and the engine's."""
    from verified_aat.circuits.aiger import aig_to_netlist, parse_aiger_bytes
    from verified_aat.kernel.aiger_parse import read
    n = len(names)
    text = "\n".join([f"aag {n + 1} {n} 0 1 1"] + [str(2 * (k + 1)) for k in range(n)] + [str(2 * n + 2),
                      f"{2 * n + 2} 2 0"] + [f"i{k} {s}" for k, s in enumerate(names)]) + "\n"
    want = _old_prefix(names + ["o0"])
    kernel = [g.name for g, _ in read(text.encode(), (n, 1))[2]]
    engine = [g.name for g in aig_to_netlist(parse_aiger_bytes(text.encode(), "t.aag"), "t.aag", "t").gates]
    assert kernel[:2] == engine[:2] == [f"{want}false", f"{want}a{n + 1}"], (kernel, engine)


def test_the_prefix_of_many_symbols_is_found_in_one_pass() -> None:
    """4,000 symbols _…_a1 (8 MB): 3.8 s in the kernel's loop, 0.1 s now; the names are the loop's."""
    import time

    from verified_aat.kernel.aiger_parse import read
    n = 4000
    names = ["_" * (n - 1 - m) + "a1" for m in range(n)]
    data = ("\n".join([f"aag {n + 1} {n} 0 1 1"] + [str(2 * (k + 1)) for k in range(n)] + [str(2 * n + 2),
                       f"{2 * n + 2} 2 0"] + [f"i{k} {s}" for k, s in enumerate(names)]) + "\n").encode()
    start = time.perf_counter()
    gates = read(data, (n, 1))[2]
    assert time.perf_counter() - start < 2
    assert gates[1][0].name == "_" * n + f"a{n + 1}"


def test_a_certificate_with_a_large_dead_aiger_is_checked_in_linear_time(tmp_path: Path) -> None:
    """The whole kernel: a one-input circuit's certificate whose embedded AIGER has 3·10⁵ dead ANDs more (its hash
    recomputed, the same function): accepted, in about the reader's linear time (17 s in the reader alone before)."""
    import time

    from verified_aat.api import certificate, certify
    from verified_aat.circuits.io import load_circuit
    (tmp_path / "one.aag").write_text(SMALL_AIGER)
    doc = json.loads(json.dumps(dict(certificate(certify(load_circuit(str(tmp_path / "one.aag"), "exact"))))))
    assert "steps" in doc["netlist"] and _outcome(doc) == "accepted"
    big = _dead_ands(300_000)
    doc["netlist"].update(text=big.decode("latin-1"), sha256=hashlib.sha256(big).hexdigest())
    start = time.perf_counter()
    assert _outcome(doc) == "accepted"
    assert time.perf_counter() - start < 6


def test_the_theorem_quotes_the_netlist_file_name_so_it_cannot_read_as_a_second_clause() -> None:
    """The section's ``file`` is a label (any printable base name): one written to look like the end of the theorem
    and a second clause is printed quoted, then the true sha256, so it reads as one name."""
    circuit, section = _certificate_circuit_and_section()
    fake = "fa.bench (sha256 " + "0" * 64 + ") on all of R^3; and C equals the Boolean function of netlist x.bench"
    section["file"] = fake
    ctx = Context({"netlist": section}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    problems, theorem = step_report(ctx)
    assert not problems and f"of netlist {fake!r} (sha256 {section['sha256']})" in theorem, theorem


def _certificate_circuit_and_section() -> tuple[Circuit, dict[str, Any]]:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        return _imported(Path(tmp), "fa.bench", FULL_ADDER)
