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


def test_the_command_table_has_one_short_line_per_command():
    """Issue 21: one short line per command in the README; the details live in docs/cli.md."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `verified-aat ")]
    assert len(rows) >= 14
    assert all(len(row) <= 130 for row in rows), [row for row in rows if len(row) > 130]
    assert "docs/cli.md" in section
    details = (ROOT / "docs" / "cli.md").read_text().split("### Each command in detail", 1)[1].split("\n## ", 1)[0]
    for row in rows:
        command = row.split("`verified-aat ", 1)[1].split()[0].strip("`")
        assert f"**{command}" in details, command
