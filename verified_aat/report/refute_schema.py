"""The schema of a ``refute --json`` result, checked field by field before ``report`` draws it.

The object is what :func:`verified_aat.cli.refute_cmd._report_json` writes (envelope of
``cli/json_output.py``, command ``refute``).  :data:`REFUTE_SCHEMA` is a small table: per key its
type (string, natural number, boolean, exact rational ``"-3/4"``, one of a few values, nested
objects and lists) and whether it is required.  Any value that does not fit is one
:class:`~verified_aat.errors.InputError` naming the JSON path (``$.counterexample.steps[2].position``)
at the line of the offending key, so a hand-edited or truncated result never reaches the page
(which would otherwise crash, or render ``nan`` as if it were a value).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from ..circuits.rationals import NumeralError, read_numeral
from ..errors import InputError
from ..wording import plural

RESULT_SCHEMA = "verified-aat/cli-result/1"
"""The envelope version ``refute --json`` writes (``cli/json_output.SCHEMA``)."""
STATUSES = ("refuted", "unknown", "proved")
"""The statuses ``refute`` reports; ``unknown`` and ``proved`` hold no circuit, so there is nothing to draw."""
EXIT_CODES = {"refuted": 1, "unknown": 3, "proved": 0}
GATE_KINDS = ("input", "const", "add", "mul", "sign")
_RATIONAL = re.compile(r"-?[0-9]+(?:/[0-9]+)?")

Path = tuple[str | int, ...]


class _Bad(Exception):
    """A value at ``path`` that does not fit the schema."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Field:
    """One key of an object: its check and whether the key must be present."""

    check: Callable[[Any, Path], None]
    required: bool = True


def json_path(path: Path) -> str:
    """``$.a.b[3].c`` for the path ``("a", "b", 3, "c")``."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def exact_rational(value: Any, path: Path) -> Fraction:
    """A rational as ``refute --json`` writes it (``"3"``, ``"-3/4"``), parsed exactly; no ``nan``, ``1/0``, floats."""
    if not isinstance(value, str):
        raise _Bad(path, f"must be a rational as a string (\"-3/4\"), got {_kind(value)}")
    if not _RATIONAL.fullmatch(value):
        raise _Bad(path, f"not an exact rational (integer or p/q): {value[:40]!r}")
    if "/" in value and not value.split("/")[1].strip("0"):
        raise _Bad(path, f"zero denominator: {value[:40]!r}")
    try:  # the engine's one reader of numerals (Python's Fraction() stops at 4,300 digits)
        return read_numeral(value, decimals=False)
    except NumeralError as exc:
        raise _Bad(path, str(exc)) from None


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def text(value: Any, path: Path) -> None:
    if not isinstance(value, str):
        raise _Bad(path, f"must be a string, got {_kind(value)}")


def natural(value: Any, path: Path) -> None:
    if type(value) is not int or value < 0:
        raise _Bad(path, f"must be a natural number, got {_kind(value) if type(value) is not int else value}")


def boolean(value: Any, path: Path) -> None:
    if type(value) is not bool:
        raise _Bad(path, f"must be true or false, got {_kind(value)}")


def seconds(value: Any, path: Path) -> None:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise _Bad(path, f"must be a finite number of seconds >= 0, got {value!r}"[:120])


def rational(value: Any, path: Path) -> None:
    exact_rational(value, path)


def optional(check: Callable[[Any, Path], None]) -> Callable[[Any, Path], None]:
    """``check``, or null."""
    def run(value: Any, path: Path) -> None:
        if value is not None:
            check(value, path)
    return run


def one_of(*allowed: Any) -> Callable[[Any, Path], None]:
    def run(value: Any, path: Path) -> None:
        if not isinstance(value, (str, int)) or isinstance(value, bool) or value not in allowed:
            raise _Bad(path, f"must be one of {', '.join(map(str, allowed))}; got {str(value)[:60]!r}")
    return run


def construction_ref(*builtins: str) -> Callable[[Any, Path], None]:
    """A built-in construction's name, or the path of a construction document (``….json``)."""
    def run(value: Any, path: Path) -> None:
        if not isinstance(value, str) or (value not in builtins and not value.endswith(".json")):
            raise _Bad(path, f"must be one of {', '.join(builtins)} or a construction document FILE.json; "
                             f"got {str(value)[:60]!r}")
    return run


