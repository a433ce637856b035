"""The notebook-friendly API: one function per job, names as on the command line.

>>> import verified_aat as va
>>> C = va.family("inner-product", 3)
>>> result = va.certify(C, "gate-edge")
>>> result.status
<Status.PROVED: 'proved'>
>>> result.status == "proved"
True
>>> va.check(va.certificate(result)).accepted
True
"""

from __future__ import annotations

import math
import numbers
import os
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, TypeGuard, overload

from .circuits.ir import Circuit
from .errors import InputError

if TYPE_CHECKING:
    from .audit import AuditReport
    from .constructions.base import Construction
    from .constructions.base import CompiledConstruction
    from .refutation.refute import Refutation
    from .results import Certificate, CheckReport
    from .schematic import SchematicResult
    from .schematic.instance import InstanceResult
    from .symbolic.certify import CertifyResult
    from .transformer.model import Transformer


def load_circuit(path: str | os.PathLike[str], mode: str = "exact", *, fmt: str | None = None, cap: int | None = None,
                 drop_dead: bool = False) -> Circuit:
    """A circuit from a .circ/.json file or a netlist (.bench/.blif/.bristol/.aag/.aig, or Verilog
    .v through Yosys; arithmetized by ``mode``, ``"exact"`` or ``"threshold"``); ``fmt`` overrides
    the extension (``"bristol"``); ``cap=N`` asks for the depth-aware arithmetization (products of
    up to N terms) instead of the linear one, whose certificates link the netlist by candidates, which
    :func:`check` reads only with ``candidate_link=True``; ``drop_dead`` drops netlist gates no output reads."""
    from .circuits.io import load_circuit as _load
    if not _is_path(path):
        raise TypeError(f"load_circuit: path must be a str or an os.PathLike, got {_kind(path)}")
    return _load(os.fspath(path), mode, fmt, cap, drop_dead)


def parse_circuit(text: str, *, name: str | None = None) -> Circuit:
    """A circuit from the text format (docs/circuit-format.md); ``name`` names it unless the text
    has a ``circuit`` header."""
    from .circuits.text_format import parse_circuit_text
    if not isinstance(text, str):
        raise TypeError(f"parse_circuit: text must be a str (a path: load_circuit), got {_kind(text)}")
    return parse_circuit_text(text, name=name)


def construction(name_or_path: str | os.PathLike[str] | Construction) -> Construction:
    """A construction: a built-in by name (``"gate-edge"``), a construction document file
    (``"mine.json"``, docs/construction-format.md), or a Construction as it is.  Every function
    below that takes ``construction`` takes any of the three."""
    return _resolve(name_or_path, "construction")


def family(name: str, n: int) -> Circuit:
    """A member of a built-in family, e.g. ``family("majority", 7)``."""
    from .circuits.families import build_family
    return build_family(name, n)


def compile(circuit: Circuit | str | os.PathLike[str], construction: str | os.PathLike[str] | Construction = "gate-edge", *,  # noqa: A001
            depth_bound: int | None = None) -> CompiledConstruction:
    """Transformer T_K and encoding for ``circuit`` (a Circuit or a circuit file's path) as a
    CompiledConstruction; ``depth_bound`` is K (default: the circuit's depth)."""
    return _resolve(construction, "compile").compile(_circuit(circuit, "compile"), _depth("compile", depth_bound))


def simulate(circuit: Circuit | str | os.PathLike[str], x: Sequence[Fraction | int], construction: str | os.PathLike[str] | Construction = "gate-edge", *,
             depth_bound: int | None = None) -> tuple[Fraction | int, ...]:
    """Run the compiled transformer exactly on enc(C, x) and read the outputs (argmax sets by the
    key join, each decomposition used only after its lemma is proved; a settled run, which skips the
    values of positions that have not settled yet); ``circuit`` and ``depth_bound`` as for compile."""
    from .symbolic.attention import engine_keys
    from .transformer.exact_engine import run_exact
    circuit = _circuit(circuit, "simulate")
    x = _exact_values("simulate", x, circuit.n_inputs)
    compiled = compile(circuit, construction, depth_bound=depth_bound)
    keys = engine_keys(_resolve(construction, "simulate").score_hints())
    encoding = compiled.encoding
    result = run_exact(compiled.transformer, encoding.instantiate(list(x)), keys=keys, forget=encoding.settle,
                       needed=encoding.readout)
    return tuple(compiled.encoding.read(result.outputs))


