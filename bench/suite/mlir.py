"""Builders for problem files: a reference function in linalg on tensors
and the kf.problem op that declares its inputs and tolerance.

    f = Func("l1_19_ReLU_ref", [("x", [4096, 393216])])
    y = f.elementwise([f.arg("x")], lambda b, x: b.bin("arith.maximumf", x, b.const(0.0)))
    f.ret(y)
    text = problem_file(symbol, f, inputs=[uniform(-1, 1)], atol=0, rtol=0,
                        comment=["KernelBench level 1, problem 19 (ReLU) ..."])

Values are SSA names (strings such as "%v3"); the Func tracks their types.
"""

from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union


def float_literal(value: float) -> str:
    """An MLIR float literal (MLIR needs a '.' in decimal literals)."""
    value = float(value)
    if value == float("inf"):
        return "0x7F800000"
    if value == float("-inf"):
        return "0xFF800000"
    text = repr(value)
    if "e" in text and "." not in text:
        mantissa, exponent = text.split("e")
        text = mantissa + ".0e" + exponent
    return text


def tensor_type(shape: Sequence[int], elem: str = "f32") -> str:
    if not shape:
        return "tensor<%s>" % elem
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def uniform(lo: float, hi: float) -> str:
    return "#kf.uniform<%s, %s>" % (float_literal(lo), float_literal(hi))


def normal(mean: float, std: float) -> str:
    return "#kf.normal<%s, %s>" % (float_literal(mean), float_literal(std))


def int_range(lo: int, hi: int) -> str:
    return "#kf.int_range<%d, %d>" % (lo, hi)


_DIMS = "ijklmnopqrstuvwxyz"


def dims(n: int) -> List[str]:
    """Loop dimension names for an n-dimensional iteration space."""
    return list(_DIMS[:n])


def amap(n: int, results: Sequence[str]) -> str:
    """affine_map over n loop dims (named i, j, k, ...) with `results`,
    each an affine expression over those names (e.g. "i", "j * 2 + k")."""
    return "affine_map<(%s) -> (%s)>" % (", ".join(dims(n)), ", ".join(results))


def identity_map(n: int) -> str:
    return amap(n, dims(n))


class Block:
    """Emits the body of a linalg.generic."""

    def __init__(self, func: "Func"):
        self.func = func
        self.lines: List[str] = []
        self.types: Dict[str, str] = {}

    def _new(self, type_: str) -> str:
        name = self.func.fresh()
        self.types[name] = type_
        return name

    def type_of(self, value: str) -> str:
        return self.types.get(value) or self.func.types[value]

    def const(self, value: Union[float, int], type_: str = "f32") -> str:
        name = self._new(type_)
        if type_.startswith("f") or type_ == "bf16":
            literal = float_literal(value)
        elif type_ == "i1":
            literal = "true" if value else "false"
        else:
            literal = str(int(value))
        self.lines.append("%s = arith.constant %s : %s" % (name, literal, type_))
        return name

    def bin(self, op: str, a: str, b: str) -> str:
        type_ = self.type_of(a)
        name = self._new(type_)
        self.lines.append("%s = %s %s, %s : %s" % (name, op, a, b, type_))
        return name

    def un(self, op: str, a: str) -> str:
        type_ = self.type_of(a)
        name = self._new(type_)
        self.lines.append("%s = %s %s : %s" % (name, op, a, type_))
        return name

    def fma(self, a: str, b: str, c: str) -> str:
        type_ = self.type_of(a)
        name = self._new(type_)
        self.lines.append("%s = math.fma %s, %s, %s : %s" % (name, a, b, c, type_))
        return name

    def cmpf(self, predicate: str, a: str, b: str) -> str:
        name = self._new("i1")
        self.lines.append("%s = arith.cmpf %s, %s, %s : %s"
                          % (name, predicate, a, b, self.type_of(a)))
        return name

    def cmpi(self, predicate: str, a: str, b: str) -> str:
        name = self._new("i1")
        self.lines.append("%s = arith.cmpi %s, %s, %s : %s"
                          % (name, predicate, a, b, self.type_of(a)))
        return name

    def select(self, condition: str, a: str, b: str) -> str:
        type_ = self.type_of(a)
        name = self._new(type_)
        self.lines.append("%s = arith.select %s, %s, %s : %s"
                          % (name, condition, a, b, type_))
        return name

    def cast(self, op: str, a: str, to: str) -> str:
        name = self._new(to)
        self.lines.append("%s = %s %s : %s to %s" % (name, op, a, self.type_of(a), to))
        return name

    def index(self, dim: int) -> str:
        name = self._new("index")
        self.lines.append("%s = linalg.index %d : index" % (name, dim))
        return name

    def extract(self, tensor: str, indices: Sequence[str]) -> str:
        ttype = self.func.types[tensor]
        elem = ttype[ttype.rfind("x") + 1:-1] if "x" in ttype else ttype[7:-1]
        name = self._new(elem)
        self.lines.append("%s = tensor.extract %s[%s] : %s"
                          % (name, tensor, ", ".join(indices), ttype))
        return name


