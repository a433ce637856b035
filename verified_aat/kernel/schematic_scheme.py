"""What the every-K induction needs from a construction document, read off its roles, class and schedule, never its
name (docs/soundness.md P2: the gate-edge or the edge induction, else *not checked*), and P3's base case and read-out
on the row formulas with symbolic parameters."""

from __future__ import annotations

from typing import Any

from .data import NotChecked, need
from .identity import decide
from .layouts import Construction
from .schematic_edges import EdgeScheme
from .schematic_lemmas import ABOVE, FNC_SHAPES, FSAC_SHAPES, Scheme, Shape, Sym, names, row_of, smt


def scheme_of(c: Construction) -> Scheme | EdgeScheme:
    """The induction for ``c`` and its parameters, or NotChecked saying why there is none."""
    roles = set(c.role_kinds)
    shapes, circuit_class = _shapes(c)
    schedule = c.data.get("schedule")
    need(type(schedule) is dict, "$.construction_document.schedule", "expected an object")
    val, sq = _value_names(c, schedule)
    values = ("val", "sq") if sq else ("val",)
    canonical = tuple("val" if n == val else "sq" if n == sq else n for n in c.coordinates)
    if len(set(canonical)) != len(canonical) or val == sq:
        raise NotChecked("the lemmas call the value coordinates val and sq; another coordinate has one of these names")
    claims = [[val, "source", 1]] + ([[sq, "source", 2]] if sq else [])
    if roles == {"gate", "edge"}:
        _schedule_is(schedule, "gate", 2, 0, "gate", [[val, "gate", 1]], [])
        _schedule_is(schedule, "edge", 2, 1, "source", claims, [])
        edge = c.group("edge")
        assert edge is not None
        forms = {formulas for _, formulas in edge.rows}
        if len(forms) != 1 or any(names(f) - {"src", "dst", "slot"} for f in next(iter(forms))):
            raise NotChecked("the gate-edge induction needs edge rows that depend on src, dst and slot only")
        reads_slot = any("slot" in names(f) for f in next(iter(forms)))
        fixed = all(s.fan_in is not None for s in shapes)  # fan-in ≤ 2: slots 0 and 1; else also the class ≥ 2
        slots = ((0, 1) if fixed else (0, 1, ABOVE)) if reads_slot else None
        return Scheme(c, shapes, circuit_class, values, canonical, slots=slots)
    if roles == {"edge", "sink"}:
        offset = schedule.get("edge", {}).get("offset") if type(schedule.get("edge")) is dict else None
        if offset not in (0, 1):
            raise NotChecked("the edge induction settles an edge at depth(source) + 0 or + 1")
        early = [] if offset == 0 else [["input", val, -1], ["const", val, -1]] + ([["const", sq, -1]] if sq else [])
        for role in ("edge", "sink"):
            _schedule_is(schedule, role, 1, offset, "source", claims, early)
        return EdgeScheme(c, shapes, offset, circuit_class, values, canonical)
    raise NotChecked(f"no every-K induction for positions with roles {sorted(roles)} (gate+edge, or edge+sink)")


def _value_names(c: Construction, schedule: dict[str, Any]) -> tuple[str, str | None]:
    """The coordinates the edge rule claims V(u) and V(u)² of (powers 1 and 2), whatever their names (the lemmas
    call them val and sq); without such claims val, and sq if the document has one: the schedule then fails P3."""
    rule = schedule.get("edge")
    claims = rule.get("claims") if type(rule) is dict and type(rule.get("claims")) is list else []
    found = {p: n for n, r, p in reversed([x for x in claims if type(x) is list and len(x) == 3])
             if r == "source" and type(p) is int and n in c.coordinates}
    return found.get(1, "val"), found.get(2, "sq" if "sq" in c.coordinates else None)


def _shapes(c: Construction) -> tuple[tuple[Shape, ...], str]:
    """The gate shapes and the name of the class the theorem covers: the document's class, which may be
    narrower than FSAC⁰[sign] / FNC⁰[sign] (then the name says how), never wider than its shapes."""
    high = c.fan_in_range("mul")[1]  # the circuit loader already fixes sign fan-in 1 and mul fan-in >= 2 (S1)
    if high is None or high > 2:
        raise NotChecked("the every-K induction needs mul fan-in 2; the class allows more")
    for kind in ("input", "const"):
        if c.fan_in_range(kind)[0] > 0:
            raise NotChecked(f"the class excludes {kind} gates; the every-K induction starts from them")
    low, high = c.fan_in_range("add")
    fnc = high is not None and high <= 2
    # every gate the class allows has a shape (the symbolic k >= 1 covers every add fan-in >= 1, and more)
    shapes = tuple(s for s in (FNC_SHAPES if fnc else FSAC_SHAPES) if s.op != "add" or s.fan_in is None or low <= s.fan_in)
    narrower = []
    if low > 0 or (high is not None and high != 2):
        narrower.append(f"add fan-in {low}…{'∞' if high is None else high}")
    for kind, fixed in (("mul", 2), ("sign", 1)):
        lo, hi = c.fan_in_range(kind)
        if lo > fixed or (hi is not None and hi < fixed):
            narrower.append(f"no {kind} gates")
    base = "FNC⁰[sign]" if fnc else "FSAC⁰[sign]"
    return shapes, base if not narrower else f"{base} ({', '.join(narrower)})"


