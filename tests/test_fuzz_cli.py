"""Issue 12's fuzzing suite: hypothesis-grown inputs for the command line, called in-process.

For every generated *bad* input (mutations of valid circuit text, circuit JSON, BENCH, BLIF,
Bristol Fashion, transformer JSON and certificates, and bad option values) the command gives
exit code 2 (``check`` of a mutated certificate: 1 rejected or 2 unreadable, never 0 unless the
mutation only touched whitespace or informational fields), exactly one line on stderr, no
traceback and nothing written to an ``-o`` path.  Whether a random mutation is bad is decided by
the Python API: if the reader raises ``InputError`` the command must say so in one line; if it
accepts the file the command must give the API's answer.  For every *valid* generated input the
command's answer equals the Python API's (``eval`` against ``evaluate`` and ``simulate``).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netlist_helpers import FULL_ADDER, netlists
from strategies import circuits, input_vectors
from test_bristol import bristol_texts

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.circuits.json_format import dumps_circuit
from verified_aat.circuits.bristol import parse_bristol
from verified_aat.circuits.netlists import Netlist, simulate
from verified_aat.circuits.text_format import parse_circuit_text, print_circuit
from verified_aat.cli.main import main
from verified_aat.errors import InputError
from verified_aat.transformer.spec import load_transformer

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                      HealthCheck.too_slow, HealthCheck.data_too_large])

SMALL = """circuit small
input x y
a = add x y 1/2
b = mul a x
s = sign b
output s a b
"""

BENCH = """# c17-like
INPUT(a)
INPUT(b)
INPUT(c)
OUTPUT(y)
OUTPUT(z)
n1 = NAND(a, b)
n2 = NAND(b, c)
y = NAND(n1, n2)
z = XOR(a, n2)
"""

BLIF = """.model small
.inputs a b c
.outputs y z
.names a b n1
11 1
.names n1 c y
1- 1
-1 1
.names a c z
10 1
01 1
.end
"""

HUGE = "9" * 10_050
HUGE_INT = "<a 10,050-digit integer>"  # json.dumps cannot write one (int_max_str_digits)


# -- helpers ---------------------------------------------------------------------------

def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, *, written: str | None = None,
                          codes: tuple[int, ...] = (2,)) -> None:
    assert code in codes, (code, out, err)
    assert "Traceback" not in out + err, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("verified-aat: "), err
    if written is not None:
        assert not os.path.exists(written), f"{written} was written"


def values(out: str) -> list[str]:
    """The values of `eval`'s `name = value` lines (JSON names may hold '\r', U+2028, even '\n')."""
    return [line.rsplit(" = ", 1)[1] for line in out.split("\n") if " = " in line]


@contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as d:
        yield Path(d)


def write(path: Path, data: str | bytes) -> str:
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return str(path)


# -- byte- and token-level mutations ------------------------------------------------------

@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """A mutation of ``data``: truncation, byte flips, inserted junk, a huge number, ..."""
    kind = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "huge", "empty", "junk",
                                 "duplicate-line", "negate"]))
    n = len(data)
    if kind == "truncate":
        return data[:draw(st.integers(0, max(0, n - 1)))]
    if kind == "flip":
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, n - 1))
            out[i] ^= draw(st.integers(1, 255))
        return bytes(out)
    if kind == "insert":
        i = draw(st.integers(0, n))
        junk = draw(st.one_of(st.binary(min_size=1, max_size=8),
                              st.sampled_from([b"(", b")", b"[", b"{", b",", b"=", b"\x00", b"\xff",
                                               b"-", b"/0", b"nan", b"1e999", b" q ", b"\n"])))
        return data[:i] + junk + data[i:]
    if kind == "delete":
        i = draw(st.integers(0, n - 1))
        return data[:i] + data[i + draw(st.integers(1, 5)):]
    if kind == "huge":
        digits = [i for i, c in enumerate(data) if chr(c).isdigit()]
        i = draw(st.sampled_from(digits)) if digits else n
        return data[:i] + HUGE.encode() + data[i:]
    if kind == "empty":
        return draw(st.sampled_from([b"", b"\n", b"   \n\t\n"]))
    if kind == "junk":
        return draw(st.binary(min_size=1, max_size=64)) + b"\x00"
    lines = data.splitlines(keepends=True)
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "duplicate-line":
        return b"".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])
    return b"".join(lines[:i]) + lines[i].replace(b"1", b"-1") + b"".join(lines[i + 1:])


