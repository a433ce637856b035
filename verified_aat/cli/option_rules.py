"""Options that apply only in some uses of a command (docs/cli.md, "Options that do not apply").

An option given where it cannot act is bad input (exit 2), never silently ignored: the user would believe
something happened that did not.  So is a single-valued option given twice (``-t A -t B`` took B, and
flipped the verdict).  Every option the command line names is recorded as *given* by its action
(:func:`track`), so a rule only fires for what the user wrote, never for a default.
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..errors import InputError

if TYPE_CHECKING:
    from ..transformer.model import Transformer

GIVEN = "_given_options"  # the namespace attribute: the dests of the options written on the command line


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether option ``dest`` was written on the command line (not a default)."""
    return dest in getattr(args, GIVEN, ())


def _recording(cls: type[argparse.Action]) -> type[argparse.Action]:
    """``cls``, recording each use; a single-valued option (``store``) given a second time is an error."""
    once = cls is argparse._StoreAction  # noqa: SLF001 - argparse exposes no public name for it

    class Recording(cls):  # type: ignore[valid-type, misc]
        def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
            seen = namespace.__dict__.setdefault(GIVEN, set())
            if once and self.dest in seen:
                parser.error(f"{'/'.join(self.option_strings)} is given twice: give it once")
            seen.add(self.dest)
            super().__call__(parser, namespace, values, option_string)

    return Recording


def track(parser: argparse.ArgumentParser) -> None:
    """Make every option of ``parser`` and of its subcommands record its use (see :func:`given`)."""
    classes: dict[type, type] = {}
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for sub in set(action.choices.values()):
                track(sub)
        elif action.option_strings and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):  # noqa: SLF001
            action.__class__ = classes.setdefault(type(action), _recording(type(action)))


_INTEGER = re.compile(r"-?[0-9]{1,30}", re.ASCII)


def integer(text: str) -> int:
    """An integer option's value (``type=integer``): ASCII digits and an optional minus sign. ``int`` also takes
    ``1_0``, spaces, a plus sign and other scripts' digits (``-K ١٠``), which no other number the tool reads takes."""
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid int value: {text[:40]!r} "
                                         "(ASCII digits 0-9, at most 30, and an optional minus sign)")
    return int(text)


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,6})?|[+-]?(?:inf|infinity|nan)",
                      re.ASCII | re.IGNORECASE)


def decimal(text: str) -> float:
    """A number option's value (``type=decimal``: ``--timeout``, ``--max-time``, ...): ASCII digits, a point, an
    exponent (inf and nan pass, for the option's own range check to name). ``float`` also takes ``1_0``, spaces
    around it (U+00A0 among them) and other scripts' digits (``--timeout ١٠``)."""
    if len(text) > 100 or not _DECIMAL.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid number: {text[:40]!r} (ASCII digits 0-9, a point, an exponent)")
    return float(text)


@dataclass(frozen=True)
class Rule:
    """In ``command``, the ``options`` (dests) act only when ``applies(args)``; else: "OPTION goes with ``where``"
    (or "OPTION ``where``" when it starts with "is ")."""

    command: str
    options: tuple[str, ...]
    applies: Callable[[argparse.Namespace], bool]
    where: str


def _float_engine(args: argparse.Namespace) -> bool:
    return args.engine != "exact"


def _export_format(args: argparse.Namespace) -> str | None:
    from ..export import format_by_name
    return args.export_format or format_by_name(args.output)


