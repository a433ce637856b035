"""``verified-aat export``: a compiled transformer as ONNX or a numpy ``.npz`` (docs/export.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError, LimitReached
from ..files import shown
from ..export import EXPORT_FORMATS, export_units, format_by_name
from ..wording import plural
from .resources import add_resource_options, require_memory
from .option_rules import check_model_applicable, decimal

if TYPE_CHECKING:
    from ..transformer.model import Transformer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a compiled transformer as ONNX or numpy arrays",
                       description="Write MODEL (a transformer spec, e.g. transformer.json from compile) as a "
                                   "standard ONNX graph (float64, no custom operators) or an .npz of arrays "
                                   "for the reference forward pass of docs/export.md.")
    p.add_argument("model", metavar="MODEL", help="transformer spec (verified-aat/transformer JSON)")
    p.add_argument("--format", "-f", choices=EXPORT_FORMATS, default=None, dest="export_format",
                   help="onnx or numpy (default: by the extension of -o, .onnx or .npz)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the file to write")
    p.add_argument("--no-softmax", action="store_true", help="refuse softmax heads instead of exporting them")
    p.add_argument("--softmax-temperature", type=decimal, default=1.0, metavar="T",
                   help="ONNX: softmax heads divide their scores by T (as run --engine float64 does; default 1)")
    add_resource_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..transformer.spec import load_transformer
    fmt = args.export_format
    if fmt is None:
        fmt = format_by_name(args.output)
        if fmt is None:
            raise InputError("cannot tell the format from the file name: give --format onnx or numpy", args.output)
    if fmt == "onnx":  # the options and the onnx package before any work
        from ..export.onnx_graph import check_temperature, require_onnx
        check_temperature(args.softmax_temperature)
        require_onnx()
    model = load_transformer(args.model)
    check_model_applicable(args, model)
    if args.no_softmax:  # both formats: the .npz holds softmax heads as the ONNX graph does
        from ..transformer.model import Pooling
        for number, layer in enumerate(model.layers, start=1):
            for head in (h for h in layer.heads if h.pooling is Pooling.SOFTMAX):
                raise InputError(f"layer {number}, head {head.name}: softmax pooling is not exported (--no-softmax)",
                                 shown(args.model))
    _require_size(model, fmt, args)
    if fmt == "onnx":
        from ..export.onnx_graph import save_onnx
        try:
            count = save_onnx(model, args.output, softmax=not args.no_softmax, temperature=args.softmax_temperature)
        except InputError as exc:  # e.g. a softmax temperature the graph refuses: name the model file
            raise exc.located(shown(args.model)) from None
        what = plural(count, 'ONNX node')
    else:
        from ..export.npz import save_npz
        count = save_npz(model, args.output)
        what = plural(count, 'array')
    print(f"wrote {args.output}: {fmt}, {plural(model.n_layers, 'layer')}, {plural(model.n_heads, 'head')}, dimension "
          f"{model.dimension}, {what}")
    return 0


def _require_size(model: Transformer, fmt: str, args: argparse.Namespace) -> None:
    """Before anything is built: every layer's circuits are written out in full (a function 10,000 layers share is
    exported 10,000 times), so refuse an export past the ONNX file's size or the memory limit (exit 3)."""
    from ..limits import MAX_ONNX_NODES
    units = export_units(model, fmt)
    if fmt == "onnx" and units > MAX_ONNX_NODES:
        raise LimitReached(f"{args.model}: the ONNX graph would have up to {units:,} nodes, more than the "
                           f"{MAX_ONNX_NODES:,} an ONNX file holds (protobuf's 2 GiB; the ONNX-nodes limit), refused "
                           f"before building it; --format numpy has no such limit")
    require_memory(f"export {fmt}", units, args)
