"""Red team, round 29: the documentation is a contract.

README.md, docs/cli.md, docs/api.md, docs/certificates.md, docs/construction-format.md,
docs/transformer-format.md, docs/circuit-format.md, docs/export.md and docs/examples/ read as a user reads
them, and typed in: the README's two commands (the first run as written, the second read against pyproject and
.ci/run), about 150 command lines (every subcommand; exit codes 0/1/2/3; the "Options that do not act" table;
`-o -`, empty, symlinked, read-only and input-naming outputs; `--json` fields of certify, check, audit, info and
the limit-reached object; the Limits table's numbers against limits.py and the kernel; certificate documents with
duplicate keys, lone surrogates, a BOM, a wrong format; the four example construction documents and their
console transcripts; the transformer and circuit format's error examples; ONNX and npz export and their Python
API), and about 40 Python API calls (every public signature against api.py, the TypeError and InputError
wording, path arguments, reprs).

False, and fixed in the code:
- `export --softmax-temperature T` (and `run --engine float64 --softmax-temperature T`) on a transformer with no
  softmax head exited 0 with the option doing nothing, against the rule that an option given where it does not act
  is bad input (docs/cli.md's table: "ONNX with softmax heads"). Now exit 2 once MODEL is read, nothing written.
- `check --verbose --json` printed the same JSON as `check --json`, exit 0: now bad input (a rule in option_rules.py).
- `certify --no-timings` without `-o` wrote no certificate to leave timings out of, exit 0: now bad input.
- `certify --every-k` with `--jobs N` or `--no-refute` ran as without them (exit 0): now bad input, as the other
  per-circuit options were.
- `check --defence-budget N` for a schematic or audit certificate (no interpreter runs for them) exited 0 doing
  nothing: now bad input, as `--circuit` for an audit certificate already was.
- `export --format numpy --no-softmax` wrote the `.npz` with the softmax head in it (exit 0); only ONNX refused.
- `refute SOFTMAX.json` said `<input>: softmax pooling is not exact` (no file, no line): now `FILE:LINE`, as certify;
  a MODEL read from `-` was named `-` by audit, run and export: now `<stdin>`.
- three of `run`'s option conflicts (`--input` with `--sequence`, `--inputs` with `--input` or `--sequence`) said
  `<input>:`, a place docs/cli.md's table does not have: now `command line:`.
- `run --key-timeout MS` was checked against 10⁶ *seconds* and refused 1,000,001 ms (17 minutes) as "at most
  1,000,000 seconds"; its range is now 0 < MS ≤ 10⁹ (the options in seconds' range), said in milliseconds.
- `va.solver_options`, a public function of api.py that docs/api.md's reference shows, was an AttributeError: the
  package re-exports it now, as every other.
- `va.certificate(result, circuit=PATH)` raised AttributeError ('str' object has no attribute 'provenance'), and an
  int the same: a path now reads the circuit as every circuit parameter does, another kind is a TypeError.
- api.py's `construction` parameters were typed `str | Construction`, while docs/api.md and the README say a
  construction document's path may be a `str` or an `os.PathLike` (it worked at run time; `mypy --strict` refused a
  `pathlib.Path`).
- `va.prove_construction`'s SchematicResult printed as the dataclass repr with its whole certificate (tens of
  thousands of characters) and had no notebook table, against the README's "results ... print as one line".

False, and fixed in the documentation (each checked here against the code it describes):
- docs/cli.md: the kernel's cap on an audit's unrollings is 5·10⁶ gates (`kernel/audit_proof.MAX_TOTAL_GATES`),
  not 2·10⁷ (the Limits table and the round trip's link 2); `--defect` takes 10 names, not 6 (3 pass a length
  audit, one fails only the size formula); the `--timeout` message; `eval --input` prints a line per output.
- docs/cli.md's table of options that act only somewhere left out audit's own rules (`--output-circuit` not with
  `--prove`, `-o` only with `--prove` or `--round-trip`) and stated `--all-N`'s, `--encoded`'s and
  `--output-length`'s loosely; `prove-construction --json` times `proof_objects` when proved, not `witness`.
- README: the trusted kernel's standard-library imports listed `math` (not imported) and left out `array`,
  `contextlib`, `operator`, `pathlib` and `stat` (imported).
- docs/cli.md's exit-code table gave exit 3 to eight commands; `compile` (the layers limit) and every command (an
  input's size, `--max-inflated`) exit 3 at a limit too.
- docs/cli.md's Limits table had no row for the binary AIGER input limit (limits.MAX_AIGER_IMPLICIT_INPUTS).
- docs/cli.md's refute section gave exit 1 or 3 only; an unedited T (the kernel accepts its schematic lemmas) is 0.
- docs/certificates.md: the kernel's check list left out `depth-bound` and the four binarization checks.
- docs/construction-format.md: `construction check`'s summary line ends with the every-K induction it found.

Noticed, left alone: `check --candidate-link` on a certificate whose link is by steps changes nothing and exits 0
(tests/test_candidate_link_gate.py asserts that on purpose); `check --max-memory 64` stops reading the certificate
with a bare "limit reached (--max-memory 64 MB)", not the estimate's sentence (the limit is applied before the
certificate is read); `construction check FILE --max-inflated MB` is an argparse error (the option goes before
the action); `va.evaluate`/`va.simulate` of a threshold circuit accept inputs outside {0,1}, which `eval` refuses
(docs/cli.md speaks of `eval` only); `audit --prove --defect pool-drops-last-past-32` took 31 CPU s against the
documented ~7 s (a shared machine); `construction show nope` says `NAME:` for where.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path

import pytest

import verified_aat as va
from verified_aat import api
from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
INTERLEAVED = DOCS / "examples" / "constructions" / "interleaved.json"


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], code: int) -> str:
    assert main(argv) == code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 1, err
    return lines[0]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compiled")
    assert main(["compile", str(MIXED), "-c", "gate-edge", "-o", str(out)]) == 0
    return out


def test_a_softmax_temperature_for_a_transformer_without_softmax_heads_is_bad_input(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = str(compiled / "transformer.json")
    capsys.readouterr()
    for argv in (["export", model, "--format", "onnx", "-o", str(tmp_path / "m.onnx"), "--softmax-temperature", "2"],
                 ["run", model, "--encoding", str(compiled / "encoding.json"), "--input=1,2,3", "--engine", "float64",
                  "--softmax-temperature", "2"]):
        line = _one_line(capsys, argv, 2)
        assert "--softmax-temperature" in line and "no" in line and "softmax head" in line and model in line
    assert not (tmp_path / "m.onnx").exists()
    # the same transformer with one softmax head: the option acts, and is taken
    soft = tmp_path / "soft.json"
    soft.write_text((compiled / "transformer.json").read_text().replace('"average"', '"softmax"', 1))
    pytest.importorskip("onnx")
    assert main(["export", str(soft), "--format", "onnx", "-o", str(tmp_path / "s.onnx"),
                 "--softmax-temperature", "2"]) == 0
    assert (tmp_path / "s.onnx").stat().st_size > 0


def test_every_construction_parameter_of_the_api_admits_a_path() -> None:
    """docs/api.md: wherever a function takes a construction it also takes its file's path, str or os.PathLike."""
    taking = [(name, fn) for name, fn in vars(api).items() if inspect.isfunction(fn) and fn.__module__ == api.__name__
              and not name.startswith("_") and ({"construction", "name_or_path"} & set(inspect.signature(fn).parameters))]
    assert {name for name, _ in taking} >= {"compile", "simulate", "certify", "refute", "prove_construction",
                                            "construction"}
    for name, fn in taking:
        parameters = inspect.signature(fn).parameters
        annotation = (parameters.get("construction") or parameters["name_or_path"]).annotation
        assert "os.PathLike[str]" in str(annotation) and "Construction" in str(annotation), (name, annotation)
    path = Path(os.path.relpath(INTERLEAVED))  # and at run time: a pathlib.Path is read as the document
    assert va.construction(path).name == "interleaved"
    assert va.compile(va.load_circuit(str(MIXED)), path).construction == "interleaved"