@overload
def certify(circuit: Circuit | str | os.PathLike[str], construction: str | os.PathLike[str] | Construction = ..., *, depth_bound: int | None = ...,
            transformer: Transformer | str | os.PathLike[str] | None = ..., timeout: float = ..., jobs: int = ..., refute: bool = ...,
            kernel: bool = ..., cluster: str | None = ..., progress: Callable[[str, int, int], None] | None = ...,
            every_k: Literal[False] = ...) -> CertifyResult: ...


@overload
def certify(circuit: Circuit | str | os.PathLike[str], construction: str | os.PathLike[str] | Construction = ..., *, depth_bound: int | None = ...,
            transformer: Transformer | str | os.PathLike[str] | None = ..., timeout: float = ..., jobs: int = ..., refute: bool = ...,
            kernel: bool = ..., cluster: str | None = ..., progress: Callable[[str, int, int], None] | None = ...,
            every_k: Literal[True]) -> InstanceResult: ...


def certify(circuit: Circuit | str | os.PathLike[str], construction: str | os.PathLike[str] | Construction = "gate-edge", *, depth_bound: int | None = None,
            transformer: Transformer | str | os.PathLike[str] | None = None, timeout: float = 10.0, jobs: int = 1,
            refute: bool = True, kernel: bool = True, cluster: str | None = None,
            progress: Callable[[str, int, int], None] | None = None,
            every_k: bool = False) -> CertifyResult | InstanceResult:
    """Prove (or refute) that the construction simulates ``circuit`` (a Circuit, or a circuit file's or
    netlist's path, read in exact mode as by ``load_circuit``) on every input (a CertifyResult).

    ``depth_bound``: K (default the circuit's depth); ``transformer``: check this (edited)
    transformer, or the spec file at that path, instead of the construction's own T_K;
    ``timeout``: seconds per solver query; ``jobs``: processes for discharging lemmas;
    ``refute``: search a counterexample when a lemma fails (without one the status is unknown);
    ``kernel``: end with the trusted kernel's check (``.kernel``, ``.theorem``, ``.certificate``; a
    certificate it does not accept makes the status unknown); ``cluster``: derive large encodings
    on a Dask cluster, ``"local:N"`` or ``"tcp://HOST:PORT"`` (``jobs`` ≥ 2 without one: a local
    cluster of ``jobs`` workers; the certificate is the same); ``progress``: called with
    (phase, done, total) as certify goes.

    ``every_k=True``: instead, the construction's every-K theorem instantiated at ``circuit`` (an
    InstanceResult, docs/soundness.md P10): ``prove_construction`` proves T_K for every circuit of the class,
    the certificate embeds ``circuit``, and the kernel checks both; nothing is derived per circuit, so it
    costs what reading the circuit costs.  Not with ``depth_bound`` (K is the circuit's depth); ``refute``,
    ``jobs``, ``cluster`` and ``progress`` have nothing to do there; *unknown* when the every-K theorem is
    not proved (the per-circuit route may still prove or refute this circuit).
    """
    circuit, model = _circuit(circuit, "certify"), (None if transformer is None else _transformer(transformer, "certify"))
    if every_k:
        from .schematic.instance import certify_every_k
        if depth_bound is not None:
            raise InputError("every_k instantiates the every-K theorem at K = the circuit's depth: no depth_bound")
        return certify_every_k(circuit, _resolve(construction, "certify"), model, timeout_ms=_milliseconds("timeout", timeout),
                               kernel=kernel)
    from .pipeline import certify as _certify
    return _certify(circuit, _resolve(construction, "certify"), _depth("certify", depth_bound), model,
                    timeout_ms=_milliseconds("timeout", timeout), jobs=_at_least_one("jobs", jobs), refute=refute,
                    kernel=kernel, progress=progress, cluster=_cluster(cluster))


