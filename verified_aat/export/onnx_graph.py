"""A compiled transformer as a standard ONNX graph (opset 17, float64, no custom operators).

The graph takes ``X`` (N × d, float64; N is symbolic) and returns ``Y`` (N × d) after every layer.
Per layer, each coordinate is a column ``X[:, c]`` (Gather); a score circuit sees the
querying position's coordinates as columns (N × 1) and the attended one's as rows (1 × N, a
Transpose), so its gates (Add/Sum, Mul, Sign, constants) broadcast to the N × N score matrix
(an Expand makes it N × N when the score does not read both).  Bilinear scores
(``gate-edge-dot``) are genuine dot-product attention: queries ``X·W_Q`` with ``W_Q`` the
head's matrix Q, keys ``X`` (``W_K`` = I) and scores ``queries · keysᵀ`` (MatMul).

Pooling: hard attention takes ``M = ReduceMax(S, axis 1)`` and the argmax mask
``E = Cast(Equal(S, M))``; *average* is ``MatMul(E, X) / ReduceSum(E)`` (the mean over ties),
*leftmost* / *rightmost* keep the one entry of E where ``CumSum(E)`` (reversed for rightmost)
equals 1, then ``MatMul``; *softmax* is ``MatMul(Softmax(S / temperature), X)``.  The activation circuit reads
the position's columns and each head's pooled columns, and its d outputs are concatenated into
the next X.  Only gates some output depends on are emitted.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from ..transformer.model import BilinearScore, Pooling, Transformer
from .onnx_check import check_model

OPSET = 17


class _Graph:
    """Nodes and initializers under construction, with fresh value names and cached constants."""

    def __init__(self) -> None:
        import onnx
        from onnx import helper
        self.onnx, self.helper = onnx, helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._count = 0
        self._consts: dict[tuple[str, Any], str] = {}

    def fresh(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def node(self, op: str, inputs: list[str], hint: str | None = None, **attrs: Any) -> str:
        out = self.fresh(hint or op.lower())
        self.nodes.append(self.helper.make_node(op, inputs, [out], **attrs))
        return out

    def double(self, value: Fraction | float) -> str:
        """A float64 scalar initializer (the nearest float64 to the rational)."""
        f = float(Fraction(value)) if not isinstance(value, float) else value
        key = ("d", f)
        if key not in self._consts:
            name = self.fresh("c")
            self.inits.append(self.helper.make_tensor(name, self.onnx.TensorProto.DOUBLE, [], [f]))
            self._consts[key] = name
        return self._consts[key]

    def ints(self, values: tuple[int, ...]) -> str:
        """An int64 1-d initializer (axes, indices, shapes)."""
        key = ("i", values)
        if key not in self._consts:
            name = self.fresh("i")
            self.inits.append(self.helper.make_tensor(name, self.onnx.TensorProto.INT64, [len(values)], list(values)))
            self._consts[key] = name
        return self._consts[key]

    def matrix(self, rows: tuple[tuple[Fraction, ...], ...], hint: str) -> str:
        name = self.fresh(hint)
        flat = [float(q) for row in rows for q in row]
        self.inits.append(self.helper.make_tensor(name, self.onnx.TensorProto.DOUBLE,
                                                  [len(rows), len(rows[0]) if rows else 0], flat))
        return name

    def circuit(self, circuit: Circuit, inputs: list[str], hint: str) -> list[str]:
        """The value names of ``circuit``'s outputs, its inputs bound to ``inputs``."""
        needed = set(circuit.outputs)
        for index in range(len(circuit.gates) - 1, -1, -1):
            if index in needed:
                needed.update(circuit.gates[index].args)
        values: dict[int, str] = {}
        for index, gate in enumerate(circuit.gates):
            if index not in needed:
                continue
            kind = gate.kind
            if kind is Kind.INPUT:
                values[index] = inputs[gate.index]  # type: ignore[index]
            elif kind is Kind.CONST:
                values[index] = self.double(gate.value)  # type: ignore[arg-type]
            elif kind is Kind.SIGN:
                values[index] = self.node("Sign", [values[gate.args[0]]], f"{hint}_sign")
            elif kind is Kind.ADD and not gate.args:
                values[index] = self.double(0)
            elif len(gate.args) == 1:
                values[index] = values[gate.args[0]]
            elif kind is Kind.ADD:
                args = [values[a] for a in gate.args]
                values[index] = self.node("Add" if len(args) == 2 else "Sum", args, f"{hint}_add")
            else:
                acc = values[gate.args[0]]
                for a in gate.args[1:]:
                    acc = self.node("Mul", [acc, values[a]], f"{hint}_mul")
                values[index] = acc
        return [values[o] for o in circuit.outputs]


