"""The engine's netlist readers (``circuits/netlists.py``, ``circuits/bristol.py``) and the kernel's
(``kernel/netlist_bench.py``, ``netlist_blif.py``, ``netlist_bristol.py`` under ``netlist_parse.py``) agree,
differentially: on random Bench, BLIF and Bristol Fashion files, valid and near-valid (comments where the format
allows them, blank lines, CRLF and lone CR line ends, tabs, trailing spaces, a byte-order mark, unusual names, gates
out of order, unused signals, outputs that are inputs or constants or repeated, covers with don't-cares, several
rows, off-sets and no inputs, ``\\`` continuations, random token edits) each file is accepted by both or by neither,
and where both accept, they read the same inputs and outputs in the same order and the same Boolean function on
every 0/1 vector (the engine's by its simulator, the kernel's by its own meaning of each gate,
``netlist_parse.multilinear``).  Every valid file the engine imports, the kernel links to the engine's circuit
(``link_report``, both modes); a few go the whole way: certify with gate-edge, then check, with and without
``--circuit FILE``.

The engine may refuse, as bad input, what the kernel reads without harm (``ENGINE_ONLY``): a file with no outputs or
nothing at all (no certificate has a circuit without outputs), U+FFFD (the engine's mark of bytes decoded with
replacement) and a name holding a control or format character such as U+FEFF past the file's first character (red
team 17: the engine's names reach terminal lines; the kernel never prints a netlist's names).  Nothing else.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from netlist_helpers import kernel_values

from verified_aat.circuits.netlists import decode_netlist_bytes, parse_netlist, simulate
from verified_aat.errors import InputError
from verified_aat.kernel.netlist_given import MalformedNetlist, read_given

ENGINE_ONLY = ("empty netlist", "netlist has no outputs", "byte 0xfffd", "names must be printable")


# -- the two readers and the comparison ------------------------------------------------------------------

def engine_read(data: bytes, fmt: str, drop_dead: bool = False) -> Any:
    try:
        return parse_netlist(decode_netlist_bytes(data, "f"), "f", fmt, drop_dead)
    except InputError as exc:
        assert exc.file == "f" and (exc.line is None or exc.line >= 1) and "\n" not in exc.message, exc
        return exc


def kernel_read(data: bytes, fmt: str, drop_dead: bool = False) -> Any:
    try:
        return read_given(data, fmt, drop_dead)
    except MalformedNetlist as exc:
        return exc



def assert_agree(text: str, fmt: str, drop_dead: bool = False) -> Any:
    """Both readers accept ``text`` or both refuse it; when both accept, the same netlist.  The engine's netlist."""
    data = text.encode()
    mine, theirs = engine_read(data, fmt, drop_dead), kernel_read(data, fmt, drop_dead)
    if isinstance(mine, InputError):
        assert isinstance(theirs, MalformedNetlist) or any(w in mine.message for w in ENGINE_ONLY), \
            f"the engine refuses ({mine}), the kernel accepts: {text!r}"
        return None
    assert not isinstance(theirs, MalformedNetlist), f"the engine accepts, the kernel refuses ({theirs}): {text!r}"
    assert (mine.inputs, mine.outputs) == (theirs.inputs, theirs.outputs), text
    n = len(mine.inputs)
    rnd = random.Random(n)
    vectors = itertools.product((0, 1), repeat=n) if n <= 10 else \
        [tuple(rnd.randint(0, 1) for _ in range(n)) for _ in range(256)]
    for bits in vectors:
        assert simulate(mine, bits) == kernel_values(theirs, bits), (text, bits)
    return mine


# -- text variations every format shares ----------------------------------------------------------------------

def ends(draw: st.DrawFn, lines: list[str], comment: str | None) -> str:
    """``lines`` joined with LF or CRLF each (in one file of eight, one lone CR), blank, comment and trailing-space
    lines mixed in, maybe a byte-order mark first and no line end last."""
    out = []
    for line in lines:
        if comment is not None and draw(st.integers(0, 5)) == 0:
            out.append(draw(st.sampled_from(["", "  ", "\t", comment + " note", comment, " " + comment + "x=y(1)"])))
        out.append(line + draw(st.sampled_from(["", "", " ", "\t", " \t"])))
    seps = [draw(st.sampled_from(["\n", "\n", "\n", "\r\n"])) for _ in out]
    if draw(st.integers(0, 7)) == 0:
        seps[draw(st.integers(0, len(seps) - 1))] = "\r"
    text = "".join(line + sep for line, sep in zip(out, seps))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return ("\ufeff" if draw(st.integers(0, 4)) == 0 else "") + text


