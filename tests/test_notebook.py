"""examples/quickstart.ipynb runs top to bottom in a fresh kernel (nbclient) and shows what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"
C17 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"


def _text(cell: dict) -> str:
    """Everything a code cell printed or displayed as text or HTML."""
    parts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            parts.append(output["text"])
        for kind in ("text/plain", "text/html"):
            if kind in output.get("data", {}):
                parts.append(output["data"][kind])
    return "\n".join(parts)


def test_the_notebook_is_committed_without_outputs():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra: pip install -e '.[test]'")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")


@pytest.mark.skipif(not C17.is_file(), reason="../shared/circuits is not beside the repository")
def test_the_quickstart_notebook_runs_and_shows_the_verdicts():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra: pip install -e '.[test]'")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra: pip install -e '.[test]'")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    cells = [_text(cell) for cell in notebook.cells if cell.cell_type == "code"]
    assert all(output for output in cells), "every code cell shows something"
    circuit, proved, checked, every_k, refuted, smallest, report = cells
    assert "&lt;Circuit &#x27;c17&#x27;" in circuit or "<Circuit 'c17'" in circuit
    assert "<CertifyResult proved for 'c17'" in proved
    assert "verdict: accepted" in checked and "reads out C(x)" in checked and "<CheckReport accepted" in checked
    assert "T_2 (K = 2) on enc_gate-edge(C, x) reads out C(x)" in every_k and "<InstanceResult proved for 'small'" in every_k
    assert "status: refuted" in refuted and "<CertifyResult refuted for 'c17'" in refuted and "differs" in refuted
    assert "counterexample (rational, replayed exactly" in smallest and "<Refutation refuted" in smallest
    assert "<iframe srcdoc=" in report and "&lt;!DOCTYPE html&gt;" in report
