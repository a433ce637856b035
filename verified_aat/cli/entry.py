"""The ``verified-aat`` console script (pyproject.toml) and ``python -m verified_aat.cli.entry``.

It installs the signal handlers (:mod:`.signals`, which imports only os, signal and sys) before anything
heavy loads: a SIGINT or SIGTERM while the parser, the command modules and numpy load is one line and
exit 130 or 143, as it is during and after the command (docs/cli.md, "Exit codes")."""

from __future__ import annotations

import sys

from .signals import as_process


def main() -> int:
    """The command line on ``sys.argv``, as the whole process."""
    return as_process(_run)


def _run() -> int:
    from .main import run  # the parser and every command module load here, under the handlers

    return run(None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