EDITS = ["\n", "\r", "\r\n", " ", "\t", "#", "\\", "\\\n", "\\\n#", "\\\n\n", "(", ")", ",", "=", "0", "1", "-", "x",
         "\ufeff", "\xa0", "\x0c", "\x0b", "\x85", "\u2028", "\x1c", "\u2003", "AND", "INPUT(", ".names", ".end",
         ".model", ".inputs", "XOR", "MAND", "EQ", "é", "\ufffd"]


def edited(draw: st.DrawFn, text: str) -> str:
    """``text`` with up to three tokens inserted or overwritten anywhere."""
    for at, token, insert in draw(st.lists(st.tuples(st.integers(0, 500), st.sampled_from(EDITS), st.booleans()),
                                           max_size=3)):
        at %= len(text) + 1
        text = text[:at] + token + text[at + (0 if insert else len(token)):]
    return text


# -- Bench --------------------------------------------------------------------------------------------------------

BENCH_NAMES = ["a", "b", "N1", "22", "x.y", "a[3]", "b<1>", "\\esc", "$n", "é", "_", "a-b", "a/b", "a'", "n:1",
               "{w}", "a;b", "0", "INPUT", "AND", "x*", ".n", "a\\", "ß", "I", "o|p", "OUTPUT", "GND"]
BENCH_OPS = {"AND": -1, "NAND": -1, "OR": -1, "NOR": -1, "XOR": -1, "XNOR": -1, "NOT": 1, "BUFF": 1, "BUF": 1,
             "INV": 1, "CONST0": 0, "CONST1": 0, "GND": 0, "VDD": 0}


def case(draw: st.DrawFn, word: str) -> str:
    return draw(st.sampled_from([word, word.lower(), word.capitalize(), word.swapcase()]))


@st.composite
def bench_texts(draw: st.DrawFn, edits: bool = False) -> str:
    names = draw(st.lists(st.sampled_from(BENCH_NAMES), min_size=1, max_size=10, unique=True))
    n_in = draw(st.integers(0, len(names)))
    signals, lines = list(names[:n_in]), [f"{case(draw, 'INPUT')}({x})" for x in names[:n_in]]
    space = st.sampled_from(["", " ", "\t", "  "])
    for name in names[n_in:]:
        op = draw(st.sampled_from(sorted(BENCH_OPS)))
        arity = BENCH_OPS[op] if BENCH_OPS[op] >= 0 else draw(st.integers(1, 4))
        arity = draw(st.integers(0, 2)) if draw(st.integers(0, 15)) == 0 else arity  # NOT(a, b), AND(), VDD(a)
        if arity and not signals:
            op, arity = "CONST1", 0
        args = [draw(st.sampled_from(signals)) for _ in range(arity)]
        sep = draw(space) + "," + draw(space)
        lines.append(f"{name}{draw(space)}={draw(space)}{case(draw, op)}{draw(space)}({draw(space)}"
                     f"{sep.join(args)}{draw(space)})")
        signals.append(name)
    outputs = draw(st.lists(st.sampled_from(signals), min_size=0 if draw(st.integers(0, 9)) == 0 else 1, max_size=4))
    lines += [f"{case(draw, 'OUTPUT')}{draw(space)}({draw(space)}{o}{draw(space)})" for o in outputs]
    lines = [line + (draw(st.sampled_from(["", " # c", "#c(x)"])) if draw(st.integers(0, 4)) == 0 else "")
             for line in draw(st.permutations(lines))]
    text = ends(draw, lines, "#")
    return edited(draw, text) if edits else text


@example(text="\ufeff\na=CONST1()\r")  # a lone CR: the kernel read it as a space (refused by both now)
@settings(max_examples=80, deadline=None)
@given(text=bench_texts())
def test_bench_readers_agree(text: str) -> None:
    assert_agree(text, "bench")


