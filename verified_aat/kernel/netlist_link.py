"""The link from the certified arithmetic circuit down to a Boolean netlist (docs/soundness.md, N).

(Stub: filled in by the netlist-link work.)
"""

from __future__ import annotations

from .report import Context


def check_netlist(ctx: Context) -> tuple[list[str], str]:
    """(problems, theorem sentence) for the certificate's netlist section and ``--circuit NETLIST``."""
    section = ctx.doc.get("netlist")
    if ctx.options.netlist is not None and section is None:
        return ["a netlist was given, but the certificate carries no netlist link"], ""
    return [], ""