def test_the_audit_caps_docs_cli_md_states_are_the_kernels() -> None:
    from verified_aat.kernel.audit_proof import MAX_LENGTH, MAX_TOTAL_GATES
    page = (DOCS / "cli.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| `audit --prove` lengths |"))
    assert f"N ≤ {MAX_LENGTH}" in row and MAX_TOTAL_GATES == 5 * 10**6 and "5·10⁶ unrolled gates" in row, row
    caps = re.findall(r"caps N ≤ (\d+) / ([0-9·⁰-⁹]+)", page.replace("\n", " ").replace("   ", " "))
    assert caps and all(cap == (str(MAX_LENGTH), "5·10⁶") for cap in caps), caps


def test_the_defects_docs_cli_md_counts_are_the_ones_audit_takes() -> None:
    from verified_aat.audit.mutants import DEFECTS, HARMLESS, LATE_DEFECTS
    text = " ".join((DOCS / "cli.md").read_text().split())
    total = len(DEFECTS) + len(LATE_DEFECTS) + len(HARMLESS)
    assert f"`--defect NAME` audits one of {total} changed unrollings" in text
    assert f"{len(DEFECTS)} deliberately broken ones" in text and f"{len(LATE_DEFECTS)} that are right" in text
    for name in [*LATE_DEFECTS, *HARMLESS]:
        assert f"`{name}`" in text