@settings(max_examples=120, deadline=None)
@given(text=bench_texts(edits=True), drop_dead=st.booleans())
@example(text="a= CONST1 (   ) \n\ufeff = XNOR ( a, a, a ) \nOUTPUT ( a  ) ", drop_dead=False)  # CI found it
def test_edited_bench_files_are_refused_by_both_or_read_alike(text: str, drop_dead: bool) -> None:
    assert_agree(text, "bench", drop_dead)


# -- BLIF ---------------------------------------------------------------------------------------------------------

BLIF_NAMES = ["a", "b", "N1", "22", "x.y", "a[3]", "b<1>", "$n", "é", "_", "a-b", "a/b", "a'", "n:1", "{w}", "a(1)",
              "a,b", "a=b", "0", "1", "-", "01", ".x", "x\\y", "a\\", "INPUT", "ß"]


def continued(draw: st.DrawFn, tokens: list[str]) -> str:
    """One logical line, maybe broken with ``\\`` continuations between tokens (a comment may follow one)."""
    out = tokens[0]
    for token in tokens[1:]:
        out += draw(st.sampled_from([" ", " ", "\t", " \\\n", "\\\n ", " \\ # c\n", " \\\r\n"])) + token
    return out


@st.composite
def blif_texts(draw: st.DrawFn, edits: bool = False) -> str:
    names = draw(st.lists(st.sampled_from(BLIF_NAMES), min_size=1, max_size=9, unique=True))
    n_in = draw(st.integers(0, len(names)))
    inputs, signals, blocks = names[:n_in], list(names[:n_in]), []
    for name in names[n_in:]:
        args = draw(st.lists(st.sampled_from(signals), max_size=4)) if signals else []
        out = draw(st.sampled_from("01"))
        rows = draw(st.lists(st.text("01-", min_size=len(args), max_size=len(args)), max_size=4))
        if rows and draw(st.integers(0, 9)) == 0:
            rows[-1] += " " + "10"[int(out)]  # a cover of both on-set and off-set rows
        rows = [row if row.endswith(("0", "1")) and " " in row else f"{row} {out}".strip() for row in rows]
        blocks.append([continued(draw, [".names", *args, name])] + rows)
        signals.append(name)
    outputs = draw(st.lists(st.sampled_from(signals), min_size=0 if draw(st.integers(0, 9)) == 0 else 1, max_size=4))
    head = [continued(draw, [".model", *draw(st.lists(st.sampled_from(["m", "top", "a b"]), max_size=1))])] \
        if draw(st.booleans()) else []
    for kind, group in ((".inputs", inputs), (".outputs", outputs)):
        cut = draw(st.integers(0, len(group)))
        parts = [group[:cut], group[cut:]] if draw(st.booleans()) else [group]
        head += [continued(draw, [case(draw, kind), *part]) for part in parts if part or draw(st.booleans())]
    lines = head + [line for block in draw(st.permutations(blocks)) for line in block]
    if draw(st.integers(0, 3)):
        lines.append(draw(st.sampled_from([".end", ".END", ".end # done", ".end m"])))
    lines = [line + (" # c" if draw(st.integers(0, 5)) == 0 else "") for line in lines]
    text = ends(draw, lines, "#")
    return edited(draw, text) if edits else text


@settings(max_examples=80, deadline=None)
@given(text=blif_texts())
def test_blif_readers_agree(text: str) -> None:
    assert_agree(text, "blif")


@settings(max_examples=120, deadline=None)
@given(text=blif_texts(edits=True), drop_dead=st.booleans())
def test_edited_blif_files_are_refused_by_both_or_read_alike(text: str, drop_dead: bool) -> None:
    assert_agree(text, "blif", drop_dead)


# -- Bristol Fashion ----------------------------------------------------------------------------------------------

