"""``verified-aat report`` and ``certify/refute --report``: the content of the HTML, not its looks.

Checks what a wrong report would get wrong: the circuit's gate count, the verdict, the first
mismatch of a refuted mutant (position and gate), the edited line of a hand-edited
transformer highlighted, the fallback layout when ``dot`` is missing, and no external URL.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import verified_aat as va
from verified_aat.cli.main import main
from verified_aat.report import render_html
from verified_aat.report.diff import compiled_text
from verified_aat.report.formulas import lemma_formulas, parse_sexprs

ROOT = Path(__file__).resolve().parent.parent
C17 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"
EXTERNAL = re.compile(r"""(?:src|href|xlink:href|url)\s*[=(]\s*["']?\s*(?:https?:)?//""", re.I)

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _c17():
    if not C17.exists():
        pytest.skip(f"{C17} is missing (../shared beside the checkout)")
    return va.load_circuit(str(C17))


@pytest.fixture(scope="module")
def c17_certificate() -> dict:
    return va.certificate(va.certify(_c17(), "gate-edge"))


def _section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}".*?</section>', page, re.S)
    assert match, f"no section {name}"
    return match.group(0)


def _edited_t17(tmp_path: Path) -> tuple[Path, int, str]:
    """c17's T_K as compile writes it, with one activation line changed by hand: add reads mean² (wrong)."""
    from verified_aat.constructions.registry import get_construction

    lines = compiled_text(get_construction("gate-edge").transformer(6)).splitlines()
    number = next(i for i, line in enumerate(lines) if '"add_value = mul x.op gather.val"' in line)
    lines[number] = lines[number].replace("mul x.op gather.val", "mul gather.val gather.val")
    path = tmp_path / "edited.json"
    path.write_text("\n".join(lines) + "\n")
    return path, number + 1, lines[number].strip()


def test_certificate_report_shows_gate_count_verdict_and_sections(c17_certificate: dict) -> None:
    page = render_html(c17_certificate, check=True)
    verdict = _section(page, "verdict")
    assert 'data-status="accepted"' in verdict and 'data-gates="20"' in verdict
    assert "20 gates, 30 edges, 5 inputs, 2 outputs" in verdict
    assert "for every x in R^5" in verdict  # the kernel's theorem
    for name in ("circuit", "layout", "attention", "obligations", "trusted-base"):
        _section(page, name)
    assert "counterexample" not in page.split("<main>")[1][:200]
    # every obligation kind of the certificate, with its count
    table = _section(page, "obligations")
    for kind, count in c17_certificate["derived"]["obligations"].items():
        assert re.search(rf"<td>{re.escape(kind)}</td><td class=\"num\">{count:,}</td>", table), kind
    assert table.count("<math") >= 4 and "<mi>sgn</mi>" in table
    assert "<mn>0</mn><mo>=</mo><mn>0</mn>" not in table  # key lemmas as written, not collected to 0 = 0
    # one heat-map per head of each distinct layer function, as PNG data URIs
    assert _section(page, "attention").count('src="data:image/png;base64,') == 2
    assert not EXTERNAL.search(page), EXTERNAL.search(page)
    assert "<script" not in page


def test_unchecked_certificate_says_so(c17_certificate: dict) -> None:
    page = render_html(c17_certificate)
    assert 'data-status="proved"' in page and "not re-checked here" in page


