"""The README's two commands exist as documented, and .ci/run runs exactly the test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    assert len(commands) >= 2
    test_command = commands[1].strip()
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text()
    assert (ROOT / commands[0].split("certify ")[1].split()[0]).exists()