class Func:
    """A reference function under construction."""

    def __init__(self, name: str, args: Sequence[Tuple[str, Sequence[int]]],
                 elem: str = "f32", arg_elems: Optional[Dict[str, str]] = None):
        self.name = name
        self.lines: List[str] = []
        self.types: Dict[str, str] = {}
        self.counter = 0
        self.args: List[str] = []
        self.result_types: List[str] = []
        for arg, shape in args:
            type_ = tensor_type(shape, (arg_elems or {}).get(arg, elem))
            self.types["%" + arg] = type_
            self.args.append("%" + arg)
        self.constants: Dict[Tuple[str, str], str] = {}

    def fresh(self) -> str:
        self.counter += 1
        return "%%v%d" % self.counter

    def arg(self, name: str) -> str:
        return "%" + name

    def shape(self, value: str) -> List[int]:
        type_ = self.types[value]
        inner = type_[len("tensor<"):-1]
        parts = inner.split("x")
        return [int(p) for p in parts[:-1]]

    def elem(self, value: str) -> str:
        type_ = self.types[value]
        return type_[len("tensor<"):-1].split("x")[-1]

    def const(self, value: Union[float, int], type_: str = "f32") -> str:
        if type_.startswith("f"):
            literal = float_literal(value)
        else:
            literal = str(int(value))
        key = (literal, type_)
        if key not in self.constants:
            name = self.fresh()
            self.types[name] = type_
            self.lines.append("%s = arith.constant %s : %s" % (name, literal, type_))
            self.constants[key] = name
        return self.constants[key]

    def empty(self, shape: Sequence[int], elem: str = "f32") -> str:
        name = self.fresh()
        self.types[name] = tensor_type(shape, elem)
        self.lines.append("%s = tensor.empty() : %s" % (name, self.types[name]))
        return name

    def fill(self, value: Union[float, int], shape: Sequence[int],
             elem: str = "f32") -> str:
        scalar = self.const(value, elem)
        init = self.empty(shape, elem)
        name = self.fresh()
        self.types[name] = self.types[init]
        self.lines.append("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                          % (name, scalar, elem, init, self.types[init],
                             self.types[init]))
        return name

    def generic(self, ins: Sequence[str], outs: Sequence[str],
                maps: Sequence[str], iterators: Sequence[str],
                body: Callable[..., Union[str, Sequence[str]]]) -> Union[str, List[str]]:
        """linalg.generic; `maps` holds the inputs' then the outputs'
        affine maps; `body(block, *args)` returns the yielded value(s).
        Returns the result (a list when there are several)."""
        block = Block(self)
        block_args = []
        for value in list(ins) + list(outs):
            name = self.fresh()
            block.types[name] = self.elem(value)
            block_args.append(name)
        yielded = body(block, *block_args)
        if isinstance(yielded, str):
            yielded = [yielded]
        results = [self.fresh() for _ in outs]
        for r, o in zip(results, outs):
            self.types[r] = self.types[o]
        head = "%s = " % (results[0] if len(results) == 1 else
                          "%s:%d" % (results[0], len(results)))
        # Multi-result generics name their results %r#0, %r#1.
        if len(results) > 1:
            base = results[0]
            results = ["%s#%d" % (base, i) for i in range(len(outs))]
            for r, o in zip(results, outs):
                self.types[r] = self.types[o]
        self.lines.append(head + "linalg.generic {")
        self.lines.append("    indexing_maps = [%s]," % ", ".join(maps))
        self.lines.append("    iterator_types = [%s]}"
                          % ", ".join('"%s"' % t for t in iterators))
        if ins:
            self.lines.append("    ins(%s : %s)" % (", ".join(ins),
                              ", ".join(self.types[v] for v in ins)))
        self.lines.append("    outs(%s : %s) {" % (", ".join(outs),
                          ", ".join(self.types[v] for v in outs)))
        self.lines.append("^bb0(%s):" % ", ".join(
            "%s: %s" % (a, block.types[a]) for a in block_args))
        for line in block.lines:
            self.lines.append("  " + line)
        self.lines.append("  linalg.yield %s : %s" % (
            ", ".join(yielded), ", ".join(block.type_of(v) for v in yielded)))
        out_types = [self.types[o] for o in outs]
        self.lines.append("} -> %s" % (out_types[0] if len(out_types) == 1
                                       else "(%s)" % ", ".join(out_types)))
        return results[0] if len(results) == 1 else results

    def named(self, op: str, ins: Sequence[str], out: str,
              attrs: str = "") -> str:
        """A named linalg op such as linalg.matmul or linalg.conv_2d_nchw_fchw."""
        name = self.fresh()
        self.types[name] = self.types[out]
        self.lines.append("%s = %s%s ins(%s : %s) outs(%s : %s) -> %s" % (
            name, op, (" " + attrs) if attrs else "", ", ".join(ins),
            ", ".join(self.types[v] for v in ins), out, self.types[out],
            self.types[out]))
        return name

    def raw(self, line: str, result_type: Optional[str] = None) -> str:
        """An op written out by hand: `line` uses {r} for its result."""
        name = self.fresh()
        if result_type:
            self.types[name] = result_type
        self.lines.append(line.format(r=name))
        return name

    def ret(self, *values: str):
        self.result_values = list(values)
        self.result_types = [self.types[v] for v in values]

    def text(self) -> str:
        signature = ", ".join("%s: %s" % (a, self.types[a]) for a in self.args)
        results = ", ".join(self.result_types)
        if len(self.result_types) > 1:
            results = "(%s)" % results
        out = ["func.func @%s(%s) -> %s {" % (self.name, signature, results)]
        out += ["  " + line for line in self.lines]
        out.append("  return %s : %s" % (", ".join(self.result_values),
                                        ", ".join(self.result_types)))
        out.append("}")
        return "\n".join(out) + "\n"

    # Common shapes of computation -----------------------------------------

    def elementwise(self, ins: Sequence[str],
                    body: Callable[..., str], elem: Optional[str] = None,
                    shape: Optional[Sequence[int]] = None) -> str:
        """out[idx] = body(in0[idx], in1[idx], ...) over the first input's
        shape (all inputs the same shape)."""
        shape = list(shape if shape is not None else self.shape(ins[0]))
        out = self.empty(shape, elem or self.elem(ins[0]))
        n = len(shape)
        return self.generic(ins, [out], [identity_map(n)] * (len(ins) + 1),
                            ["parallel"] * n,
                            lambda b, *args: body(b, *args[:-1]))

    def reduce(self, x: str, reduced: Sequence[int], init: Union[float, int],
               combine: Callable[[Block, str, str], str],
               elem: Optional[str] = None) -> str:
        """out[kept dims] = combine over the `reduced` dims of x, starting
        from `init`. combine(block, element, accumulator)."""
        shape = self.shape(x)
        n = len(shape)
        kept = [d for d in range(n) if d not in reduced]
        elem = elem or self.elem(x)
        acc = self.fill(init, [shape[d] for d in kept], elem)
        # Reduction dims go innermost in the iteration space.
        order = kept + list(reduced)
        names = dims(n)
        in_map = "affine_map<(%s) -> (%s)>" % (
            ", ".join(names), ", ".join(names[order.index(d)] for d in range(n)))
        out_map = "affine_map<(%s) -> (%s)>" % (
            ", ".join(names), ", ".join(names[:len(kept)]))
        iterators = ["parallel"] * len(kept) + ["reduction"] * len(reduced)
        return self.generic([x], [acc], [in_map, out_map], iterators,
                            lambda b, v, a: combine(b, v, a))

    def broadcast_apply(self, x: str, row: str, kept: Sequence[int],
                        body: Callable[[Block, str, str], str]) -> str:
        """out[idx] = body(x[idx], row[idx restricted to `kept` dims])."""
        n = len(self.shape(x))
        names = dims(n)
        row_map = "affine_map<(%s) -> (%s)>" % (
            ", ".join(names), ", ".join(names[d] for d in kept))
        out = self.empty(self.shape(x), self.elem(x))
        return self.generic([x, row], [out],
                            [identity_map(n), row_map, identity_map(n)],
                            ["parallel"] * n,
                            lambda b, v, r, o: body(b, v, r))


def problem_file(symbol: str, func: Func, inputs: Sequence[str],
                 atol: float, rtol: float, comment: Sequence[str]) -> str:
    """The whole problem file: a comment, the kf.problem op and the
    reference function."""
    lines = ["// " + c if c else "//" for c in comment]
    lines.append("kf.problem @%s reference(@%s)" % (symbol, func.name))
    lines.append("    inputs([%s])" % ", ".join(inputs))
    lines.append("    tolerance(<atol = %s, rtol = %s>)"
                 % (float_literal(atol), float_literal(rtol)))
    lines.append("")
    return "\n".join(lines) + "\n" + func.text()
