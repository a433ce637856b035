"""``--json`` for ``certify``, ``check``, ``refute``, ``audit`` and ``info``: one JSON object on stdout.

The envelope, its statuses and exit codes, and rationals as strings are
:mod:`verified_aat.json_envelope` (re-exported here; the report pages use them too).
Bad input prints no JSON: one line on stderr, exit 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ..json_envelope import (EXIT_FOR_STATUS, SCHEMA, STATUSES, counterexample_json, envelope,  # noqa: F401
                             rational)


def add_json_argument(parser: Any) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object on stdout instead of text (schema: docs/cli.md); "
                             "progress stays on stderr, bad input is still one line on stderr and exit 2")


def emit(doc: dict[str, Any]) -> int:
    """Print ``doc`` as the only thing on stdout; return its exit code."""
    sys.stdout.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return int(doc["exit_code"])

