"""Red team, round 7: what a small hostile certificate could make the kernel spend, and a look-alike name.

Each was found by a helper forging certificates with the kernel's own derivation (hashes and counts
consistent); none was a false ACCEPTED. The class of each fix: every bound counts the whole certificate, and
every kind of work under a budget is charged to it.
"""

from __future__ import annotations

import copy
from fractions import Fraction
import json
import time
from pathlib import Path

import pytest

from verified_aat.kernel import Options, check_certificate, load_certificate
from verified_aat.kernel.attention import WORK, brute_force, budget_for
from verified_aat.kernel.data import Circuit, Gate, NotChecked

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "redteam_round7"
AUDIT = ROOT / "proofs" / "audit" / "mixed_pooling.N1-4.audit.json"


def _sign_bomb(var: str) -> str:
    """A TERM under 2,000 characters: 60 sign atoms, s³ of their sum (37,820 monomials), then sgn of it again and
    again: each sgn sorts the whole polynomial, which no product counted."""
    atoms = " ".join(f"(a{i} (sgn (+ {var} {i + 1})))" for i in range(60))
    head = f"(let ({atoms}) (let ((s (+ {' '.join(f'a{i}' for i in range(60))}))) (let ((q (* s s s))) (+ "
    body = ""
    while len(head) + len(body) + 14 < 2000:
        body += "(sgn q) "
    return head + body + "))))"


def test_proof_objects_that_sort_one_large_value_again_and_again_stop_at_the_budget() -> None:
    """Was 8.5 s per lemma, 207 s for a 91 KB certificate of 22 such objects: now each node's normal form is charged
    by its size, and the objects after the first one past its budget are not checked."""
    doc = json.loads(AUDIT.read_text())
    replaced = 0
    for lemma in doc["lemmas"]:
        if "proof" in lemma and replaced < 22:
            var = lemma["smt2"].split("(declare-const ")[1].split(" ")[0]
            chain: dict = {"identity": True}
            for _ in range(12):
                chain = {"signs": [], "then": chain}
            lemma["proof"] = {"cases-on": _sign_bomb(var), "cases": [chain, {"identity": True}, {"identity": True}]}
            replaced += 1
    assert replaced == 22
    report = check_certificate(doc, Options(solver_trust=False))  # about 1.3 s (was 207 s): benchmarks in the note
    assert report.outcome == "not-checked", report.reasons
    assert any("the proof objects after" in u and "are not checked (past a limit)" in u for u in report.unchecked)
    assert sum("could not be checked to the end" in u for u in report.unchecked) == 1


def test_an_honest_audit_certificate_still_checks_every_proof_object() -> None:
    report = check_certificate(json.loads(AUDIT.read_text()), Options(solver_trust=False))
    assert report.accepted and not report.solver_only, report.reasons


def test_brute_force_is_bounded_for_all_heads_together() -> None:
    """Was per head: 40 heads of brute force on 1,480 positions, each just within 10^8 steps, took 93 s (58 KB)."""
    report = check_certificate(load_certificate(str(DATA / "forty_brute_force_heads.cert.json")))  # 1.6 s, was 93
    assert report.outcome == "not-checked", report.reasons
    assert any("the argmax sets of all heads cost more than" in u for u in report.unchecked), report.unchecked