def json_paths(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            found += json_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found += json_paths(v, path + (i,))
    return found


REPLACEMENTS = st.one_of(
    st.sampled_from([None, True, False, -1, 0, 1.5, -(10**30), HUGE_INT, "", "x", "nosuchkind", [], {}, [[]],
                     {"x": 1}, ["frobnicate", [0]], "1/0", "nan", float("inf")]),
    st.integers(-3, 10**6), st.text(max_size=6),
)


@st.composite
def json_mutation(draw: st.DrawFn, doc: Any, skip: tuple[str, ...] = ()) -> tuple[tuple[Any, ...], Any]:
    """(path, mutated copy of ``doc``): one value replaced, deleted or deeply nested."""
    paths = [p for p in json_paths(doc) if p and not (p[0] in skip)]
    path = draw(st.sampled_from(paths))
    copy = json.loads(json.dumps(doc))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    how = draw(st.sampled_from(["replace", "delete", "nest", "huge"]))
    if how == "delete":
        del parent[path[-1]]
    elif how == "nest":
        parent[path[-1]] = json.loads("[" * 250 + "1" + "]" * 250)
    elif how == "huge":
        parent[path[-1]] = HUGE_INT if draw(st.booleans()) else HUGE
    else:
        parent[path[-1]] = draw(REPLACEMENTS)
    return path, copy


def dump(doc: Any) -> str:
    return json.dumps(doc, allow_nan=True).replace(json.dumps(HUGE_INT), HUGE)


# -- circuits: valid inputs agree with the API ---------------------------------------------

def threshold(circuit: Any) -> bool:
    return bool(circuit.provenance and circuit.provenance.arithmetization == "threshold")


@settings(FUZZ, max_examples=150)
@given(circuit=circuits(max_gates=12, max_inputs=3), data=st.data(), as_json=st.booleans())
def test_eval_of_valid_circuits_equals_the_api(capsys, circuit, data, as_json) -> None:
    if threshold(circuit):
        xs = data.draw(st.lists(st.sampled_from([Fraction(0), Fraction(1)]),
                                min_size=circuit.n_inputs, max_size=circuit.n_inputs))
    else:
        xs = data.draw(input_vectors(circuit.n_inputs))
    with workdir() as d:
        path = write(d / ("c.json" if as_json else "c.circ"),
                     dumps_circuit(circuit) if as_json else print_circuit(circuit))
        code, out, err = cli(capsys, "eval", path, "--input=" + ",".join(map(str, xs)))
    assert code == 0 and "Traceback" not in err, err
    assert values(out) == [str(v) for v in evaluate(circuit, xs)]


@settings(FUZZ, max_examples=100)
@given(net=netlists(cubes=False), data=st.data())
def test_eval_of_valid_bench_netlists_equals_simulate(capsys, net: Netlist, data) -> None:
    bits = data.draw(st.lists(st.integers(0, 1), min_size=len(net.inputs), max_size=len(net.inputs)))
    text = "\n".join([f"INPUT({i})" for i in net.inputs] + [f"OUTPUT({o})" for o in net.outputs]
                     + [f"{g.name} = {g.op}({', '.join(g.args)})" for g in net.gates]) + "\n"
    mode = data.draw(st.sampled_from(["exact", "threshold"]))
    with workdir() as d:
        code, out, err = cli(capsys, "eval", write(d / "n.bench", text), "--mode", mode,
                             "--input=" + ",".join(map(str, bits)))
    assert code == 0 and "Traceback" not in err, err
    assert values(out) == [str(v) for v in simulate(net, bits)]


@settings(FUZZ, max_examples=60)
@given(text=bristol_texts(), rnd=st.randoms(use_true_random=False))
def test_eval_of_valid_bristol_equals_simulate(capsys, text: str, rnd: random.Random) -> None:
    net = parse_bristol(text, "r.bristol")
    bits = [rnd.randint(0, 1) for _ in net.inputs]
    with workdir() as d:
        code, out, err = cli(capsys, "eval", write(d / "r.bristol", text), "--mode", "exact",
                             "--input=" + ",".join(map(str, bits)))
    assert code == 0 and "Traceback" not in err, err
    assert values(out) == [str(v) for v in simulate(net, bits)]


@settings(FUZZ, max_examples=25)
@given(circuit=circuits(max_gates=8, max_inputs=3, inputs_first=True), data=st.data(),
       construction=st.sampled_from(["gate-edge", "edge-only", "gate-edge-dot", "edge-k"]))
def test_compile_then_run_of_valid_circuits_equals_the_api(capsys, circuit, data, construction) -> None:
    """A transformer as written by `compile` runs (`run`, exact engine) to the circuit's outputs."""
    xs = data.draw(input_vectors(circuit.n_inputs))
    with workdir() as d:
        path = write(d / "c.json", dumps_circuit(circuit))
        code, out, err = cli(capsys, "compile", path, "-c", construction, "--binarize", "-o", str(d / "m"))
        assert code == 0 and "Traceback" not in err, err
        code, out, err = cli(capsys, "run", str(d / "m" / "transformer.json"), "--encoding",
                             str(d / "m" / "encoding.json"), "--input=" + ",".join(map(str, xs)))
    assert code == 0 and "Traceback" not in err, err
    first = out.splitlines()[0]
    assert first.startswith("outputs: ")
    assert first[len("outputs: "):].split(", ") == [str(v) for v in evaluate(circuit, xs)], first


# -- circuits: mutated inputs -------------------------------------------------------------

def check_mutated_circuit(capsys, d: Path, name: str, data: bytes, extra: tuple[str, ...] = ()) -> None:
    """The API decides: InputError -> one line and exit 2 (eval and compile -o); else eval agrees."""
    path = write(d / name, data)
    mode = dict(zip(extra[::2], extra[1::2])).get("--mode")
    try:
        circuit = load_circuit(path, mode=mode)
    except InputError:
        circuit = None
    if circuit is None:
        assert_one_line_error(*cli(capsys, "eval", path, "--input=0", *extra))
        target = str(d / "out")
        assert_one_line_error(*cli(capsys, "compile", path, "-c", "gate-edge", "-o", target, *extra),
                              written=target)
        return
    xs = [Fraction(0)] * circuit.n_inputs
    code, out, err = cli(capsys, "eval", path, "--input=" + ",".join(map(str, xs)), *extra)
    assert code == 0 and "Traceback" not in err, err
    assert values(out) == [str(v) for v in evaluate(circuit, xs)]


def _small_json() -> bytes:
    return dumps_circuit(parse_circuit_text(SMALL)).encode()


SOURCES = {
    "c.circ": (SMALL.encode(), ()),
    "c.json": (_small_json(), ()),
    "n.bench": (BENCH.encode(), ("--mode", "exact")),
    "n.blif": (BLIF.encode(), ("--mode", "threshold")),
    "n.bristol": (FULL_ADDER.encode(), ("--mode", "exact")),
}


@settings(FUZZ, max_examples=400)
@given(name=st.sampled_from(sorted(SOURCES)), data=st.data())
def test_mutated_circuit_files(capsys, name: str, data) -> None:
    original, extra = SOURCES[name]
    with workdir() as d:
        check_mutated_circuit(capsys, d, name, data.draw(mutated(original)), extra)


@settings(FUZZ, max_examples=200)
@given(data=st.data())
def test_mutated_circuit_json_documents(capsys, data) -> None:
    doc = json.loads(_small_json())
    _, bad = data.draw(json_mutation(doc))
    with workdir() as d:
        check_mutated_circuit(capsys, d, "c.json", dump(bad).encode())


# Hand-picked bad circuits of each kind the issue names; each must be refused.
BAD = [
    ("c.circ", ""), ("c.circ", "\x00\x01\x02binary"), ("c.circ", SMALL.replace("add x y", "frob x y")),
    ("c.circ", SMALL.replace("mul a x", "mul a q")), ("c.circ", SMALL + "a = add x\n"),
    ("c.circ", SMALL.replace("1/2", HUGE)), ("c.circ", SMALL.replace("output s a b", "output s zz")),
    ("c.json", ""), ("c.json", "[" * 100_000 + "]" * 100_000), ("c.json", '{"format": 3}'),
    ("c.json", _small_json().decode().replace('"add"', '"frob"')),
    ("c.json", _small_json().decode().replace("1/2", HUGE)), ("c.json", "NaN"), ("c.json", "{" * 5),
    ("n.bench", ""), ("n.bench", BENCH.replace("NAND(a, b)", "NAND(a, qq)")),
    ("n.bench", BENCH + "y = AND(a, b)\n"), ("n.bench", BENCH.replace("XOR", "FROB")),
    ("n.blif", ""), ("n.blif", BLIF.replace(".names a c z", ".names a q z")),
    ("n.blif", BLIF.replace("10 1", "1x0 1")), ("n.bristol", FULL_ADDER.replace("XOR", "FROB", 1)),
    ("n.bristol", FULL_ADDER.replace("4 9", HUGE + " 9")), ("n.bristol", "1 2\n"),
]


@pytest.mark.parametrize("name, text", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_hand_picked_bad_circuits(capsys, tmp_path: Path, name: str, text: str) -> None:
    path = write(tmp_path / name, text)
    mode = ("--mode", "exact") if name.startswith("n.") else ()
    assert_one_line_error(*cli(capsys, "eval", path, "--input=0", *mode))
    target = str(tmp_path / "cert.json")
    assert_one_line_error(*cli(capsys, "certify", path, "-c", "gate-edge", "-o", target, *mode),
                          written=target)


# -- transformer JSON as written by compile -----------------------------------------------

@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> tuple[dict[str, Any], str]:
    d = tmp_path_factory.mktemp("compiled")
    src = write(d / "small.circ", SMALL)
    assert main(["compile", src, "-c", "gate-edge", "-o", str(d / "model")]) == 0
    doc = json.loads((d / "model" / "transformer.json").read_text())
    return doc, str(d / "model" / "encoding.json")


def check_bad_transformer(capsys, d: Path, text: str | bytes, encoding: str) -> None:
    path = write(d / "transformer.json", text)
    try:
        load_transformer(path)
    except InputError:
        pass
    else:
        return  # still a valid transformer: running it is the engine's tests' business
    assert_one_line_error(*cli(capsys, "run", path, "--encoding", encoding, "--input=1,2"))
    target = str(d / "cert.json")
    circ = write(d / "small.circ", SMALL)
    assert_one_line_error(*cli(capsys, "certify", circ, "-c", "gate-edge", "--transformer", path,
                               "-o", target), written=target)


@settings(FUZZ, max_examples=200)
@given(data=st.data())
def test_mutated_transformer_documents(capsys, compiled, data) -> None:
    doc, encoding = compiled
    _, bad = data.draw(json_mutation(doc))
    with workdir() as d:
        check_bad_transformer(capsys, d, dump(bad), encoding)


@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_mutated_transformer_bytes(capsys, compiled, data) -> None:
    doc, encoding = compiled
    raw = json.dumps(doc, indent=1).encode()
    with workdir() as d:
        check_bad_transformer(capsys, d, data.draw(mutated(raw)), encoding)


@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_mutated_transformer_function_lines(capsys, compiled, data) -> None:
    """Unknown operations, dangling names, duplicate names and huge constants in a function."""
    doc, encoding = compiled
    bad = json.loads(json.dumps(doc))
    name = data.draw(st.sampled_from(sorted(bad["functions"])))
    lines = bad["functions"][name]
    i = data.draw(st.integers(0, len(lines) - 1))
    lines[i] = data.draw(st.sampled_from([
        lines[i].replace("=", "= frob", 1), lines[i] + " nosuchname", lines[0],
        lines[i].split("=")[0] + "= const " + HUGE, "", "= add", lines[i].replace(" ", "  ( "),
    ]))
    with workdir() as d:
        check_bad_transformer(capsys, d, dump(bad), encoding)


# -- certificates ------------------------------------------------------------------------

INFORMATIONAL = ("info", "claim", "timings")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("cert")
    src = write(d / "small.circ", "input x y\na = add x y\nb = mul a x\ns = sign b\noutput s a\n")
    assert main(["certify", src, "-c", "gate-edge", "-o", str(d / "c.json")]) == 0
    return json.loads((d / "c.json").read_text())


def informational(path: tuple[Any, ...]) -> bool:
    return bool(path) and (path[0] in INFORMATIONAL or path[:2] == ("result", "engine")
                           or (len(path) == 3 and path[0] == "lemmas" and path[2] == "engine"))


def differences(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths where two JSON documents differ (1 and 1.0 and True differ)."""
    if type(a) is not type(b):
        return [path]
    if isinstance(a, dict):
        return [p for k in a.keys() | b.keys()
                for p in (differences(a[k], b[k], path + (k,)) if k in a and k in b else [path + (k,)])]
    if isinstance(a, list):
        if len(a) != len(b):
            return [path]
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in differences(x, y, path + (i,))]
    return [] if a == b else [path]


def semantically_equal(bad: bytes | str, good: Any) -> bool:
    try:
        doc = json.loads(bad)
    except (ValueError, RecursionError):
        return False
    return all(informational(p) for p in differences(doc, good))


@settings(FUZZ, max_examples=200)
@given(data=st.data())
def test_mutated_certificates_are_never_accepted(capsys, certificate, data) -> None:
    path, bad = data.draw(json_mutation(certificate, skip=INFORMATIONAL))
    if semantically_equal(dump(bad), certificate):
        return
    with workdir() as d:
        code, out, err = cli(capsys, "check", write(d / "c.json", dump(bad)), "--timeout", "5")
    assert code in (1, 2, 3), (path, code, out, err)
    assert "Traceback" not in out + err, err
    if code == 2:
        assert_one_line_error(code, out, err)


@pytest.mark.parametrize("value", [["gate-edge"], {"a": 1}, None, 5])
def test_regression_certificate_construction_of_any_type_is_rejected(capsys, tmp_path, certificate, value) -> None:
    """Found by this suite: '"construction": [...]' made check crash (unhashable list), exit 1 with a traceback."""
    bad = dict(certificate, construction=value)
    code, out, err = cli(capsys, "check", write(tmp_path / "c.json", json.dumps(bad)))
    assert code == 1 and "Traceback" not in out + err and "REJECTED" in out, out


def test_a_construction_the_kernel_has_no_layout_for_is_not_checked_never_accepted(capsys, tmp_path,
                                                                                    certificate) -> None:
    """A name that is no built-in, with no construction document embedded: the kernel cannot read the
    construction, so the certificate is NOT CHECKED at S2: neither accepted nor rejected."""
    bad = dict(certificate, construction="nosuch")
    code, out, err = cli(capsys, "check", write(tmp_path / "c.json", json.dumps(bad)))
    assert code == 3 and "Traceback" not in out + err and "NOT CHECKED" in out and "ACCEPTED" not in out, out
    assert "embeds no construction document" in out


@settings(FUZZ, max_examples=150)
@given(data=st.data())
def test_certificate_bytes_mutated(capsys, certificate, data) -> None:
    raw = json.dumps(certificate).encode()
    bad = data.draw(mutated(raw))
    same = semantically_equal(bad, certificate)
    with workdir() as d:
        code, out, err = cli(capsys, "check", write(d / "c.json", bad), "--timeout", "5")
    assert "Traceback" not in out + err, err
    if same:
        assert code == 0, err
        return
    assert code in (1, 2, 3), (differences(json.loads(bad), certificate), code, out, err)
    if code == 2:
        assert_one_line_error(code, out, err)


@settings(FUZZ, max_examples=30)
@given(data=st.data())
def test_informational_and_whitespace_changes_keep_a_certificate(capsys, certificate, data) -> None:
    doc = json.loads(json.dumps(certificate))
    field = data.draw(st.sampled_from(["info", "claim", "timings", "engine", "result-engine", "whitespace"]))
    anything = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                         max_size=3), max_leaves=6)
    if field == "engine":
        doc["lemmas"][data.draw(st.integers(0, len(doc["lemmas"]) - 1))]["engine"] = data.draw(st.text(max_size=5))
    elif field == "result-engine":
        doc["result"]["engine"] = data.draw(anything)
    elif field == "claim":
        doc["claim"] = data.draw(st.text(max_size=20))
    elif field == "timings":
        doc["timings"] = data.draw(anything)
    elif field == "info":  # the kernel wants an object here, and reads only depth_bound (1 ... 10,000 or null)
        doc["info"] = data.draw(st.dictionaries(st.text(max_size=12), anything, max_size=4))
        if data.draw(st.booleans()):
            doc["info"]["depth_bound"] = data.draw(st.sampled_from([-5, 0, 10**9, "x", None, 1, 10_000]))
    text = json.dumps(doc, indent=data.draw(st.sampled_from([None, 0, 1, 4])))
    with workdir() as d:
        code, out, err = cli(capsys, "check", write(d / "c.json", text))
    bound = doc["info"].get("depth_bound") if field == "info" else None
    if bound is None or (type(bound) is int and 1 <= bound <= 10_000):
        assert code == 0 and "Traceback" not in err, (field, err)
    elif type(bound) is int and bound > 10_000:  # past the kernel's limit: not checked (tests/test_limits_first.py)
        assert code == 3 and "depth-bound: $.info.depth_bound" in out and "Traceback" not in err, (bound, out)
    else:  # not an integer K >= 1: rejected at its own check
        assert code == 1 and "[depth-bound]" in out and "Traceback" not in err, (bound, out)


# -- CLI arguments -----------------------------------------------------------------------

BAD_NUMBERS = st.sampled_from(["-1", "0", "nan", "NaN", "inf", "-inf", "1e999", "x", "", "1/0", "-0.0"])
HUGE_NUMBERS = st.sampled_from(["10" * 30, HUGE[:400], "100001"])  # bad for -K / --depth-bound only

OPTIONS = {  # option -> (command line before it, values that are fine, ...)
    "--timeout": ["certify", "{circ}", "-c", "gate-edge", "-o", "{out}"],
    "--jobs": ["certify", "{circ}", "-c", "gate-edge", "-o", "{out}"],
    "-K": ["certify", "{circ}", "-c", "gate-edge", "-o", "{out}"],
    "--depth-bound": ["compile", "{circ}", "-c", "gate-edge", "-o", "{out}"],
    "--max-inputs": ["eval", "{circ}", "--inputs", "{vectors}"],
    "--budget": ["refute", "{model}", "-c", "gate-edge"],
    "--key-timeout": ["run", "{model}", "--encoding", "{encoding}", "--input=1,2"],
    "--defence-budget": ["check", "{cert}"],
}

# values each option accepts although they look odd (0 skips the kernel's interpreter)
ACCEPTED = {"--defence-budget": {"0", "-0.0"}, "--max-inputs": set()}


@settings(FUZZ, max_examples=150)
@given(option=st.sampled_from(sorted(OPTIONS)), data=st.data(), attached=st.booleans())
def test_bad_option_values(capsys, compiled, certificate, option, data, attached) -> None:
    value = data.draw(st.one_of(BAD_NUMBERS, HUGE_NUMBERS) if option in ("-K", "--depth-bound") else BAD_NUMBERS)
    if value in ACCEPTED.get(option, ()):
        return
    with workdir() as d:
        fill = {"circ": write(d / "small.circ", SMALL), "out": str(d / "out"),
                "vectors": write(d / "v.txt", "1,2\n"), "model": str(d / "model"),
                "encoding": compiled[1], "cert": write(d / "cert.json", json.dumps(certificate))}
        (d / "model").write_text(json.dumps(compiled[0]))
        argv = [a.format(**fill) for a in OPTIONS[option]]
        argv += [f"{option}={value}"] if attached or value.startswith("-") else [option, value]
        if option in ("--max-inputs", "--defence-budget") and value in ("0", "-0.0"):
            return
        code, out, err = cli(capsys, *argv)
        assert_one_line_error(code, out, err, written=fill["out"])


@settings(FUZZ, max_examples=150)
@given(argv=st.lists(st.sampled_from(["info", "eval", "certify", "check", "compile", "run", "show",
                                      "--foo", "-K", "--input", "-o", "-c", "nosuch", "--json",
                                      "--inputs", "--timeout", "gate-edge", "--", "-", "--mode",
                                      "bogus", "--family", "sum", "--n", "-3"]),
                     min_size=1, max_size=5))
def test_random_command_lines(capsys, argv: list[str]) -> None:
    if "-" in argv:  # reads standard input; that has its own tests
        return
    with workdir() as d:
        old = os.getcwd()
        os.chdir(d)
        try:
            code, out, err = cli(capsys, *argv)
        finally:
            os.chdir(old)
        assert "Traceback" not in out + err
        if code != 0:
            assert code in (1, 2, 3), (argv, code, err)
        if code == 2:
            assert len(err.splitlines()) == 1, (argv, err)


@pytest.mark.parametrize("name", ["a\nb", "a\u2028b", "a\x85b", "a\x1cb", "\r"])
def test_regression_names_with_line_breaks_stay_on_one_line(capsys, tmp_path, name) -> None:
    """Found by this suite: a JSON gate name holding a line separator (U+2028, NEL, ...) split the
    error into two lines; InputError now escapes every character str.splitlines breaks at."""
    doc = json.loads(_small_json())
    doc["gates"][1]["name"] = name
    assert_one_line_error(*cli(capsys, "eval", write(tmp_path / "c.json", json.dumps(doc)), "--input=0"))


@pytest.mark.parametrize("value", [True, 1.0])
@pytest.mark.parametrize("where", ["derived", "uses", "hint"])
def test_regression_derived_numbers_must_be_integers(capsys, tmp_path, certificate, value, where) -> None:
    """Found by this suite: '"layers": [true, 3, 5]' (or 1.0) in $.derived.attention, and '"uses": true'
    for a lemma used once, or as a hint's function number, were accepted: the kernel compared with
    Python's ==, where True == 1.0 == 1."""
    bad = json.loads(json.dumps(certificate))
    if where == "derived":
        assert bad["derived"]["attention"][0]["layers"][0] == 1
        bad["derived"]["attention"][0]["layers"][0] = value
    elif where == "uses":
        lemma = next(entry for entry in bad["lemmas"] if entry["uses"] == 1)
        lemma["uses"] = value
    else:  # $.hints.attention[k].function
        hint = next(entry for entry in bad["hints"]["attention"] if entry["function"] == 1)
        hint["function"] = value
    code, out, err = cli(capsys, "check", write(tmp_path / "c.json", json.dumps(bad)))
    assert code == 1 and "REJECTED" in out and "Traceback" not in out + err, out


def test_no_integer_of_a_certificate_may_be_a_float_or_a_boolean(capsys, tmp_path, certificate) -> None:
    """Every integer outside the informational fields, written as 1.0 (or true/false for 1/0), is rejected."""
    def at(doc: Any, path: tuple[Any, ...]) -> Any:
        for key in path:
            doc = doc[key]
        return doc

    accepted = []
    for path in json_paths(certificate):
        value = at(certificate, path)
        if not path or informational(path) or type(value) is not int:
            continue
        for other in [float(value)] + ([bool(value)] if value in (0, 1) else []):
            bad = json.loads(json.dumps(certificate))
            at(bad, path[:-1])[path[-1]] = other
            code, out, err = cli(capsys, "check", write(tmp_path / "c.json", json.dumps(bad)))
            assert "Traceback" not in out + err
            if code == 0:
                accepted.append((path, other))
    assert not accepted