@st.composite
def bristol_texts(draw: st.DrawFn, edits: bool = False) -> str:
    """Gates in order or not, wires unused, outputs copied from inputs (EQW) or constant (EQ), MAND of any width."""
    in_widths = draw(st.lists(st.integers(1, 3), max_size=3))
    out_widths = draw(st.lists(st.integers(1, 2), min_size=1, max_size=2))
    n_in, n_out = sum(in_widths), sum(out_widths)
    spare = draw(st.integers(0, 5))
    n_wires = n_in + spare + n_out
    ready, lines = list(range(n_in)), []
    targets = list(range(n_in, n_in + spare)) + list(range(n_wires - n_out, n_wires))
    targets = [w for w in targets if w >= n_wires - n_out or draw(st.booleans())]  # some spare wires stay unused
    while targets:
        kind = draw(st.sampled_from(["XOR", "AND", "INV", "NOT", "EQW", "EQ", "MAND"] if ready else ["EQ"]))
        width = min(draw(st.integers(1, 3)), len(targets)) if kind == "MAND" else 1
        dst, targets = targets[:width], targets[width:]
        k_in = {"XOR": 2, "AND": 2, "MAND": 2 * width}.get(kind, 1)
        src = [draw(st.integers(0, 1))] if kind == "EQ" else [draw(st.sampled_from(ready)) for _ in range(k_in)]
        lines.append(" ".join(map(str, [k_in, len(dst), *src, *dst])) + " " + kind)
        ready += dst
    if draw(st.integers(0, 4)) == 0:
        lines = draw(st.permutations(lines))  # a wire used before the line that assigns it
    space = st.sampled_from([" ", " ", "\t", "  "])
    lines = [line.replace(" ", draw(space)) for line in lines]
    head = [f"{len(lines)} {n_wires}", " ".join(map(str, [len(in_widths), *in_widths])),
            " ".join(map(str, [len(out_widths), *out_widths]))]
    lines = [line for line in head + [""] * draw(st.integers(0, 1)) + lines]
    text = ends(draw, lines, None if draw(st.integers(0, 2)) else "")
    return edited(draw, text) if edits else text


# Bristol Fashion is a straight-line program: each gate reads inputs and wires assigned on earlier lines, and a MAND's
# ANDs run in parallel.  The kernel sorted gates, so it read a wire used before its line; both read a MAND's output
# fed to the same MAND as if its ANDs ran in order.  Both refuse them now.
@example(text="2 2\n0\n1 2\n2 1 0 0 1 XOR\n1 1 0 0 EQ\n")
@example(text="3 8\n2 1 1\n1 1\n2 1 0 1 2 AND\n4 2 0 3 1 2 3 4 MAND\n2 1 3 4 7 XOR\n")
@settings(max_examples=80, deadline=None)
@given(text=bristol_texts())
def test_bristol_readers_agree(text: str) -> None:
    assert_agree(text, "bristol")


@settings(max_examples=120, deadline=None)
@given(text=bristol_texts(edits=True))
def test_edited_bristol_files_are_refused_by_both_or_read_alike(text: str) -> None:
    assert_agree(text, "bristol")


# -- what both refuse, and what both read alike, by name ------------------------------------------------------------

