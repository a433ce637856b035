"""The up-front memory estimate: a run whose lower bound is past --max-memory is refused before it starts
(exit 3, one line, nothing written), and the bound is below what real runs use, so it never refuses a run
that would have fitted."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat.cli.resources import BASE_MB, BYTES_PER_UNIT, LimitReached, estimated_memory_mb, require_memory

PEAK = """
import sys
from verified_aat.cli.main import main
code = main(sys.argv[1:])
peak = [int(l.split()[1]) // 1024 for l in open('/proc/self/status') if l.startswith('VmPeak')]
print(code, peak[0], file=sys.stderr)
"""


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *argv], capture_output=True, text=True)


def _wide_circuit(path: Path, fan_in: int) -> None:
    path.write_text("circuit wide\ninput x\ns = add " + " ".join(["x"] * fan_in) + "\noutput s\n")


def test_certify_past_the_estimate_is_refused_before_it_starts(tmp_path):
    source, out = tmp_path / "wide.circ", tmp_path / "cert.json"
    _wide_circuit(source, 1_000_000)
    done = _cli("certify", str(source), "-c", "gate-edge", "--max-memory", "600", "-o", str(out))
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused before starting" in lines[0]
    assert "1,000,000 circuit edges" in lines[0] and "--max-memory 600 MB" in lines[0]
    assert f"~{estimated_memory_mb('certify', 1_000_000):,} MB" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wide.circ"]


def test_check_past_the_estimate_is_refused_and_within_it_goes_to_the_kernel(tmp_path):
    doc = {"format": "verified-aat/certificate", "version": 2,
           "circuit": {"gates": [["input", 0], ["add", [0] * 1_000_000]], "outputs": [1]}}
    cert = tmp_path / "big.json"
    cert.write_text(json.dumps(doc))
    refused = _cli("check", str(cert), "--max-memory", "600")
    assert refused.returncode == 3 and "refused before starting" in refused.stderr
    assert "1,000,000 circuit edges × 500 B" in refused.stderr
    judged = _cli("check", str(cert), "--max-memory", "20000")  # the kernel rejects the incomplete document
    assert judged.returncode == 1 and "refused before starting" not in judged.stderr


@pytest.mark.parametrize("command, units, unit_name", [("run", 3_000_000, "positions"),
                                                        ("audit", 40_000_000, "unrolled gates"),
                                                        ("check", 1_000_000, "circuit edges")])
def test_require_memory_names_the_unit_and_the_option(command, units, unit_name):
    needed = BASE_MB + units * BYTES_PER_UNIT[command] // 2**20
    with pytest.raises(LimitReached, match=f"{units:,} {unit_name}") as info:
        require_memory(command, units, argparse.Namespace(max_memory=needed - 1))
    assert f"~{needed:,} MB" in str(info.value)
    require_memory(command, units, argparse.Namespace(max_memory=needed))  # exactly at the limit: allowed
    require_memory(command, 10**12, argparse.Namespace())  # a command without --max-memory: no estimate


def test_the_estimate_is_a_lower_bound_on_real_runs(tmp_path):
    """Measured address-space peaks of real certify and check runs lie above the estimate."""
    cert = tmp_path / "relu.json"
    done = subprocess.run([sys.executable, "-c", PEAK, "certify", "--family", "relu", "--n", "10000", "--jobs", "1",
                           "-o", str(cert)], capture_output=True, text=True)
    code, peak_mb = map(int, done.stderr.split()[-2:])
    edges = sum(len(g[1]) for g in json.loads(cert.read_text())["circuit"]["gates"] if isinstance(g[1], list))
    assert code == 0 and edges == 70_000
    assert estimated_memory_mb("certify", edges) < peak_mb
    done = subprocess.run([sys.executable, "-c", PEAK, "check", str(cert), "--jobs", "1"], capture_output=True,
                          text=True)
    code, peak_mb = map(int, done.stderr.split()[-2:])
    assert code == 0 and estimated_memory_mb("check", edges) < peak_mb


def test_audit_past_the_estimate_is_refused_before_unrolling(tmp_path):
    """The unrolled size is known from T alone (audit/size.py): N = 60 needs ~14·10⁶ gates."""
    spec = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "mixed_depth6.circ"
    refused = _cli("audit", "-c", "gate-edge", str(spec), "--lengths", "3,60", "--max-memory", "500")
    assert refused.returncode == 3 and "refused before starting" in refused.stderr
    assert "unrolled gates × 50 B" in refused.stderr and refused.stdout == ""
    assert _cli("audit", "-c", "gate-edge", str(spec), "--lengths", "3", "--max-memory", "500").returncode == 0


def test_round_trip_past_the_estimate_is_refused_before_unrolling():
    """A round trip builds U_N only when it is small or a per-N link 2 needs it (``--defect``): then its size,
    known from T_K alone, is checked up front.  fnc0_clamp_unit via unique-hard-left at N = 32 (within the
    per-N caps) unrolls into ~3.5·10⁶ gates."""
    spec = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "fnc0_clamp_unit.circ"
    refused = _cli("audit", "-c", "unique-hard-left", str(spec), "--round-trip", "--defect", "gt-as-ge",
                   "--max-memory", "250")
    assert refused.returncode == 3 and "3,468,116 unrolled gates" in refused.stderr
    assert "refused before starting" in refused.stderr and refused.stdout == ""


def test_round_trip_that_does_not_build_u_n_is_not_refused_for_it():
    """c17 through gate-edge: U_N at N = 50 would have ~8·10⁶ gates (measured peak 871 MB when it was built);
    with the all-N certificate it is not built and link 3 follows by composition, so 1000 MB is enough."""
    c17 = Path(__file__).resolve().parent.parent.parent / "shared" / "circuits" / "iscas85" / "c17.bench"
    if not c17.exists():
        pytest.skip(f"{c17} is not beside the checkout")
    done = _cli("audit", "-c", "gate-edge", str(c17), "--round-trip", "--max-memory", "1000")
    assert done.returncode == 0 and "8,153,161 gates (size formula; not built" in done.stdout
    assert "result: proved" in done.stdout