RULES: tuple[Rule, ...] = (
    *(Rule(command, ("mode", "cap", "drop_dead"), lambda a: a.family is None,
           "a netlist CIRCUIT file (a --family is built, not arithmetized)")
      for command in ("info", "eval", "compile", "certify", "refute", "audit")),
    Rule("audit", ("circuit_format", "mode", "cap", "drop_dead"), lambda a: a.construction is not None,
         "--construction NAME and a CIRCUIT"),
    Rule("audit", ("solver", "timeout", "jobs", "progress"), lambda a: a.prove or a.round_trip,
         "--prove or --round-trip"),
    Rule("audit", ("no_lower_bound", "no_audit_proof", "round_trip_timeout"), lambda a: a.round_trip,
         "--round-trip"),
    Rule("audit", ("seed", "samples", "encoded", "output_length", "all_n"), lambda a: not a.round_trip,
         "a length audit (--lengths or --prove), not --round-trip"),
    Rule("check", ("circuit_format",), lambda a: a.circuit is not None, "--circuit FILE"),
    Rule("check", ("mode",), lambda a: False, "is not read by check: a netlist certificate states its own mode"),
    Rule("check", ("verbose",), lambda a: not a.json,
         "the text output (--json lists every check with its time in any case)"),
    Rule("certify", ("layout",), lambda a: a.report is not None, "--report FILE"),
    Rule("certify", ("no_timings",), lambda a: a.output is not None,
         "-o CERT (it leaves the timings out of the certificate written there)"),
    Rule("refute", ("layout",), lambda a: a.report is not None, "--report FILE"),
    Rule("report", ("solver",), lambda a: not a.no_check, "the kernel's check (not --no-check)"),
    Rule("run", ("softmax_temperature", "compare_exact"), _float_engine, "--engine float64 or float32"),
    Rule("run", ("full",), lambda a: not _float_engine(a), "the exact engine (--engine exact)"),
    Rule("run", ("full",), lambda a: a.encoding is not None,
         "--encoding ENC (a settled run needs one; a --sequence run computes every value)"),
    Rule("run", ("construction", "key_timeout"), lambda a: not a.no_join,
         "the key join (not --no-join, which scores all pairs)"),
    Rule("run", ("max_inputs",), lambda a: a.inputs is not None, "--inputs FILE"),
    Rule("eval", ("max_inputs",), lambda a: a.inputs is not None, "--inputs FILE"),
    Rule("export", ("softmax_temperature",), lambda a: _export_format(a) == "onnx" and not a.no_softmax,
         "ONNX softmax heads (the numpy pass uses temperature 1; --no-softmax exports none)"),
)

OPTION_NAMES: dict[str, str] = {"circuit_format": "--format", "all_n": "--all-N", "depth_bound": "--depth-bound (-K)"}


def option_name(dest: str) -> str:
    return OPTION_NAMES.get(dest, "--" + dest.replace("_", "-"))


def check_applicable(args: argparse.Namespace) -> None:
    """Before any work: an option given where it does not act, or a value no run can take, is bad input."""
    for rule in RULES:
        if rule.command == args.command:
            for dest in rule.options:
                if given(args, dest) and not rule.applies(args):
                    why = rule.where if rule.where.startswith("is ") else f"goes with {rule.where}"
                    raise InputError(f"{option_name(dest)} {why}; here it would do nothing", "command line")
    temperature = getattr(args, "softmax_temperature", None)
    if temperature is not None and not (math.isfinite(temperature) and temperature > 0):
        raise InputError(f"must be a positive finite number, got {temperature}", "--softmax-temperature")
    if args.command == "export" and args.export_format is not None:
        from ..export import format_by_name
        by_name = format_by_name(args.output)
        if by_name not in (None, args.export_format):
            raise InputError(f"the file name says {by_name}, --format says {args.export_format}: make them agree",
                             args.output)


def check_model_applicable(args: argparse.Namespace, model: Transformer) -> None:
    """Once MODEL is read, before any work: ``--softmax-temperature`` divides softmax heads' scores and nothing else,
    so for a transformer with no softmax head it would do nothing (``run``, ``export``)."""
    from ..transformer.model import Pooling
    if given(args, "softmax_temperature") and not any(
            head.pooling is Pooling.SOFTMAX for layer in model.layers for head in layer.heads):
        from ..files import shown
        raise InputError("--softmax-temperature goes with softmax heads, and this transformer has none; here it would "
                         "do nothing", shown(args.model))