def _schedule_is(schedule: dict[str, Any], role: str, scale: int, offset: int, ref: str, claims: list[Any],
                 early: list[Any]) -> None:
    """The document's rule for ``role`` must be the one the induction proves (P3)."""
    rule = schedule.get(role)
    want = f"settle at {scale}·depth({ref}) + {offset} holding {claims}"
    if type(rule) is not dict:
        raise NotChecked(f"the document states no schedule for its {role} positions; the induction proves: {want}")
    a, b, o = rule.get("scale"), rule.get("offset"), rule.get("kind_offsets", [])  # any JSON (red team 26)
    if type(a) is int and type(b) is int and (a < scale or (a == scale and b < offset)):
        raise EarlySchedule(role, a, b, scale, offset)
    got = (a, b, rule.get("ref"), rule.get("claims"), sorted(o, key=repr) if type(o) is list else o)
    if got != (scale, offset, ref, claims, sorted(early, key=repr)):
        raise NotChecked(f"the document's schedule for {role} positions is not the one the every-K induction "
                         f"proves ({want}{f', kind_offsets {sorted(early)}' if early else ''})")


class EarlySchedule(Exception):
    """A schedule that settles positions before the induction's layers can compute them (another layering, e.g.
    one layer per level, may well: then no every-K induction of the kernel applies, nothing worse)."""

    def __init__(self, role: str, a: int, b: int, scale: int, offset: int):
        super().__init__(f"the document's schedule settles {role} positions at {a}·depth + {b}, before the "
                         f"{scale}·depth + {offset} at which the induction's layers can have computed them")


def _same(row: Any, want: Any) -> bool:
    """row = want for every value of the symbols, by the kernel's normal form (``(c) + 0`` is c); a row the
    normal form does not decide (an ite on a symbol) is not the same."""
    if row == want or not (isinstance(row, Sym) or isinstance(want, Sym)):
        return bool(row == want)
    declared = "".join(f"(declare-const {v} Real)" for v in "cgikstuv")
    return decide(f"{declared}(assert (not (= {smt(row)} {smt(want)})))") is True


def encoding_problems(scheme: Scheme | EdgeScheme) -> list[str]:
    """P3, on the row formulas with symbolic parameters: x_i goes alone into val of input i's positions (and no
    group puts it into a coordinate held at its formula), a const's positions hold c (and c² in sq), an add of
    fan-in 0 holds 0, no input edge is claimed to hold x_i² at layer 0, outputs are read at val of the gate
    (gate-edge) or of the sink (edge)."""
    c = scheme.construction
    val = scheme.names.index("val")
    sq = scheme.names.index("sq") if "sq" in scheme.values else None
    holders = ("gate",) if isinstance(scheme, Scheme) else ("edge", "sink")
    problems = [f"inputs are placed in {c.coordinates[g.input]} of the {g.role} positions, which the induction holds "
                "at its row formula (an input goes into val or sq)" for g in c.groups if g.role not in holders
                and g.input is not None and scheme.names[g.input] not in scheme.values]
    if isinstance(scheme, EdgeScheme) and sq is not None and scheme.extra_layers == 0:
        problems.append("with offset 0 an input's edges would hold x_i² in sq at layer 0; an encoding puts x_i in val "
                        "only")
    for role in holders:
        group = c.group(role)
        assert group is not None
        if group.input != val:
            problems.append(f"inputs are not placed in val of the {role} positions")
        ids = {"id": Sym("g"), "index": Sym("i")} if role == "gate" else {"src": Sym("u"), "dst": Sym("v"),
                                                                          "slot": Sym("s")}
        base = {"k": 0, **ids}
        if not _same(row_of(c, role, "const", {**base, "c": Sym("c")})[val], Sym("c")):
            problems.append(f"a const gate's {role} rows do not hold its constant in val")
        if sq is not None and role != "gate" and not _same(row_of(c, role, "const", {**base, "c": Sym("c")})[sq],
                                                           Sym("(* c c)")):
            problems.append(f"a const gate's {role} rows do not hold its constant's square in sq")
        for kind in ("input", "add"):
            if not _same(row_of(c, role, kind, {**base, "c": 0})[val], 0):
                problems.append(f"the {role} row of {'an input' if kind == 'input' else 'an add of fan-in 0'} "
                                "does not hold 0 in val (x_i must be alone there; an empty sum is 0)")
    if c.readout != (holders[-1], val):
        problems.append(f"outputs are not read at val of their {holders[-1]} positions")
    return problems