def refute(transformer: Transformer | str | os.PathLike[str], construction: str | os.PathLike[str] | Construction = "gate-edge",
           circuit: Circuit | str | os.PathLike[str] | None = None, *,
           budget: float = 60.0, per_circuit: float = 5.0, depth_bound: int | None = None) -> Refutation:
    """A small circuit and an exactly replayed input where ``transformer`` (a Transformer
    or a spec path) fails, or a Refutation with no counterexample (which is not a proof).

    First T's false schematic lemmas: a witness built from a model (any fan-in, ids, values); then
    ``circuit``: try only this circuit (default: small candidate circuits, smallest first);
    ``budget``: seconds for the whole search; ``per_circuit``: seconds per circuit;
    ``depth_bound``: the K the transformer is meant for (default: from its number of layers).
    A witness found among the candidates is shrunk (at most ``budget / 4`` seconds more, each step replayed);
    ``Refutation.first_found`` is then the candidate it came from.
    """
    from .schematic.prove import refute_by_lemmas_then_search as _refute
    model = _transformer(transformer, "refute")
    return _refute(model, _resolve(construction, "refute"), None if circuit is None else [_circuit(circuit, "refute")],
                   budget_seconds=_seconds("budget", budget), per_circuit_seconds=_seconds("per_circuit", per_circuit),
                   depth_bound=_depth("refute", depth_bound))


def prove_construction(construction: str | os.PathLike[str] | Construction, *, depth_bound: int | None = None,
                       transformer: Transformer | str | os.PathLike[str] | None = None, timeout: float = 20.0,
                       witness_budget: float = 60.0) -> SchematicResult:
    """One proof for every circuit of depth ≤ ``depth_bound`` (None: every K) under ``construction``'s
    T_K, or an edited ``transformer`` (a Transformer or a spec path): ``.status`` proved / refuted /
    unknown, ``.certificate`` (a schematic certificate ``check`` accepts), ``.refutation`` (a replayed
    witness circuit and input), ``.problems``; ``timeout``: seconds per lemma; ``witness_budget``: seconds
    for the search of a witness when a lemma fails."""
    from .schematic import prove_construction as _prove
    model = None if transformer is None else _transformer(transformer, "prove_construction")
    return _prove(_resolve(construction, "prove_construction"), _depth("prove_construction", depth_bound), model, _milliseconds("timeout", timeout),
                  _seconds("witness_budget", witness_budget))


def audit_transformer(transformer: Transformer | str | os.PathLike[str], *, lengths: Sequence[int] = (2, 3, 4), samples: int = 20,
                      seed: int = 0) -> AuditReport:
    """The upper bound, tested: unroll ``transformer`` (a Transformer or a spec path) into an
    FSAC⁰[sign] circuit for each of ``lengths`` and check its class, the exact size formula, the
    depth formula and equality with an independent reference and the exact engine on ``samples``
    seeded tie-heavy sequences per length (``seed``).  An AuditReport (``.ok``); this tests, it
    proves nothing (``verified-aat audit --prove`` does)."""
    from .audit import audit as _audit
    model = _transformer(transformer, "audit_transformer")
    return _audit(model, tuple(_sequence("audit_transformer", "lengths", lengths)), samples, seed)


def certificate(result: CertifyResult | InstanceResult, *, timings: bool = True,
                circuit: Circuit | str | os.PathLike[str] | None = None) -> Certificate:
    """The certificate document of a proved result (a ``dict``; ``timings=False`` leaves out the
    informational timings, so equal inputs give equal documents).  When the certified circuit is an
    imported netlist (``result.circuit``, or the original ``circuit``, a Circuit or its file's path, carries its link section), the
    certificate embeds the netlist and the kernel also proves that C equals it.  For ``every_k``'s result:
    its every-K certificate with the circuit embedded."""
    from .certificates.document import build_certificate
    from .circuits.link_section import carry_link, netlist_section
    from .results import Certificate
    from .symbolic.certify import CertifyResult
    from .schematic.instance import InstanceResult
    if not isinstance(result, (CertifyResult, InstanceResult)):
        raise TypeError(f"certificate: result must be what certify returned, got {_kind(result)}")
    if result.status != "proved":
        raise ValueError(f"no certificate: the result is {result.status}")
    original = None if circuit is None else _circuit(circuit, "certificate")
    if isinstance(result, InstanceResult):
        doc = dict(result.certificate or {})
        return Certificate(doc if timings else {k: v for k, v in doc.items() if k != "timings"})
    link = netlist_section(result.circuit)
    if link is None and original is not None:
        link = netlist_section(carry_link(original, result.circuit))
    return Certificate(build_certificate(result, include_timings=timings, netlist=link))


