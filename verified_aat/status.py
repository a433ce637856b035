"""The typed outcomes of the public API, as ``str``-valued enums.

Each member compares equal to (and hashes as) the plain string the CLI, the
JSON output and the certificates have always used (``Status.PROVED ==
"proved"``), and ``str``/``format`` give that string, so code that compared
strings keeps working while notebooks and type checkers get real enums.
"""

from __future__ import annotations

import enum


class Status(enum.StrEnum):
    """The verdict of ``certify`` and ``refute``: *proved* only when every obligation is
    discharged; *refuted* only with an exactly replayed counterexample; else *unknown*."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


class Verdict(enum.StrEnum):
    """The trusted kernel's answer for a certificate (``check``); *not-checked* means a
    solver gave up, which is neither an acceptance nor a rejection."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    NOT_CHECKED = "not-checked"