def obj(fields: dict[str, Field]) -> Callable[[Any, Path], None]:
    """An object with these keys (others are ignored), each checked."""
    def run(value: Any, path: Path) -> None:
        if not isinstance(value, dict):
            raise _Bad(path, f"must be an object, got {_kind(value)}")
        for key, f in fields.items():
            if key in value:
                f.check(value[key], path + (key,))
            elif f.required:
                raise _Bad(path + (key,), "missing (a required key)")
    return run


def list_of(check: Callable[[Any, Path], None]) -> Callable[[Any, Path], None]:
    def run(value: Any, path: Path) -> None:
        if not isinstance(value, list):
            raise _Bad(path, f"must be a list, got {_kind(value)}")
        for k, item in enumerate(value):
            check(item, path + (k,))
    return run


def map_of(check: Callable[[Any, Path], None]) -> Callable[[Any, Path], None]:
    def run(value: Any, path: Path) -> None:
        if not isinstance(value, dict):
            raise _Bad(path, f"must be an object, got {_kind(value)}")
        for key, item in value.items():
            check(item, path + (key,))
    return run


STEP = obj({"gate": Field(text), "kind": Field(one_of(*GATE_KINDS)), "layer": Field(natural),
            "position": Field(natural), "circuit_value": Field(rational),
            "transformer_value": Field(optional(rational)), "agrees": Field(boolean)})
OUTPUT = obj({"name": Field(text), "circuit": Field(rational), "transformer": Field(optional(rational)),
              "agrees": Field(boolean)})
COUNTEREXAMPLE = obj({"rational": Field(boolean), "inputs": Field(map_of(rational)),
                      "input_vector": Field(list_of(rational)), "outputs": Field(list_of(OUTPUT)),
                      "steps": Field(list_of(STEP)), "first_mismatch": Field(optional(STEP))})
CIRCUIT = obj({"name": Field(text, False), "gates": Field(natural, False), "edges": Field(natural, False),
               "inputs": Field(natural, False), "text": Field(text),
               "shrunk_from": Field(optional(obj({"gates": Field(natural), "outputs": Field(natural),
                                                   "edges": Field(natural, False)})), False)})


def refute_schema(constructions: tuple[str, ...]) -> Callable[[Any, Path], None]:
    """The whole object; ``circuit`` and ``counterexample`` are required for a refuted one (checked after)."""
    return obj({"schema": Field(one_of(RESULT_SCHEMA)), "command": Field(one_of("refute")),
                "status": Field(one_of(*STATUSES)), "exit_code": Field(natural), "reasons": Field(list_of(text), False),
                "counts": Field(map_of(natural), False), "timings": Field(map_of(seconds), False),
                "model": Field(text), "construction": Field(construction_ref(*constructions)),
                "circuit": Field(optional(CIRCUIT)), "counterexample": Field(optional(COUNTEREXAMPLE))})


def validate_refute_json(doc: Any, file: str, line_of: Callable[[Path], int | None] | None = None) -> None:
    """Check ``doc`` against the schema; the first misfit is one InputError at ``file:line``."""
    from ..constructions.registry import CONSTRUCTIONS

    try:
        refute_schema(tuple(sorted(CONSTRUCTIONS)))(doc, ())
        status = doc["status"]
        if doc["exit_code"] != EXIT_CODES[status]:
            raise _Bad(("exit_code",), f"must be {EXIT_CODES[status]} for status {status}, got {doc['exit_code']}")
        if status == "unknown":
            raise _Bad(("status",), "unknown: this refute --json result has no refuting circuit, nothing to report "
                                    "(and it is not a proof)")
        if status == "proved":
            raise _Bad(("status",), "proved: this refute --json result has no refuting circuit, nothing to report")
        for key in ("circuit", "counterexample"):
            if doc.get(key) is None:
                raise _Bad((key,), "must not be null in a refuted result")
        cex = doc["counterexample"]
        if len(cex["inputs"]) != len(cex["input_vector"]):
            raise _Bad(("counterexample", "input_vector"), f"has {plural(len(cex['input_vector']), 'value')} for "
                                                           f"{plural(len(cex['inputs']), 'input')}")
    except _Bad as bad:
        raise located(bad.path, bad.message, file, line_of) from None


def located(path: Path, message: str, file: str, line_of: Callable[[Path], int | None] | None) -> InputError:
    """An InputError for the value at ``path`` (named in the message, its line when known)."""
    return InputError(f"{json_path(path)}: {message}", file, line_of(path) if line_of else None)
