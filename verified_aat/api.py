"""The notebook-friendly API: one function per job, names as on the command line.

>>> import verified_aat as va
>>> C = va.family("inner-product", 3)
>>> result = va.certify(C, "gate-edge")
>>> result.status
'proved'
>>> va.check(va.certificate(result)).accepted
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from .circuits.ir import Circuit


def load_circuit(path: str, mode: str = "exact", fmt: str | None = None, cap: int | None = None) -> Circuit:
    """A circuit from a .circ/.json file or a netlist (.bench/.blif/.bristol, arithmetized by ``mode``;
    ``cap=N`` for the depth-aware arithmetization); ``fmt`` overrides the extension (``"bristol"``)."""
    from .circuits.io import load_circuit as _load
    return _load(path, mode, fmt, cap)


def parse_circuit(text: str) -> Circuit:
    """A circuit from the text format."""
    from .circuits.text_format import parse_circuit_text
    return parse_circuit_text(text)


def family(name: str, n: int) -> Circuit:
    """A member of a built-in family, e.g. ``family("majority", 7)``."""
    from .circuits.families import build_family
    return build_family(name, n)


def compile(circuit: Circuit, construction: str = "gate-edge", depth_bound: int | None = None) -> Any:  # noqa: A001
    """Transformer T_K and encoding for ``circuit`` (a CompiledConstruction)."""
    from .constructions.registry import get_construction
    return get_construction(construction).compile(circuit, depth_bound)


def simulate(circuit: Circuit, x: Sequence[Fraction | int], construction: str = "gate-edge") -> tuple:
    """Run the compiled transformer exactly on enc(C, x) and read the outputs (argmax sets by the
    key join, each decomposition used only after its lemma is proved)."""
    from .constructions.registry import get_construction
    from .symbolic.attention import engine_keys
    from .transformer.exact_engine import run_exact
    compiled = compile(circuit, construction)
    keys = engine_keys(get_construction(construction).score_hints())
    result = run_exact(compiled.transformer, compiled.encoding.instantiate(list(x)), keys=keys)
    return tuple(compiled.encoding.read(result.outputs))


def certify(circuit: Circuit, construction: str = "gate-edge", **options: Any) -> Any:
    """Prove (or refute) that the construction simulates ``circuit`` on every input (a CertifyResult)."""
    from .constructions.registry import get_construction
    from .symbolic.certify import certify as _certify
    return _certify(circuit, get_construction(construction), **options)


def refute(transformer: Any, construction: str = "gate-edge", circuit: Circuit | None = None, **options: Any) -> Any:
    """A small circuit and an exactly replayed input where ``transformer`` (a Transformer
    or a spec path) fails, or a Refutation with no counterexample (which is not a proof)."""
    from .constructions.registry import get_construction
    from .refutation.refute import refute as _refute
    from .transformer.spec import load_transformer
    model = load_transformer(transformer) if isinstance(transformer, str) else transformer
    return _refute(model, get_construction(construction), None if circuit is None else [circuit], **options)


def certificate(result: Any, timings: bool = True, circuit: Circuit | None = None) -> dict[str, Any]:
    """The certificate document of a proved result.  When the certified circuit is an imported
    netlist (``result.circuit``, or the original ``circuit``, carries its link section), the
    certificate embeds the netlist and the kernel also proves that C equals it."""
    from .certificates.document import build_certificate
    from .circuits.link_section import carry_link, netlist_section
    if result.status != "proved":
        raise ValueError(f"no certificate: the result is {result.status}")
    link = netlist_section(result.circuit)
    if link is None and circuit is not None:
        link = netlist_section(carry_link(circuit, result.circuit))
    return build_certificate(result, include_timings=timings, netlist=link)


def check(certificate: dict[str, Any] | str, circuit: Circuit | None = None, solver: str = "z3",
          netlist: str | None = None) -> Any:
    """The trusted kernel's verdict on a certificate (a dict or a path): a kernel Report
    (``.outcome`` accepted / rejected / not-checked, ``.theorem``, ``.rejections``)."""
    import hashlib
    import os

    from .circuits.json_format import canonical_circuit_bytes
    from .kernel import Options, check_certificate, load_certificate
    doc = load_certificate(certificate) if isinstance(certificate, str) else certificate
    solvers = ("z3", "cvc5") if solver == "both" else (solver,)
    digest = hashlib.sha256(canonical_circuit_bytes(circuit)).hexdigest() if circuit is not None else None
    link = None
    if netlist is not None:
        with open(netlist, "rb") as handle:
            link = (os.path.basename(netlist), handle.read())
    return check_certificate(doc, Options(solvers=solvers, circuit_sha256=digest, netlist=link))