SOLVER_CHOICES = ("z3", "cvc5", "yices", "both", "all")  # both: z3 and cvc5; all: z3, cvc5 and yices


def solver_options(solver: str | None = None, solver_trust: bool = True) -> dict[str, Any]:
    """The kernel's solver options (S12): every lemma goes to the kernel's own normal form first; ``solver``
    None asks Z3 only where the normal form does not decide; ``"z3"``, ``"cvc5"``, ``"yices"``, ``"both"``
    (Z3 and cvc5) or ``"all"`` (the three) asks those solvers on every lemma (a second opinion); ``solver_trust`` False: a lemma only a solver decides
    is *not checked*."""
    if solver not in (None, *SOLVER_CHOICES):
        raise InputError(f"solver must be one of {', '.join(SOLVER_CHOICES)}, got {solver!r}")
    solvers = {"both": ("z3", "cvc5"), "all": ("z3", "cvc5", "yices")}.get(solver or "z3", (solver or "z3",))
    return {"solvers": solvers, "second_opinion": solver is not None, "solver_trust": solver_trust}


def check(certificate: dict[str, Any] | str | os.PathLike[str], circuit: Circuit | str | os.PathLike[str] | None = None, *,
          solver: str | None = None, solver_trust: bool = True, netlist: str | None = None,
          circuit_format: str | None = None, netlist_mode: str | None = None, timeout: float | None = 20.0,
          jobs: int = 1, defence_budget: int | None = None, cluster: str | None = None,
          candidate_link: bool = False, progress: Callable[[str, int, int], None] | None = None) -> CheckReport:
    """The trusted kernel's verdict on a certificate (a dict or a path): a CheckReport
    (``.outcome``, a Verdict: accepted / rejected / not-checked; ``.theorem``, ``.rejections``;
    ``.trust``: what it rests on — the kernel's own normal form, or which lemmas a solver alone decided).

    ``circuit``: for a schematic certificate, a circuit (Circuit or .circ/.json path) its theorem is instantiated
    at (P10: in the class, K = its depth; a circuit it does not cover is *not checked*); for a per-circuit
    one, it must be the certified circuit — a Circuit, or a circuit file or netlist's path, read by
    the kernel's own readers (``circuit_format`` overrides the extension; ``netlist_mode`` names the
    arithmetization a binarized netlist was certified in); ``netlist``: a netlist file the certificate
    must be linked to (the same as giving it as ``circuit``);
    ``solver``: None (Z3 only for the lemmas the kernel's normal form does not decide), or ``"z3"``,
    ``"cvc5"``, ``"yices"``, ``"both"`` or ``"all"`` as a second opinion on every lemma;
    ``solver_trust``: False makes a lemma that only a solver decides *not checked*;
    ``timeout``: seconds per lemma and solver (None: no limit); ``jobs``: processes deriving the
    obligations of large certificates; ``defence_budget``: activation evaluations of the defence
    interpreter; ``cluster``: derive a large certificate's obligations on a Dask cluster, as for
    :func:`certify` (the verdict is the same); ``candidate_link``: read a netlist link by candidates (``certify
    --cap``'s, or a certificate written before stop 51), whose kernel modules are past the 3,000 trusted lines of
    the default (README); without it such a certificate is *not checked*; ``progress``: called with each check's name, number and
    count (display only).
    """
    from .given_circuit import given
    from .kernel import Options, load_certificate
    from .results import kernel_check
    chosen = solver_options(solver, solver_trust)
    if _is_path(certificate):
        doc = load_certificate(os.fspath(certificate))
    elif isinstance(certificate, dict):
        doc = dict(certificate)
    else:
        raise TypeError(f"check: certificate must be a certificate (a dict) or its path, got {_kind(certificate)}")
    if netlist is not None and circuit is not None:
        raise InputError("give the circuit or the netlist, not both")
    for name, value in (("circuit", circuit), ("netlist", netlist)):
        if value is not None and not isinstance(value, Circuit) and not _is_path(value):
            raise TypeError(f"check: {name} must be a Circuit or a file's path, got {_kind(value)}")
    if defence_budget is not None and (isinstance(defence_budget, bool) or not isinstance(defence_budget, int)
                                       or defence_budget < 0):
        raise InputError(f"defence_budget must be an integer >= 0 or None, got {defence_budget!r}")
    link = given(netlist if netlist is not None else circuit, doc, circuit_format, netlist_mode)
    from .shards import sharding
    with sharding(_cluster(cluster), _at_least_one("jobs", jobs)) as shards:
        options = Options(**chosen, circuit_file=link.circuit_file, netlist=link.netlist,
                          binarized_sha256=link.binarized, jobs=jobs, shards=shards,
                          timeout_ms=None if timeout is None else _milliseconds("timeout", timeout),
                          defence_budget=defence_budget, candidate_link=bool(candidate_link), progress=progress)
        return kernel_check(doc, options)


