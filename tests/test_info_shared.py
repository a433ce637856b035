"""`info` on every shared netlist prints the numbers of shared/circuits/README.md."""

import json

import pytest

from netlist_helpers import SHARED, TABLE, needs_shared
from verified_aat.cli.main import main


@needs_shared
@pytest.mark.parametrize("name", sorted(TABLE))
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_info_reports_the_readme_numbers(name, mode, capsys):
    inputs, outputs, gates, fan_in, depth = TABLE[name]
    assert main(["info", str(SHARED / name), "--mode", mode, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (len(data["inputs"]), len(data["outputs"])) == (inputs, outputs)
    assert (data["netlist"]["gates"], data["netlist"]["max_fan_in"], data["netlist"]["depth"]) == (gates, fan_in, depth)
    assert data["arithmetization"] == mode
    assert ("all of Q^n" in data["domain_note"]) == (mode == "exact")
    assert main(["info", str(SHARED / name), "--mode", mode]) == 0
    text = capsys.readouterr().out
    assert f"inputs          {inputs}" in text and f"outputs         {outputs}" in text
    assert f"depth         {depth}" in text