def test_one_budget_spent_by_two_heads_runs_out_where_each_alone_would_not() -> None:
    rows = [(i, 0) for i in range(100)]
    score = Circuit(tuple([Gate("input", index=0), Gate("input", index=1), Gate("input", index=2),
                           Gate("input", index=3), Gate("mul", (0, 2))]), (4,), 4, (0, 1, 2, 3))
    cost = len(rows) ** 2 * len(score.gates)
    shared = [cost + cost // 2]
    assert brute_force(rows, score, shared)[5] == (99,)  # the greatest i·j for i > 0
    with pytest.raises(NotChecked, match="all heads"):
        brute_force(rows, score, shared)
    assert brute_force(rows, score, [cost]) and budget_for(rows) == [WORK + 100 * len(rows)]


def test_a_built_in_name_spelled_with_a_look_alike_letter_is_refused() -> None:
    """gatе-edge (a Cyrillic е) was not "named like a built-in", so an embedded document under it was ACCEPTED and
    the theorem printed enc_gatе-edge. Construction names are ASCII, in the kernel and in the engine's reader."""
    from verified_aat.constructions.document import parse_document
    from verified_aat.errors import InputError
    cert = json.loads((ROOT / "proofs" / "gate-edge" / "abs_via_sign.cert.json").read_text())
    spoof = "gat\u0435-edge"
    document = json.loads((ROOT / "verified_aat" / "data" / "constructions" / "gate-edge.json").read_text())
    document["name"] = spoof
    forged = copy.deepcopy(cert) | {"construction": spoof, "construction_document": document}
    report = check_certificate(forged, Options(solver_trust=False))
    assert report.outcome == "rejected" and "ASCII" in report.reasons[0], report.reasons
    with pytest.raises(InputError, match="ASCII"):
        parse_document(document, "spoof.json")


@pytest.mark.parametrize("via_link", [False, True])
def test_an_output_that_names_standard_output_never_replaces_the_file_behind_it(tmp_path: Path, via_link: bool) -> None:
    """``certify C -o /dev/stdout >> log`` followed the links to log and renamed its temporary file over it: the log's
    earlier lines were gone (red team, round 7). A link of the user's own to /proc/self/fd/1 is the same."""
    import subprocess
    import sys
    log = tmp_path / "log.txt"
    log.write_text("an earlier line\n")
    target = "/dev/stdout"
    if via_link:
        (tmp_path / "out.json").symlink_to("/proc/self/fd/1")
        target = str(tmp_path / "out.json")
    with log.open("ab") as out:
        done = subprocess.run([sys.executable, "-m", "verified_aat.cli.main", "certify", str(ROOT / "specs" / "circuits" /
                               "mixed_depth6.circ"), "-c", "gate-edge", "-o", target], stdout=out, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "names an open file of this process" in done.stderr and done.stderr.count("\n") == 1
    assert log.read_text() == "an earlier line\n"


def test_an_encoding_whose_inputs_settle_before_layer_0_runs(tmp_path: Path) -> None:
    """kind_offsets of −1 at gate offset 0 (docs/construction-format.md's form): certify proved the document, compile
    wrote encoding.json with settle layer −1, and run refused that file (red team, round 7). Written as layer 0."""
    import subprocess
    import sys
    doc = DATA / "gate-edge-offsets-minus-one.json"
    circuit = ROOT / "specs" / "circuits" / "inner_product_3.circ"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *args], capture_output=True, text=True,
                              timeout=300)
    assert cli("compile", str(circuit), "-c", str(doc), "-K", "2", "-o", str(tmp_path / "out")).returncode == 0
    settle = json.loads((tmp_path / "out" / "encoding.json").read_text())["settle"]["patterns"]
    assert min(layer for pattern in settle for layer, _ in pattern) == 0
    ran = cli("run", str(tmp_path / "out" / "transformer.json"), "--encoding", str(tmp_path / "out" / "encoding.json"),
              "--input=1,2,3,4,5,6")
    assert ran.returncode == 0 and ran.stdout.startswith("outputs: 32"), (ran.stdout, ran.stderr)


def test_a_witness_at_a_lemma_models_id_is_brought_down_to_the_least_failing_id() -> None:
    """T_6 with the mul selector's 1/6 written 1/7 (every mul wrong) was refuted by a mul after four inputs that
    nothing reads (the id a false lemma's model chose); the smallest witness, mul x0 x1, fails the same way."""
    import verified_aat.api as va
    found = va.refute(str(DATA / "gate-edge-T6-mul-selector-1-7.json"), "gate-edge")
    assert found.status.value == "refuted"
    assert found.circuit is not None and found.circuit.n_inputs == 2 and len(found.circuit.gates) == 3, found.circuit


def test_an_output_right_where_scheduled_and_spoiled_later_shows_the_layer_where_it_departs() -> None:
    """T_3 with 1/10^9 added in its last gather layer: every gate was "ok" at its scheduled layer, and the report
    showed no mismatch (first_mismatch null). Now the read-out's departure is the last step: layer 6."""
    import verified_aat.api as va
    found = va.refute(str(DATA / "gate-edge-T3-last-gather-plus-1e-9.json"), "gate-edge", budget=30)
    assert found.counterexample is not None
    last = found.counterexample.steps[-1]
    assert not last.agrees and last.layer == 6 and all(s.agrees for s in found.counterexample.steps[:-1])
    assert last.transformer_value - last.circuit_value == Fraction(1, 10**9)