def test_the_option_error_example_of_docs_cli_md_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    page = (DOCS / "cli.md").read_text()
    example = re.search(r"\| an option \| `(verified-aat: --timeout: [^`]*)` \|", page)
    assert example is not None
    assert _one_line(capsys, ["certify", str(MIXED), "-c", "gate-edge", "--timeout", "-1"], 2) == example.group(1)


def test_eval_prints_as_docs_cli_md_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = next(line for line in (DOCS / "cli.md").read_text().splitlines() if line.startswith("| `verified-aat eval"))
    assert "one line per output for `--input`" in row and "(`out = 64, e = 8`) for `--inputs`" in row
    assert main(["eval", str(MIXED), "--input", "1,2,3"]) == 0
    assert capsys.readouterr().out.splitlines() == ["out = 64", "e = 8"]
    vectors = tmp_path / "v.txt"
    vectors.write_text("1,2,3\n0,0,0\n")
    assert main(["eval", str(MIXED), "--inputs", str(vectors)]) == 0
    assert capsys.readouterr().out.splitlines() == ["out = 64, e = 8", "out = 0, e = 0"]


def test_docs_certificates_md_lists_every_check_of_the_kernel() -> None:
    from verified_aat.kernel.checks import CHECKS
    page = (DOCS / "certificates.md").read_text()
    listed = page[page.index("It is a table of named checks"):page.index("The first failing check ends the run")]
    missing = [check.name for check in CHECKS if f"`{check.name}`" not in listed]
    assert not missing, missing


def test_the_construction_check_transcript_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    page = (DOCS / "construction-format.md").read_text()
    shown = page.split("$ verified-aat construction check docs/examples/constructions/interleaved.json\n", 1)[1]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(["construction", "check", "docs/examples/constructions/interleaved.json"]) == 0
    finally:
        os.chdir(cwd)
    assert shown.splitlines()[0] == capsys.readouterr().out.strip()