def test_fallback_layout_when_dot_is_missing(c17_certificate: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import verified_aat.report.circuit_drawing as drawing

    monkeypatch.setattr(drawing.shutil, "which", lambda name: None)
    circuit = _section(render_html(c17_certificate), "circuit")
    assert 'data-layout="pure-Python layered layout (Graphviz dot not found)"' in circuit
    assert 'class="fallback-layout"' in circuit
    assert circuit.count('<g class="node"') == 20  # every gate drawn, each labelled
    assert ">22<" in circuit and ">add<" in circuit  # the netlist's net names (gate 16 is net 22)
    assert ">g16<" not in circuit


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed (apt-get install graphviz)")
def test_graphviz_layout(c17_certificate: dict) -> None:
    circuit = _section(render_html(c17_certificate, layout="graphviz"), "circuit")
    assert 'data-layout="graphviz dot"' in circuit
    assert circuit.count('class="node"') == 20 and "<!DOCTYPE" not in circuit


def test_refuted_edit_report_has_trace_mismatch_and_highlighted_line(tmp_path: Path, capsys) -> None:
    edited, line, text = _edited_t17(tmp_path)
    out = tmp_path / "refuted.html"
    code = main(["certify", str(_c17_path()), "-c", "gate-edge", "--transformer", str(edited), "--report",
                 str(out), "--layout", "python"])
    assert code == 1
    assert "report           " in capsys.readouterr().out
    page = out.read_text()
    assert 'data-status="refuted"' in page
    cex = _section(page, "counterexample")
    first = re.search(r'id="first-mismatch" data-position="(\d+)" data-gate="([^"]+)"', cex)
    assert first, "no first mismatch"
    # the trace's last row is the mismatch, and it is the first add gate the edit breaks
    rows = re.findall(r"<tr class=\"(agrees|mismatch)\">(.*?)</tr>", cex)
    assert rows[-1][0] == "mismatch" and all(kind == "agrees" for kind, _ in rows[:-1])
    assert f'<td>{first.group(2)}</td><td>add</td>' in rows[-1][1]
    assert f'<td class="num">{int(first.group(1))}</td>' in rows[-1][1]
    edits = _section(page, "edits")
    assert f"1 edited line: {line}." in edits
    highlighted = re.findall(r'<tr class="edited" data-line="(\d+)">(.*?)</tr>', edits)
    assert [int(n) for n, _ in highlighted] == [line]
    assert "mul gather.val gather.val" in highlighted[0][1] and "mul x.op gather.val" in highlighted[0][1]
    # the mismatching gate is outlined in red in the drawing
    position = int(first.group(1))
    assert re.search(r'<g class="node" id="g\d+"><title>[^<]*</title><rect [^>]*stroke="#d00000"', page)
    assert position >= 0 and not EXTERNAL.search(page)


def _c17_path() -> Path:
    _c17()
    return C17


def test_refute_json_then_report(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    edited, line, _ = _edited_t17(tmp_path)
    assert main(["refute", str(edited), "-c", "gate-edge", "--json"]) == 1
    result = tmp_path / "refute.json"
    result.write_text(capsys.readouterr().out)
    out = tmp_path / "r.html"
    assert main(["report", str(result), "-o", str(out), "--layout", "python"]) == 0
    page = out.read_text()
    data = json.loads(result.read_text())
    assert f'data-gates="{data["circuit"]["gates"]}"' in page
    assert f'data-position="{data["counterexample"]["first_mismatch"]["position"]}"' in page
    assert f'<tr class="edited" data-line="{line}">' in page
    # the same object on standard input (refute --json | verified-aat report - -o r.html)
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(result.read_bytes())))
    assert main(["report", "-", "-o", str(tmp_path / "stdin.html"), "--layout", "python"]) == 0
    assert f'<tr class="edited" data-line="{line}">' in (tmp_path / "stdin.html").read_text()


def test_refute_without_counterexample_writes_no_report(tmp_path: Path, capsys) -> None:
    from verified_aat.constructions.registry import get_construction

    own = tmp_path / "own.json"
    own.write_text(compiled_text(get_construction("gate-edge").transformer(2)))
    out = tmp_path / "none.html"
    assert main(["refute", str(own), "--family", "sum", "--n", "2", "--report", str(out)]) == 3
    assert "not written: no counterexample" in capsys.readouterr().err and not out.exists()


def test_report_bad_inputs(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}')
    assert main(["report", str(bad), "-o", str(tmp_path / "x.html")]) == 2
    assert "not a certificate" in capsys.readouterr().err
    assert main(["report", str(bad), "-o", str(tmp_path / "missing" / "x.html")]) == 2
    assert capsys.readouterr().err == f"verified-aat: {tmp_path / 'missing' / 'x.html'}: cannot write: no directory " \
                                      f"{tmp_path / 'missing'} (-o)\n"
    assert main(["certify", str(bad), "--report", str(tmp_path / "missing" / "y.html")]) == 2  # before any work
    assert "cannot write: no directory" in capsys.readouterr().err
    certify_json = tmp_path / "c.json"
    certify_json.write_text('{"command": "certify", "status": "refuted"}')
    assert main(["report", str(certify_json), "-o", str(tmp_path / "x.html")]) == 2
    assert "--report" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_formulas_are_exact_and_keep_sgn() -> None:
    text = ("(define-fun sgn ((v Real)) Real (ite (> v 0.0) 1.0 (ite (< v 0.0) (- 1.0) 0.0)))\n"
            "(declare-const y0 Real)\n(assert (not (= (* (/ 1.0 3.0) (sgn y0)) (- 2.5))))")
    assert parse_sexprs("(a (b c)) ; comment (\n d") == [["a", ["b", "c"]], "d"]
    [formula] = lemma_formulas(text)
    # sgn(y0)/3 = -5/2, exactly: fractions, never decimals; sgn is not evaluated away
    assert "<mn>3</mn></mfrac>" in formula.mathml and "<mfrac><mn>5</mn><mn>2</mn></mfrac>" in formula.mathml
    assert "<mi>sgn</mi>" in formula.mathml and "2.5" not in formula.mathml and "0.33" not in formula.mathml