@pytest.mark.parametrize("fmt, text, engine_says", [
    # a lone CR (classic Mac OS line end): docs/cli.md refuses it "by every reader alike"; the kernel read it as a space
    # inside one line, so "# note\r y = NOT(a)" was a comment to it and a gate to a reader that breaks lines at CR
    ("bench", "INPUT(a)\nOUTPUT(y)\ny = BUFF(a) # note\ry = NOT(a)\n", "lone CR"),
    ("blif", ".model m\r.inputs a\n.outputs y\n.names a y\n1 1\n", "lone CR"),
    ("bristol", "1 3\r1 1\n1 1\n1 1 0 2 INV\n", "lone CR"),
    # Bristol Fashion: a wire read before the line that assigns it, an output of the same MAND (see above)
    ("bristol", "2 4\n1 1\n1 1\n1 1 2 3 INV\n1 1 0 2 INV\n", "used before it is assigned"),
    ("bristol", "3 8\n2 1 1\n1 1\n2 1 0 1 2 AND\n4 2 0 3 1 2 3 4 MAND\n2 1 3 4 7 XOR\n", "used before it is assigned"),
    # BLIF: a '\' continuing into a comment line, a blank line or the end of the file.  Both read the first as
    # '.outputs y' then '.names a y' (the format's "concatenation of the subsequent line": the comment, then the
    # line ends), ABC as '.outputs y .names a y' (it skips the comment line); neither reading is checked now
    ("blif", ".model m\n.inputs a\n.outputs y \\\n# the gate\n.names a y\n1 1\n", "holds no tokens"),
    ("blif", ".model m\n.inputs a \\\n\n.outputs y\n.names a y\n1 1\n", "holds no tokens"),
    ("blif", ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.end \\", "holds no tokens"),
])
def test_refused_by_both(fmt: str, text: str, engine_says: str) -> None:
    mine, theirs = engine_read(text.encode(), fmt), kernel_read(text.encode(), fmt)
    assert isinstance(mine, InputError) and engine_says in str(mine), mine
    assert isinstance(theirs, MalformedNetlist), theirs


# -- the whole way: the netlist link, then certify and check with and without the file ------------------------------

@st.composite
def any_texts(draw: st.DrawFn) -> tuple[str, str]:
    fmt = draw(st.sampled_from(["bench", "blif", "bristol"]))
    return draw({"bench": bench_texts, "blif": blif_texts, "bristol": bristol_texts}[fmt]()), fmt


@settings(max_examples=30, deadline=None)
@given(text_fmt=any_texts(), mode=st.sampled_from(["exact", "threshold"]), cap=st.sampled_from([None, None, 2]))
def test_the_kernel_links_what_the_engine_imports(text_fmt: tuple[str, str], mode: str, cap: int | None,
                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every file the engine imports, the kernel reads and proves equal to the engine's circuit (step_report for the
    linear construction, link_report for cap mode)."""
    from verified_aat.circuits.arithmetize import import_netlist
    from verified_aat.circuits.json_format import canonical_circuit_bytes
    from verified_aat.circuits.link_section import netlist_section
    from verified_aat.kernel.context import Context
    from verified_aat.kernel.data import load_circuit
    from verified_aat.kernel.netlist_link import link_report
    from verified_aat.kernel.netlist_steps import step_report
    from verified_aat.kernel.report import Options
    text, fmt = text_fmt
    path = tmp_path_factory.mktemp("link") / f"n.{fmt}"
    path.write_bytes(text.encode())
    try:
        circuit = import_netlist(str(path), mode, cap)
    except InputError:
        return
    ctx = Context({"netlist": netlist_section(circuit)}, Options(netlist=(path.name, text.encode())))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    section = netlist_section(circuit)  # by binary steps (the linear construction), else by candidates (cap)
    assert ("steps" in section) == (cap is None)
    problems, theorem = step_report(ctx) if cap is None else link_report(ctx)[:2]
    assert problems == [] and ctx.unchecked == [] and path.name in theorem, (text, mode, cap, problems)


WHOLE_WAY = {
    "v.bench": "\ufeff# c17-like\r\nINPUT(N1)\r\ninput( a[3] )\t\r\nOUTPUT(y) # the xor\r\noutput(N1)\r\nOUTPUT(k)\r\n"
               "OUTPUT(y)\r\n\r\ny = xnor(n2, a[3], N1)\r\nn2 = Nand( N1 ,a[3])\r\nk = vdd()\r\nunused = buf(n2)\r\n",
    "v.blif": "# covers\n.model top\n.inputs a \\\n b\n.inputs c # one more\n.outputs y z one \\\n a\n"
              ".names a b c y\n1-0 1\n-11 1\n0-- 1\n.names y c z\n00 0\n11 0\n.names one\n1\n"
              ".names a dead\n0 1\n.end\n",
    "v.bristol": "\ufeff3 7\r\n2 1 1\r\n1 2\r\n\r\n2 1 0 1 2 XOR\r\n1 1 2 5 INV \r\n1 1 1 6 EQ\r\n",
}


@pytest.mark.parametrize("name", sorted(WHOLE_WAY))
def test_certify_then_check_with_and_without_the_file(name: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from verified_aat.cli.main import main
    path, cert = tmp_path / name, tmp_path / "c.cert.json"
    path.write_bytes(WHOLE_WAY[name].encode())
    assert_agree(WHOLE_WAY[name], name.split(".")[1])
    for mode in ("exact", "threshold"):
        assert main(["certify", str(path), "-c", "gate-edge", "--mode", mode, "-o", str(cert)]) == 0, name
        assert json.loads(cert.read_text())["netlist"]["text"] == WHOLE_WAY[name]
        assert main(["check", str(cert)]) == 0
        assert main(["check", str(cert), "--circuit", str(path)]) == 0
        assert "ACCEPTED" in capsys.readouterr().out