def test_the_json_of_a_refused_softmax_temperature_is_empty(compiled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input with --json prints no JSON (docs/cli.md): the new refusal is bad input like every other."""
    capsys.readouterr()
    assert main(["run", str(compiled / "transformer.json"), "--encoding", str(compiled / "encoding.json"),
                 "--input=1,2,3", "--engine", "float64", "--softmax-temperature", "3", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--softmax-temperature" in captured.err


def test_key_timeout_is_checked_in_its_own_unit(compiled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--key-timeout MS`` is milliseconds: it was checked against the 10⁶ *seconds* of the options in seconds, so
    17 minutes (1,000,001 ms) were refused with "at most 1,000,000 seconds"; now its range is those 10⁶ s in ms."""
    run = ["run", str(compiled / "transformer.json"), "--encoding", str(compiled / "encoding.json"), "--input=1,2,3"]
    capsys.readouterr()
    assert main([*run, "--key-timeout", "1000001"]) == 0
    assert "outputs: 64, 8" in capsys.readouterr().out
    for value in ("0", str(10**9 + 1)):
        line = _one_line(capsys, [*run, "--key-timeout", value], 2)
        assert line.startswith("verified-aat: --key-timeout: ") and " ms" in line and "seconds" not in line.replace("milliseconds", ""), line
    row = next(line for line in (DOCS / "cli.md").read_text().splitlines() if "`--key-timeout MS`" in line)
    assert "0 < MS ≤ 10⁹" in row


@pytest.mark.parametrize("argv, option", [
    (["--lengths", "2", "--all-N"], "--all-N"),
    (["--lengths", "2", "--encoded", "3"], "--encoded"),
    (["--lengths", "2", "--output-length", "2"], "--output-length"),
    (["--lengths", "2", "--prove", "--output-circuit", "{tmp}/u.circ", "-o", "{tmp}/a.json"], "--output-circuit"),
    (["--lengths", "2", "-o", "{tmp}/a.json"], "-o"),
])
def test_the_audit_options_docs_cli_md_now_lists_do_not_act_alone(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], option: str) -> None:
    """These rules were in audit_cmd.py but not in docs/cli.md's table of options that act only somewhere."""
    table = [line for line in (DOCS / "cli.md").read_text().splitlines() if line.startswith("| `audit` |")]
    assert any(f"`{option}`" in line.split("|")[2] for line in table), option
    line = _one_line(capsys, ["audit", str(compiled / "transformer.json"),
                              *[a.format(tmp=tmp_path) for a in argv]], 2)
    assert option in line
    assert not list(tmp_path.iterdir())


def test_prove_construction_json_timings_are_the_documented_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove-construction", "gate-edge", "-K", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    text = " ".join((DOCS / "cli.md").read_text().split())
    documented = text[text.index("- **prove-construction** — "):text.index("- **refute** — ")]
    for key in result["timings"]:
        assert f"`{key}`" in documented, key


def test_a_schematic_result_prints_as_one_line_as_every_result_does() -> None:
    """README: "results ... print as one line ... and as a small table in Jupyter". ``prove_construction``'s result
    printed the dataclass repr with its whole certificate (tens of thousands of characters), and had no table."""
    result = va.prove_construction("gate-edge", depth_bound=1)
    assert result.status == "proved" and result.certificate is not None
    line = repr(result)
    assert "\n" not in line and len(line) < 200 and line.startswith("<SchematicResult proved for 'gate-edge' (K ≤ 1)")
    assert f"{result.lemmas} lemmas" in line and "lemmas': [" not in line
    table = result._repr_html_()
    assert table.startswith("<table") and "proved" in table and result.theorem[:40] in table.replace("&#x27;", "'")


def test_the_readme_names_every_standard_module_the_kernel_imports_and_no_other() -> None:
    """The trusted kernel's imports as the README lists them: `math` was listed and is not imported; `array`,
    `contextlib`, `operator`, `pathlib` and `stat` are imported and were not listed."""
    import ast
    import sys
    imported: set[str] = set()
    for path in (ROOT / "verified_aat" / "kernel").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    standard = {name for name in imported if name in sys.stdlib_module_names and name != "__future__"}
    text = " ".join((ROOT / "README.md").read_text().split())
    listed = text[text.index("only the standard library ("):text.index("the solvers `z3`")]
    named = {name.split(".")[0] for name in re.findall(r"`([a-z_.0-9]+)`", listed)} - {"yices-smt2"}
    assert named == standard, (sorted(named - standard), sorted(standard - named))
    assert imported - standard - {"__future__"} == {"z3", "cvc5", "gmpy2"}