def _pool(g: _Graph, pooling: Pooling, s: str, x: str, where: str, temperature: float = 1.0) -> str:
    """The N × d pooled vectors of one head from its N × N scores ``s``."""
    if pooling is Pooling.SOFTMAX:
        if temperature != 1.0:
            s = g.node("Div", [s, g.double(float(temperature))], f"{where}_scaled")
        return g.node("MatMul", [g.node("Softmax", [s], f"{where}_softmax", axis=1), x], f"{where}_pooled")
    top = g.node("ReduceMax", [s], f"{where}_max", axes=[1], keepdims=1)
    mask = g.node("Cast", [g.node("Equal", [s, top], f"{where}_eq")], f"{where}_argmax", to=g.onnx.TensorProto.DOUBLE)
    if pooling is Pooling.AVERAGE:
        count = g.node("ReduceSum", [mask, g.ints((1,))], f"{where}_count", keepdims=1)
        return g.node("Div", [g.node("MatMul", [mask, x], f"{where}_sum"), count], f"{where}_pooled")
    running = g.node("CumSum", [mask, g.ints((1,))], f"{where}_cumsum", reverse=int(pooling is Pooling.RIGHTMOST))
    first = g.node("Cast", [g.node("Equal", [running, g.double(1)], f"{where}_first")], to=g.onnx.TensorProto.DOUBLE)
    return g.node("MatMul", [g.node("Mul", [mask, first], f"{where}_one"), x], f"{where}_pooled")


ONNX_MISSING = ("ONNX export needs the 'onnx' package, which is not installed: pip install 'verified-aat[export]' "
                "(from a checkout: pip install -e '.[export]')")
"""The one line for a missing ``onnx``: the exact pip command of the README's install section."""


def require_onnx() -> None:
    """An :class:`InputError` naming ``--format onnx`` and the pip command when ``onnx`` is not installed."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise InputError(ONNX_MISSING, "--format onnx") from None


def check_temperature(temperature: float) -> None:
    """Softmax heads divide by the temperature: it must be a positive finite number."""
    if not temperature > 0 or temperature == float("inf"):
        raise InputError(f"must be a positive finite number, got {temperature}", "--softmax-temperature")


def transformer_to_onnx(transformer: Transformer, softmax: bool = True, temperature: float = 1.0) -> Any:
    """The ONNX ``ModelProto`` of ``transformer`` (module docstring); ``softmax=False`` refuses
    softmax heads with an :class:`InputError` instead of exporting them; softmax heads divide
    their scores by ``temperature`` (as the float engine does)."""
    check_temperature(temperature)
    require_onnx()
    g = _Graph()
    d = transformer.dimension
    x = "X"
    shape = g.node("Shape", [x], "shape")
    n = g.node("Slice", [shape, g.ints((0,)), g.ints((1,))], "n")
    square = g.node("Concat", [n, n], "nn", axis=0)
    column = g.node("Concat", [n, g.ints((1,))], "n1", axis=0)
    for number, layer in enumerate(transformer.layers, start=1):
        cols = [g.node("Gather", [x, g.ints((c,))], f"L{number}_x{c}", axis=1) for c in range(d)]
        rows: list[str] = []
        inputs = list(cols)
        for head in layer.heads:
            where = f"L{number}_{head.name}"
            if head.pooling is Pooling.SOFTMAX and not softmax:
                raise InputError(f"layer {number}, head {head.name}: softmax pooling is not exported (--no-softmax, softmax=False)")
            if isinstance(head.score, BilinearScore):
                queries = g.node("MatMul", [x, g.matrix(head.score.matrix, f"{where}_WQ")], f"{where}_q")
                keys = g.node("MatMul", [x, g.matrix(_identity(d), f"{where}_WK")], f"{where}_k")
                s = g.node("MatMul", [queries, g.node("Transpose", [keys], f"{where}_kT", perm=[1, 0])],
                           f"{where}_score")
            else:
                if not rows:
                    rows = [g.node("Transpose", [c], f"L{number}_row{k}", perm=[1, 0]) for k, c in enumerate(cols)]
                (s,) = g.circuit(head.score.circuit, cols + rows, f"{where}_s")
                s = g.node("Expand", [s, square], f"{where}_score")
            pooled = _pool(g, head.pooling, s, x, where, temperature)
            inputs += [g.node("Gather", [pooled, g.ints((c,))], f"{where}_p{c}", axis=1) for c in range(d)]
        outs = g.circuit(layer.activation, inputs, f"L{number}_act")
        outs = [g.node("Expand", [o, column], f"L{number}_y{k}") for k, o in enumerate(outs)]
        x = g.node("Concat", outs, f"L{number}_out", axis=1) if outs else x
    nodes = g.nodes + [g.helper.make_node("Identity", [x], ["Y"])]
    double = g.onnx.TensorProto.DOUBLE
    graph = g.helper.make_graph(
        nodes, transformer.name or "transformer",
        [g.helper.make_tensor_value_info("X", double, ["N", d])],
        [g.helper.make_tensor_value_info("Y", double, ["N", d])], g.inits)
    graph.doc_string = "coordinates: " + ", ".join(transformer.coordinates)
    model = g.helper.make_model(graph, opset_imports=[g.helper.make_opsetid("", OPSET)],
                                producer_name="verified-aat")
    model.ir_version = 8
    check_model(model)  # where --max-time can stop it (onnx_check.py)
    return model


def _identity(d: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(int(r == c)) for c in range(d)) for r in range(d))


def save_onnx(transformer: Transformer, path: str, softmax: bool = True, temperature: float = 1.0) -> int:
    """Write the ONNX model atomically; returns its number of nodes."""
    from ..files import write_atomically
    model = transformer_to_onnx(transformer, softmax, temperature)
    write_atomically(path, model.SerializeToString())
    return len(model.graph.node)