def _cluster(value: str | None) -> str | None:
    from .shards import parse_cluster
    return None if value is None else parse_cluster(value)


def _seconds(name: str, value: float) -> float:
    """A finite number of seconds > 0, as the CLI's options demand."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise InputError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def _resolve(value: Any, function: str) -> Construction:
    from .constructions.base import Construction
    from .constructions.registry import resolve_construction
    if isinstance(value, Construction):
        return value
    if not isinstance(value, bytes) and not _is_path(value):
        raise TypeError(f"{function}: construction must be a built-in's name, a construction document's path or a "
                        f"Construction, got {_kind(value)}")
    return resolve_construction(os.fsdecode(value))


def _is_path(value: object) -> TypeGuard[str | os.PathLike[str]]:
    """Whether ``value`` names a file as the command line takes one: a ``str`` or an ``os.PathLike``."""
    return isinstance(value, (str, os.PathLike))


def _kind(value: object) -> str:
    """What a wrong argument is, for its TypeError: its class's name."""
    return type(value).__name__


def _circuit(value: Any, function: str) -> Circuit:
    """A Circuit as it is, or the circuit (or netlist, exact mode) at a path, as the command line reads it."""
    if isinstance(value, Circuit):
        return value
    if _is_path(value):
        return load_circuit(os.fspath(value))
    raise TypeError(f"{function}: circuit must be a Circuit or a circuit file's path, got {_kind(value)}")


def _transformer(value: Any, function: str) -> Transformer:
    """A Transformer as it is, or the spec file at a path."""
    from .transformer.model import Transformer
    from .transformer.spec import load_transformer
    if isinstance(value, Transformer):
        return value
    if _is_path(value):
        return load_transformer(value)
    raise TypeError(f"{function}: transformer must be a Transformer or a transformer spec's path, got {_kind(value)}")


def _depth(function: str, value: Any) -> int | None:
    """A depth bound K: None or an int (not a bool: True was K = 1); its range is the construction's to judge."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"{function}: depth_bound must be an int or None, got {_kind(value)}")
    return value


def evaluate(circuit: Circuit | str | os.PathLike[str], x: Sequence[Fraction | int]) -> tuple[Fraction | int, ...]:
    """C(x) exactly: the outputs in output order (``circuit`` a Circuit or a circuit file's path); any rational x,
    also for a threshold arithmetization, which equals its netlist on {0,1}^n only (``eval`` refuses other x)."""
    from .circuits.evaluate import evaluate as _evaluate
    circuit = _circuit(circuit, "evaluate")
    return _evaluate(circuit, _exact_values("evaluate", x, circuit.n_inputs))



def _exact_values(function: str, x: Any, n_inputs: int) -> list[Fraction | int]:
    """x as a list of exact rationals, one per input (an integer of any kind, numpy's too, as an int): an item of
    another kind (a float, a string, a bool) is a TypeError naming its position, a wrong count an InputError."""
    values = _sequence(function, "x", x)
    for i, v in enumerate(values):
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            values[i] = int(v)
        elif not isinstance(v, Fraction):
            raise TypeError(f"{function}: x[{i}] must be an exact rational (an int or a Fraction), got "
                            f"{_kind(v)} {v!r:.40}")
    if len(values) != n_inputs:
        raise InputError(f"{function}: the circuit takes {n_inputs} input{'s' * (n_inputs != 1)}, x has {len(values)}")
    return values


def _sequence(function: str, name: str, value: Any) -> list[Any]:
    """A list of a sequence's items (an int or a string given where a sequence is meant is a TypeError)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{function}: {name} must be a sequence, got {_kind(value)}")
    return list(value)


def _milliseconds(name: str, value: float) -> int:
    return max(1, int(_seconds(name, value) * 1000))


def _at_least_one(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be an integer >= 1, got {value!r}")
    return value