def test_every_limit_of_limits_py_is_in_the_limits_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README: "Every exit code and every limit, with its default and the option that raises it: docs/cli.md".
    The binary AIGER input limit (limits.MAX_AIGER_IMPLICIT_INPUTS) refused files but was in no table."""
    from verified_aat import limits
    page = (DOCS / "cli.md").read_text()
    table = page[page.index("## Limits"):page.index("## Standard input and output")]
    missing = [name for name in vars(limits) if name.startswith("MAX_") and f"limits.{name}" not in table]
    assert not missing, missing
    header = tmp_path / "wide.aig"
    header.write_bytes(b"aig %d %d 0 1 0\n2\n" % ((limits.MAX_AIGER_IMPLICIT_INPUTS + 1,) * 2))
    line = _one_line(capsys, ["info", str(header)], 2)
    assert f"{limits.MAX_AIGER_IMPLICIT_INPUTS:,}" in line and f"{limits.MAX_AIGER_IMPLICIT_INPUTS:,} inputs" in table


def test_compile_and_info_exit_3_at_a_limit_as_the_exit_code_table_now_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    row = next(line for line in (DOCS / "cli.md").read_text().splitlines() if line.startswith("| 3 |"))
    assert "`compile`" in row and "on a limit every command" in row
    document = json.loads((ROOT / "verified_aat" / "data" / "constructions" / "gate-edge.json").read_text())
    document["name"] = "gate-edge-wide"
    document["transformer"]["block"] = document["transformer"]["block"] * 6  # 12 layers a step: 120,000 at K = 10^4
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(document))
    line = _one_line(capsys, ["compile", str(MIXED), "-c", str(path), "-K", "10000", "-o", str(tmp_path / "out")], 3)
    assert "limit reached" in line and "120,000 layers" in line and not (tmp_path / "out").exists()
    import io
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b" " * (2 << 20))))
    assert "limit reached" in _one_line(capsys, ["info", "-", "--max-inflated", "1"], 3)


def test_check_verbose_with_json_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check --verbose`` prints every check with its time; with ``--json`` (whose ``checks`` list has them anyway)
    the output was the same byte for byte, exit 0: an option that does nothing, which docs/cli.md calls bad input."""
    cert = ROOT / "proofs" / "gate-edge" / "mixed_depth6.cert.json"
    line = _one_line(capsys, ["check", str(cert), "--verbose", "--json"], 2)
    assert "--verbose" in line and capsys.readouterr().out == ""
    assert main(["check", str(cert), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "check document" in out and "check lemmas" in out
    assert main(["check", str(cert), "--json"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)["checks"]][:2] == ["document", "depth-bound"]


def test_certify_no_timings_without_a_certificate_to_write_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--no-timings`` leaves the timings out of the certificate ``-o`` writes; without ``-o`` nothing is written and
    the option did nothing (exit 0).  With ``-o`` (a file, or ``-``) it acts: no ``timings`` key."""
    monkeypatch.chdir(tmp_path)
    line = _one_line(capsys, ["certify", str(MIXED), "-c", "gate-edge", "--no-timings"], 2)
    assert "--no-timings" in line and "-o CERT" in line and not list(tmp_path.iterdir())
    assert main(["certify", str(MIXED), "-c", "gate-edge", "--no-timings", "-o", "-"]) == 0
    assert "timings" not in json.loads(capsys.readouterr().out)
    assert main(["certify", str(MIXED), "-c", "gate-edge", "-o", "c.json"]) == 0
    assert "timings" in json.loads((tmp_path / "c.json").read_text())


@pytest.mark.parametrize("option", [["--jobs", "1"], ["--no-refute"]])
def test_certify_every_k_refuses_the_per_circuit_options_jobs_and_no_refute(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]) -> None:
    """The every-K route passes neither to its proof (one process; a witness is searched whatever --no-refute says):
    both exited 0 doing nothing; now they are refused as --binarize, -K, --export-smt and --cluster were."""
    out = tmp_path / "c.json"
    line = _one_line(capsys, ["certify", str(MIXED), "-c", "gate-edge", "--every-k", *option, "-o", str(out)], 2)
    assert option[0] in line and "per-circuit route" in line and not out.exists()
    text = " ".join((DOCS / "cli.md").read_text().split())
    assert f"`{option[0]}`" in text[text.index("2 bad input: a netlist"):text.index("(per-circuit options")]
    assert main(["certify", str(MIXED), "-c", "gate-edge", *option, "-o", str(out)]) == 0  # the per-circuit route


def test_check_defence_budget_for_a_certificate_without_an_interpreter_run_is_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The kernel's interpreter (S-step D) runs for per-circuit certificates only; ``--defence-budget`` given for a
    schematic or audit certificate was accepted and did nothing (exit 0), as ``--circuit`` for an audit one was not."""
    for cert in (ROOT / "proofs" / "constructions" / "gate-edge.every-K.schematic.json",
                 next((ROOT / "proofs" / "audit").glob("*.json"))):
        line = _one_line(capsys, ["check", str(cert), "--defence-budget", "0"], 2)
        assert line.startswith("verified-aat: --defence-budget: ") and "per-circuit" in line
    assert main(["check", str(ROOT / "proofs" / "gate-edge" / "mixed_depth6.cert.json"), "--defence-budget", "0"]) == 0
    assert "defence      skipped (budget 0)" in capsys.readouterr().out


def test_the_package_gives_every_function_the_api_page_documents() -> None:
    """docs/api.md: "`import verified_aat as va` gives the functions below" — the page renders every public function
    of api.py, and `va.solver_options` was an AttributeError."""
    public = [name for name, value in vars(api).items()
              if inspect.isfunction(value) and value.__module__ == api.__name__ and not name.startswith("_")]
    assert "solver_options" in public and len(public) >= 14
    for name in public:
        assert getattr(va, name) is getattr(api, name), name
        assert name in va.__all__ and name in dir(va), name
    assert va.solver_options("both")["solvers"] == ("z3", "cvc5")


def test_certificate_takes_the_original_circuit_as_a_path_as_every_circuit_parameter_does(tmp_path: Path) -> None:
    """docs/api.md: a circuit parameter also takes the file's path, and another kind is a TypeError naming the function
    and the parameter; ``certificate(result, circuit=PATH)`` raised AttributeError ('str' has no 'provenance')."""
    bench = tmp_path / "and3.bench"
    bench.write_text("INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(t)\nt = AND(a, b, c)\n")
    from dataclasses import replace
    from verified_aat.circuits.link_section import netlist_section
    netlist = va.load_circuit(bench)
    assert netlist.provenance is not None and netlist_section(netlist) is not None
    stripped = replace(netlist, provenance=replace(netlist.provenance, netlist_link=None))
    assert netlist_section(stripped) is None  # the result's circuit has lost its link to the netlist
    result = va.certify(stripped, "gate-edge")
    doc = va.certificate(result, circuit=str(bench))  # the original, by path: its link goes into the certificate
    assert doc["netlist"]["format"] == "bench"
    report = va.check(doc, bench)
    assert report.outcome == "accepted" and "netlist 'and3.bench'" in report.theorem
    with pytest.raises(TypeError, match="certificate: circuit must be a Circuit or a circuit file's path, got int"):
        va.certificate(result, circuit=3)  # type: ignore[arg-type]


def test_refute_of_an_unedited_transformer_exits_0_as_its_section_now_says(
        compiled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join((DOCS / "cli.md").read_text().split())
    section = text[text.index("**refute** — "):text.index("**prove-construction** — ")]
    assert "exit 1, or 3" in section and "or 0 when the kernel accepts" in section
    assert main(["refute", str(compiled / "transformer.json"), "--budget", "20"]) == 0
    assert "result       PROVED" in capsys.readouterr().out


def test_export_no_softmax_refuses_softmax_heads_in_the_numpy_format_too(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md: "`--no-softmax` refuses softmax heads (exit 2)" for `export --format onnx|numpy`; the `.npz` was
    written with the softmax head in it (exit 0), only ONNX refused."""
    soft = tmp_path / "soft.json"
    soft.write_text((compiled / "transformer.json").read_text().replace('"average"', '"softmax"', 1))
    for name in ("s.npz", "s.onnx"):
        line = _one_line(capsys, ["export", str(soft), "--no-softmax", "-o", str(tmp_path / name)], 2)
        assert str(soft) in line and "softmax pooling is not exported" in line and "--no-softmax" in line
        assert not (tmp_path / name).exists()
    assert main(["export", str(soft), "-o", str(tmp_path / "s.npz")]) == 0  # without the option: exported
    with np_load(tmp_path / "s.npz") as arrays:
        assert "softmax" in {str(arrays[key]) for key in arrays.files if key.endswith("_pooling")}
    assert main(["export", str(compiled / "transformer.json"), "--no-softmax", "-o", str(tmp_path / "h.npz")]) == 0


def np_load(path: Path):  # type: ignore[no-untyped-def]
    import numpy
    return numpy.load(str(path), allow_pickle=False)


def test_the_model_refusals_name_standard_input_as_stdin(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/cli.md: errors about a document read from `-` name `<stdin>`, as every other reader's do."""
    import io
    text = (compiled / "transformer.json").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    line = _one_line(capsys, ["export", "-", "-o", str(tmp_path / "m.onnx"), "--softmax-temperature", "2"], 2)
    assert line.startswith("verified-aat: <stdin>: --softmax-temperature")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.replace(b'"average"', b'"softmax"', 1))))
    line = _one_line(capsys, ["export", "-", "-o", str(tmp_path / "m.npz"), "--no-softmax"], 2)
    assert line.startswith("verified-aat: <stdin>: layer 1, head ") and "not exported" in line


def test_a_softmax_model_is_refused_at_its_file_by_refute_audit_and_run(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad input names its file: `refute SOFT.json` said `<input>: softmax pooling is not exact` (no file), and a MODEL
    read from `-` was named `-` by audit and run (docs/cli.md: `<stdin>`)."""
    import io
    soft = tmp_path / "soft.json"
    soft.write_text((compiled / "transformer.json").read_text().replace('"average"', '"softmax"', 1))
    line = _one_line(capsys, ["refute", str(soft), "--budget", "5"], 2)
    assert re.match(rf"verified-aat: {re.escape(str(soft))}:\d+: layer 1, head \w+: softmax pooling", line), line
    for argv in (["refute", "-", "--budget", "5"], ["audit", "-", "--lengths", "2"],
                 ["run", "-", "--encoding", str(compiled / "encoding.json"), "--input=1,2,3"]):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(soft.read_bytes())))
        line = _one_line(capsys, argv, 2)
        assert line.startswith("verified-aat: <stdin>") and "softmax pooling" in line, (argv, line)


def test_run_option_conflicts_say_where_as_docs_cli_md_lists(
        compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md's table of where a bad-input line points has a file, a JSON path, an option, the command line and
    standard input; three of run's option conflicts said `<input>:`, none of them."""
    vectors = tmp_path / "v.txt"
    vectors.write_text("1,2,3\n")
    sequence = tmp_path / "s.json"
    sequence.write_text(json.dumps({"format": "verified-aat/sequence", "version": 1,
                                    "coordinates": ["op", "a", "b", "val", "sq"], "vectors": [["0"] * 5]}))
    model, encoding = str(compiled / "transformer.json"), str(compiled / "encoding.json")
    for argv in (["run", model, "--sequence", str(sequence), "--input", "1"],
                 ["run", model, "--encoding", encoding, "--inputs", str(vectors), "--input", "1,2,3"],
                 ["run", model, "--sequence", str(sequence), "--inputs", str(vectors)]):
        line = _one_line(capsys, argv, 2)
        assert line.startswith("verified-aat: command line: --input"), line