@pytest.mark.parametrize("k", [1, 2])
def test_refute_below_the_k_a_correct_t_is_meant_for_is_proved_by_its_theorem(k: int) -> None:
    """refute -K 1 and -K 2 of gate-edge's own T_3 were unknown after the whole budget; its every-circuit theorem
    at K = 3 covers depth <= k."""
    import verified_aat.api as va
    found = va.refute(va.construction("gate-edge").transformer(3), "gate-edge", depth_bound=k, budget=30)
    assert found.status.value == "proved" and "depth ≤ 3" in found.proved, found
    wrong = va.refute(str(DATA / "gate-edge-T3-last-gather-plus-1e-9.json"), "gate-edge", depth_bound=k, budget=30)
    assert wrong.status.value == "refuted"


def test_ctrl_c_in_a_forked_worker_ends_it_quietly_by_the_signal() -> None:
    """Ctrl-C reaches every process of the foreground group (and GNU timeout signals the group): the solver pool's
    forked workers each printed a KeyboardInterrupt traceback ("Process ForkProcess-1: ...") beside the command's
    one line. While a command runs, a forked worker now ends by the signal, raising nothing."""
    import os
    import signal
    from verified_aat.cli import signals
    previous = signals.while_running()
    try:
        pid = os.fork()
        if pid == 0:  # the worker: a raised KeyboardInterrupt is what printed the traceback
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
                os._exit(0)
            except BaseException:
                os._exit(7)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT, status
        with pytest.raises(KeyboardInterrupt):  # in the process that installed the handlers: raised as before
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
    finally:
        signals.restore(previous)


def test_nested_mins_in_a_row_formula_are_not_checked_at_once() -> None:
    """An 8.3 KB schematic certificate whose document writes a gate row as 24 nested min(…, 1): with a symbolic id
    each min wrote its operand twice, the text doubled at each level, and the check took 115 s and 655 MB."""
    report = check_certificate(load_certificate(str(DATA / "gate-edge-24-nested-mins.every-K.json")))  # 0.3 s
    assert report.outcome == "not-checked" and any("100,000 characters" in u for u in report.unchecked), report.reasons


def test_settle_layers_below_0_are_written_0_and_shared_patterns_stay_shared() -> None:
    """The clamp of settle layers below 0 first built a new pattern per position: certify's peak at 10⁶ gates went
    from 1,421 to 1,785 MiB. Patterns are shared objects, and stay so."""
    import verified_aat.api as va
    compiled = va.compile(va.family("relu", 50))
    settle = compiled.encoding.settle
    assert settle is not None and len({id(p) for p in settle}) < len(settle) / 10
    again = compiled.encoding.with_settle(settle).settle
    assert all(a is b for a, b in zip(again, settle))
    shifted = [tuple((s - 1, c) for s, c in p) for p in settle[:3]]
    clamped = compiled.encoding.with_settle(shifted + list(settle[3:])).settle
    assert min(s for p in clamped for s, _ in p) == 0 and clamped[3] is settle[3]


@pytest.mark.parametrize("version", ["1.0", "true"])
def test_a_json_circuit_of_version_1_0_or_true_is_refused_by_both_readers(version: str) -> None:
    """JSON's 1.0 and true compare equal to 1 in Python: both readers took them for version 1 (red team, round 7)."""
    from verified_aat.circuits.json_format import parse_circuit_json
    from verified_aat.errors import InputError
    from verified_aat.kernel.circuit_file import read_circuit
    text = ('{"format": "verified-aat/circuit", "version": %s, "inputs": ["x"], "gates": [{"name": "x", "op": "input"},'
            ' {"name": "g", "op": "add", "args": ["x", "x"]}], "outputs": ["g"]}') % version
    with pytest.raises(InputError, match="version"):
        parse_circuit_json(text, "c.json")
    with pytest.raises(NotChecked, match="version 1"):
        read_circuit(text.encode(), "json")
    parse_circuit_json(text.replace(f'"version": {version}', '"version": 1'), "c.json")
    read_circuit(text.replace(f'"version": {version}', '"version": 1').encode(), "json")