def test_large_circuit_is_sampled_and_grouped(tmp_path: Path) -> None:
    circuit = va.family("random-fsac", 400)
    result = va.certify(circuit, "gate-edge")
    assert result.status == "proved"
    page = render_html(result, layout="python")
    drawn = _section(page, "circuit")
    assert f"a sample of 150 of {circuit.size:,} gates" in drawn and drawn.count('<g class="node"') == 150
    assert "positions are grouped by role" in _section(page, "attention")
    assert len(page) < 2_000_000


def test_layer_lists_are_compact() -> None:
    from verified_aat.report.html import layer_list

    assert layer_list([1, 3, 5]) == "1, 3, 5"
    assert layer_list(list(range(2, 3113, 2))) == "2, 4, …, 3112 (step 2, 1,556 layers)"
    assert layer_list([1, 2, 4, 8, 16, 32, 64, 100, 200]) == "1, 2, 4, 8, …, 200 (9 layers)"


def test_certificate_of_an_edited_transformer_shows_its_own_layout() -> None:
    """Not the construction's T_K (a harmless edit): layout and heat-maps come from the certificate's kernel form."""
    from mutants import SignOfDoubleMean, probe_circuit

    from verified_aat.certificates.kernel_form import transformer_form
    from verified_aat.circuits.measures import depth
    from verified_aat.report.data import from_certificate

    circuit = probe_circuit()
    edited = SignOfDoubleMean().transformer(depth(circuit))
    doc = va.certificate(va.certify(circuit, "gate-edge", transformer=edited))
    data = from_certificate(doc)
    assert data.transformer is not None and transformer_form(data.transformer) == doc["transformer"]
    assert [h.sets is not None for h in data.attention] == [True, True]
    page = render_html(doc)
    assert page.count('src="data:image/png;base64,') == 2 and "Not available" not in page


def test_unknown_result_puts_failed_lemmas_first(tmp_path: Path, capsys) -> None:
    """certify --no-refute of a wrong edit: unknown, no counterexample, the failed lemmas named and typeset first."""
    edited, line, _ = _edited_t17(tmp_path)
    out = tmp_path / "unknown.html"
    assert main(["certify", str(_c17_path()), "--transformer", str(edited), "--no-refute", "--json",
                 "--report", str(out), "--layout", "python"]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "unknown" and "report " in captured.err  # stdout stays one JSON object
    page = out.read_text()
    assert 'data-status="unknown"' in page and 'id="counterexample"' not in page
    assert f'<tr class="edited" data-line="{line}">' in page
    failed = re.findall(r'<tr class="failed"><td>([^<]+)</td>', page)
    assert failed == ["local-step:add"]
    lemmas = re.findall(r'data-kind="local-step:add" data-status="(\w+)"', page)
    assert lemmas and lemmas[0] == "failed" and "FAILED" in page


def test_a_rejected_certificate_is_reported_as_rejected(c17_certificate: dict) -> None:
    import copy

    forged = copy.deepcopy(c17_certificate)
    forged["derived"]["obligations"]["local-step:add"] += 1  # a count the kernel recomputes
    verdict = _section(render_html(forged, check=True, layout="python"), "verdict")
    assert 'data-status="rejected"' in verdict and "status-rejected" in verdict
    assert "docs/soundness.md" in verdict  # the kernel's rejection line names its step


def test_dot_is_not_run_past_the_rank_span_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1,500-deep chain of adds each reading x drew as 150 gates whose edges span 11,323 ranks: dot took 13-60 s.
    Past MAX_DOT_SPAN the pure-Python layout draws it and the page says why (a small limit here, no timing)."""
    import verified_aat.report.circuit_drawing as drawing
    from verified_aat.circuits.text_format import parse_circuit_text

    text = "circuit chain\ninput x\ng0 = add x x\n" + "".join(f"g{i} = add g{i - 1} x\n" for i in range(1, 10))
    chain = parse_circuit_text(text + "output g9\n")
    shown = drawing.sample_gates(chain)
    assert drawing.rank_span(chain, shown) == 2 + 9 * 2 + 9 * 10 // 2  # x at rank 1, g_i at i + 2
    calls: list[int] = []
    monkeypatch.setattr(drawing.shutil, "which", lambda name: "/usr/bin/dot")  # found, but never run here
    monkeypatch.setattr(drawing, "_graphviz_svg", lambda c, *rest: calls.append(c.size) or '<svg viewBox="0 0 1 1"/>')
    for layout in ("auto", "graphviz"):
        monkeypatch.setattr(drawing, "MAX_DOT_SPAN", 64)
        drawn = drawing.draw_circuit(chain, layout)
        assert not calls and drawn.layout.startswith("pure-Python layered layout (Graphviz dot not run: the drawn "
                                                     "edges span 65 ranks, past the limit of 64"), drawn.layout
        assert 'class="fallback-layout"' in drawn.svg and len(drawn.shown) == 11
        monkeypatch.setattr(drawing, "MAX_DOT_SPAN", 65)
        assert drawing.draw_circuit(chain, layout).layout == "graphviz dot" and calls == [11]
        calls.clear()