@pytest.mark.parametrize("command, status", [(["certify", "--family", "relu", "--n", "20000", "-c", "gate-edge"],
                                              "unknown"),
                                             (["check", str(ROOT / "proofs" / "gate-edge" / "abs_via_sign.cert.json")],
                                              "not-checked")])
def test_a_limit_reached_with_json_prints_the_one_object_exit_3_promises(command: list[str], status: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md: exit 0, 1 and 3 come with a JSON object; a limit reached (exit 3) printed none."""
    from verified_aat.cli.main import main
    assert main([*command, "--max-memory", "64", "--json"]) == 3  # refused before it starts: a limit, not a race
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["status"] == status and doc["exit_code"] == 3 and "limit reached" in doc["reasons"][0]
    assert err.count("\n") == 1 and "limit reached" in err


def test_audit_of_forty_squarings_stops_at_the_bits_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """audit --lengths 1 of 40 layers of x <- x*x grew to 6 GB in a minute: the unrolling's evaluator and the
    independent reference had no bits-per-value limit (the exact engine and eval have 200,000 bits)."""
    from verified_aat.cli.main import main
    model = tmp_path / "sq40.json"
    model.write_text(json.dumps(_squarings(40)))
    assert main(["audit", str(model), "--lengths", "1"]) == 3  # at once, where it grew to 6 GB
    assert "bits-per-value limit" in capsys.readouterr().err


def _squarings(layers: int) -> dict:
    """A transformer spec of one coordinate and ``layers`` layers with no heads, each x <- x*x."""
    return {"format": "verified-aat/transformer", "version": 1, "name": "sq", "coordinates": ["a"],
            "functions": {"sq": ["s = mul x.a x.a", "output s"]},
            "layers": [{"name": f"l{k}", "heads": [], "activation": "sq"} for k in range(layers)]}


def test_the_audit_reference_reads_a_bilinear_score_by_its_non_zero_entries() -> None:
    """d = 256 with one non-zero entry: the reference multiplied all 65,536 (audit --lengths 1..6 past 60 s)."""
    from verified_aat.audit.reference import score
    from verified_aat.transformer.model import BilinearScore, Head, Pooling
    products = []

    class Counted(Fraction):
        def __rmul__(self, other: object) -> Fraction:
            products.append(1)
            return Fraction(other) * Fraction(self)  # type: ignore[arg-type]
    d = 256
    matrix = tuple(tuple(Fraction(3) if (r, c) == (1, 2) else Fraction(0) for c in range(d)) for r in range(d))
    head = Head("h", BilinearScore(matrix), Pooling.AVERAGE)
    xi, xj = tuple(Counted(k) for k in range(d)), tuple(Counted(k + 1) for k in range(d))
    assert score(head, xi, xj) == 3 * 1 * 3 and len(products) == 2


def test_z3_runs_under_one_memory_cap_in_the_engine_and_the_kernel() -> None:
    """A COPY lemma made Z3 run past its time limit to 22 GB (red team, round 7): both runners cap it at 2 GB."""
    from verified_aat.kernel.solvers import Z3_MEMORY_MB as kernel_cap
    from verified_aat.limits import Z3_MEMORY_MB as engine_cap
    assert kernel_cap == engine_cap == 2_048


def test_the_max_time_alarm_raised_in_a_gc_callback_is_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """--max-time's alarm can fire inside a garbage-collector callback, where Python can only ignore the exception:
    it printed "Exception ignored in: <function gc_callback>" and a traceback beside the one line (a flaky CI run);
    the alarm fires again 50 ms later and ends the command."""
    import gc
    import sys
    from verified_aat.cli import signals
    from verified_aat.errors import LimitReached
    previous = signals.while_running()
    signals.QUIET.append(LimitReached)

    def callback(phase: str, info: dict) -> None:
        raise LimitReached("--max-time 0.3 s")
    gc.callbacks.append(callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
        signals.QUIET.remove(LimitReached)
        signals.restore(previous)
    assert "Exception ignored" not in capsys.readouterr().err and sys.unraisablehook is not signals._unraisable
