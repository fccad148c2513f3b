"""KernelBench level 2, GEMM chains: a linear layer (nn.Linear, x @ W^T + b)
followed by elementwise ops, normalizations, pooling and reductions.

Each chain is written as the sequence of operations KernelBench's
Model.forward performs, one linalg op (or a short fixed expansion, e.g.
logsumexp = max, sum of exponentials, log) per PyTorch op: finding the
fusions is kf's job, not the problem file's.

The building blocks come in three forms, used by the conv chains
(level2_conv) too:

  MLIR builders   linear, unary/scalar/binary/broadcast_op, reduce_dim,
                  logsumexp, softmax, normalize (batch/group/instance/layer
                  norm), unsqueeze/expand/collapse;
  element bodies  RELU, SIGMOID, TANH, GELU, MISH, HARDSWISH, SOFTPLUS,
                  leaky_relu(), hardtanh(): functions (block, value) ->
                  value that emit one activation inside a linalg.generic;
  NumPy helpers   np_*: float64 re-implementations for the CPU check.

Inputs. KernelBench draws its inputs with torch.rand (U[0, 1)); here x is
symmetric, U(-r, r), so that the GEMM outputs have both signs (with W and b
drawn like nn.Linear's initialisation, U(-1/sqrt(in), 1/sqrt(in)), every
output y = x W^T + b has a standard deviation of about r/3 whatever `in`
is). r is raised above 1 where the chain's constants (a subtraction of 2, a
clamp at +-2, ...) would otherwise leave a stage constant or inactive.
Parameters created with torch.randn are N(0, 1); normalization weights and
biases are drawn around their initial 1 and 0 (N(1, 0.1), N(0, 0.1)) so that
a kernel cannot assume the initial values.

Skipped: 66_Matmul_Dropout_Softmax (Dropout in training mode: random output).
"""

import math
from typing import Callable, List, NamedTuple, Optional, Sequence, Union

from . import nn
from .mlir import Func, amap, dims, identity_map, normal, problem_file, tensor_type, uniform
from .registry import Problem, register

# Element bodies ---------------------------------------------------------------
# Each takes a mlir.Block and an f32 value and returns the activation's value.


def RELU(b, v):
    return b.bin("arith.maximumf", v, b.const(0.0))


def SIGMOID(b, v):
    # torch.sigmoid: 1 / (1 + exp(-x)).
    one = b.const(1.0)
    e = b.un("math.exp", b.un("arith.negf", v))
    return b.bin("arith.divf", one, b.bin("arith.addf", one, e))


def TANH(b, v):
    return b.un("math.tanh", v)


def GELU(b, v):
    # F.gelu / nn.GELU default (approximate='none'): x * 0.5 * (1 + erf(x / sqrt(2))).
    inner = b.un("math.erf", b.bin("arith.mulf", v, b.const(1.0 / math.sqrt(2.0))))
    half = b.bin("arith.mulf", v, b.const(0.5))
    return b.bin("arith.mulf", half, b.bin("arith.addf", inner, b.const(1.0)))


def MISH(b, v):
    # F.mish: x * tanh(softplus(x)) with softplus(x) = log1p(exp(x)).
    softplus = b.un("math.log1p", b.un("math.exp", v))
    return b.bin("arith.mulf", v, b.un("math.tanh", softplus))


def HARDSWISH(b, v):
    # F.hardswish: x * min(max(x + 3, 0), 6) / 6.
    r = b.bin("arith.addf", v, b.const(3.0))
    r = b.bin("arith.minimumf", b.bin("arith.maximumf", r, b.const(0.0)), b.const(6.0))
    return b.bin("arith.divf", b.bin("arith.mulf", v, r), b.const(6.0))


def SOFTPLUS(b, v):
    # F.softplus (beta = 1, threshold = 20): x where x > 20, else log1p(exp(x)).
    big = b.cmpf("ogt", v, b.const(20.0))
    return b.select(big, v, b.un("math.log1p", b.un("math.exp", v)))


def leaky_relu(slope: float):
    def body(b, v):
        positive = b.cmpf("ogt", v, b.const(0.0))
        return b.select(positive, v, b.bin("arith.mulf", v, b.const(slope)))
    return body


def hardtanh(lo: float, hi: float):
    """nn.Hardtanh(lo, hi) and torch.clamp(x, lo, hi): min(max(x, lo), hi)."""
    def body(b, v):
        return b.bin("arith.minimumf", b.bin("arith.maximumf", v, b.const(lo)), b.const(hi))
    return body


# MLIR builders ----------------------------------------------------------------


def unary(f: Func, x: str, body: Callable) -> str:
    """One elementwise PyTorch op: body(block, x[idx])."""
    return f.elementwise([x], body)


def scalar(f: Func, x: str, op: str, value: float) -> str:
    """x OP value for a Python scalar (x * 2.0, x - 2.0, x / 10.0)."""
    return f.elementwise([x], lambda b, v: b.bin(op, v, b.const(value)))


def binary(f: Func, x: str, y: str, op: str) -> str:
    """x OP y for two tensors of the same shape (x + x, x * sigmoid(x))."""
    return f.elementwise([x, y], lambda b, u, v: b.bin(op, u, v))


def apply(f: Func, x: str, operands: Sequence, body: Callable) -> str:
    """out[idx] = body(block, x[idx], *operand elements) over x's shape; each
    operand is (value, indices), indices naming for each of its dims the
    loop dim (an int) or a constant ("0" for a broadcast size-1 dim)."""
    n = len(f.shape(x))
    names = dims(n)
    maps = [identity_map(n)]
    for _, indices in operands:
        maps.append(amap(n, [names[d] if isinstance(d, int) else d for d in indices]))
    maps.append(identity_map(n))
    out = f.empty(f.shape(x), f.elem(x))
    return f.generic([x] + [v for v, _ in operands], [out], maps, ["parallel"] * n,
                     lambda b, *a: body(b, *a[:-1]))


def broadcast_op(f: Func, x: str, v: str, op: str) -> str:
    """x OP v with v broadcast against x as PyTorch does (shapes aligned on
    the right, v's size-1 dims repeated): a bias (C,) on the features of
    (B, C), a per-channel parameter (C, 1, 1) on (N, C, H, W), a row
    statistic (B, 1) on (B, C), a scalar parameter held as tensor<1>."""
    xshape, vshape = f.shape(x), f.shape(v)
    first = len(xshape) - len(vshape)
    if first < 0 or any(n not in (1, xshape[first + d]) for d, n in enumerate(vshape)):
        raise ValueError("cannot broadcast %r against %r" % (vshape, xshape))
    indices = [first + d if n != 1 else "0" for d, n in enumerate(vshape)]
    return apply(f, x, [(v, indices)], lambda b, u, w: b.bin(op, u, w))


def _kept(n: int, reduced: Sequence[int]) -> List[int]:
    return [d for d in range(n) if d not in reduced]


def reduction(f: Func, x: str, reduced: Sequence[int], init: float, body: Callable,
              *kept_operands: str) -> str:
    """out[kept dims] = fold over the `reduced` dims of x, starting from init:
    acc = body(block, x element, *kept operand elements, acc). The kept
    operands have the output's shape (e.g. a mean, for a variance)."""
    shape = f.shape(x)
    n = len(shape)
    kept = _kept(n, reduced)
    acc = f.fill(init, [shape[d] for d in kept], f.elem(x))
    order = kept + list(reduced)
    names = dims(n)
    x_map = amap(n, [names[order.index(d)] for d in range(n)])
    out_map = amap(n, names[:len(kept)])
    return f.generic([x] + list(kept_operands), [acc],
                     [x_map] + [out_map] * (len(kept_operands) + 1),
                     ["parallel"] * len(kept) + ["reduction"] * len(reduced), body)


_COMBINE = {"sum": ("arith.addf", 0.0), "max": ("arith.maximumf", float("-inf")),
            "min": ("arith.minimumf", float("inf"))}


def reduce_dim(f: Func, x: str, dim, kind: str, keepdim: bool = False) -> str:
    """torch.sum / amax / amin / mean over one dim or a list of dims ("sum",
    "max", "min", "mean"); keepdim leaves size-1 dims in their place."""
    reduced = [dim] if isinstance(dim, int) else list(dim)
    op, init = _COMBINE["sum" if kind == "mean" else kind]
    out = reduction(f, x, reduced, init, lambda b, v, a: b.bin(op, v, a))
    if kind == "mean":
        count = math.prod(f.shape(x)[d] for d in reduced)
        out = scalar(f, out, "arith.divf", float(count))
    return unsqueeze(f, out, reduced) if keepdim else out


def logsumexp(f: Func, x: str, dim: int, keepdim: bool = False) -> str:
    """torch.logsumexp: m + log(sum(exp(x - m))) with m the max over dim."""
    m = reduction(f, x, [dim], float("-inf"), lambda b, v, a: b.bin("arith.maximumf", v, a))

    def exp_sum(b, v, mv, a):
        return b.bin("arith.addf", b.un("math.exp", b.bin("arith.subf", v, mv)), a)

    s = reduction(f, x, [dim], 0.0, exp_sum, m)
    out = f.elementwise([s, m], lambda b, sv, mv: b.bin("arith.addf", b.un("math.log", sv), mv))
    return unsqueeze(f, out, dim) if keepdim else out


def softmax(f: Func, x: str, dim: int) -> str:
    """F.softmax: exp(x - max) / sum(exp(x - max)) over dim."""
    n = len(f.shape(x))
    kept = _kept(n, [dim])
    m = reduction(f, x, [dim], float("-inf"), lambda b, v, a: b.bin("arith.maximumf", v, a))
    e = apply(f, x, [(m, kept)], lambda b, v, mv: b.un("math.exp", b.bin("arith.subf", v, mv)))
    s = reduction(f, e, [dim], 0.0, lambda b, v, a: b.bin("arith.addf", v, a))
    return apply(f, e, [(s, kept)], lambda b, v, sv: b.bin("arith.divf", v, sv))


def moments(f: Func, x: str, reduced: Sequence[int], eps: float):
    """Mean and 1/sqrt(var + eps) over the `reduced` dims, with the biased
    variance (unbiased=False) of PyTorch's normalizations."""
    shape = f.shape(x)
    count = float(math.prod(shape[d] for d in reduced))
    total = reduction(f, x, reduced, 0.0, lambda b, v, a: b.bin("arith.addf", v, a))
    mean = scalar(f, total, "arith.divf", count)

    def squares(b, v, m, a):
        d = b.bin("arith.subf", v, m)
        return b.bin("arith.addf", b.bin("arith.mulf", d, d), a)

    sq = reduction(f, x, reduced, 0.0, squares, mean)
    rstd = f.elementwise([sq], lambda b, v: b.un("math.rsqrt", b.bin(
        "arith.addf", b.bin("arith.divf", v, b.const(count)), b.const(eps))))
    return mean, rstd


def normalize(f: Func, x: str, reduced: Sequence[int], eps: float = 1e-5,
              weight: Optional[str] = None, bias: Optional[str] = None,
              affine_dims: Sequence[int] = (1,)) -> str:
    """(x - mean) * rstd [* weight + bias] with the statistics over the
    `reduced` dims; weight and bias are indexed by `affine_dims`."""
    n = len(f.shape(x))
    kept = _kept(n, reduced)
    mean, rstd = moments(f, x, reduced, eps)
    operands = [(mean, kept), (rstd, kept)]
    if weight is not None:
        operands += [(weight, affine_dims), (bias, affine_dims)]

    def body(b, v, m, r, *affine):
        y = b.bin("arith.mulf", b.bin("arith.subf", v, m), r)
        if affine:
            y = b.bin("arith.addf", b.bin("arith.mulf", y, affine[0]), affine[1])
        return y

    return apply(f, x, operands, body)


def batch_norm(f: Func, x: str, weight: str, bias: str, eps: float = 1e-5) -> str:
    """nn.BatchNorm1d/2d/3d in training mode: batch statistics per channel
    (dim 1) over N and the spatial dims."""
    n = len(f.shape(x))
    return normalize(f, x, [0] + list(range(2, n)), eps, weight, bias, [1])


def group_norm(f: Func, x: str, groups: int, weight: Optional[str] = None,
               bias: Optional[str] = None, eps: float = 1e-5) -> str:
    """nn.GroupNorm(groups, C) on x (N, C, ...): the channels are viewed as
    (groups, C / groups) and normalized over that and the spatial dims.
    groups = 1 without affine is also InstanceNorm on a (N, 1, ..., C) view."""
    shape = f.shape(x)
    n = len(shape)
    per_group = shape[1] // groups
    grouped = expand(f, x, [[0], [1, 2]] + [[d + 1] for d in range(2, n)],
                     [shape[0], groups, per_group] + shape[2:])
    if weight is not None:
        weight = expand(f, weight, [[0, 1]], [groups, per_group])
        bias = expand(f, bias, [[0, 1]], [groups, per_group])
    y = normalize(f, grouped, list(range(2, n + 1)), eps, weight, bias, [1, 2])
    return collapse(f, y, [[0], [1, 2]] + [[d + 1] for d in range(2, n)])


def _reassociation(groups: Sequence[Sequence[int]]) -> str:
    return "[%s]" % ", ".join("[%s]" % ", ".join(str(d) for d in g) for g in groups)


def expand(f: Func, x: str, groups: Sequence[Sequence[int]], shape: Sequence[int]) -> str:
    """tensor.expand_shape (a view: x.view / unsqueeze)."""
    type_ = tensor_type(shape, f.elem(x))
    return f.raw("{r} = tensor.expand_shape %s %s output_shape [%s] : %s into %s"
                 % (x, _reassociation(groups), ", ".join(str(d) for d in shape),
                    f.types[x], type_), type_)


def collapse(f: Func, x: str, groups: Sequence[Sequence[int]]) -> str:
    """tensor.collapse_shape (a view: x.view / squeeze)."""
    shape = f.shape(x)
    new = [math.prod(shape[d] for d in g) for g in groups]
    type_ = tensor_type(new, f.elem(x))
    return f.raw("{r} = tensor.collapse_shape %s %s : %s into %s"
                 % (x, _reassociation(groups), f.types[x], type_), type_)


def unsqueeze(f: Func, x: str, dims_: Union[int, Sequence[int]]) -> str:
    """x.unsqueeze(d) for each d of dims_ (positions in the result), e.g. the
    kept dims of a reduction with keepdim=True: one tensor.expand_shape."""
    positions = {dims_} if isinstance(dims_, int) else set(dims_)
    shape = f.shape(x)
    if not shape:
        raise ValueError("cannot unsqueeze a 0-d tensor")
    new_shape, groups, pending, source = [], [], [], 0
    for d in range(len(shape) + len(positions)):
        if d in positions:
            new_shape.append(1)
            (groups[-1] if groups else pending).append(d)
        else:
            new_shape.append(shape[source])
            source += 1
            groups.append(pending + [d])
            pending = []
    return expand(f, x, groups, new_shape)


def squeeze(f: Func, x: str, dims_: Union[int, Sequence[int]]) -> str:
    """x.squeeze(d) of size-1 dims: one tensor.collapse_shape."""
    positions = {dims_ % len(f.shape(x))} if isinstance(dims_, int) else set(dims_)
    groups, pending = [], []
    for d in range(len(f.shape(x))):
        if d in positions:
            (groups[-1] if groups else pending).append(d)
        else:
            groups.append(pending + [d])
            pending = []
    return collapse(f, x, groups)


def linear(f: Func, x: str, w: str, b: Optional[str] = None) -> str:
    """nn.Linear / F.linear: x @ W^T (+ b) with W of shape (out, in): a
    matmul reading W transposed through its indexing map, then the bias."""
    rows, out = f.shape(x)[0], f.shape(w)[0]
    acc = f.fill(0.0, [rows, out], f.elem(x))
    maps = "indexing_maps = [%s, %s, %s]" % (amap(3, ["i", "k"]), amap(3, ["j", "k"]),
                                             amap(3, ["i", "j"]))
    y = f.named("linalg.matmul", [x, w], acc, maps)
    return broadcast_op(f, y, b, "arith.addf") if b is not None else y


# NumPy helpers (float64) ------------------------------------------------------


def np64(np, *arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def np_linear(np, x, w, b=None):
    x, w = np64(np, x, w)
    y = np.einsum("bk,nk->bn", x, w)
    return y if b is None else y + np.asarray(b, dtype=np.float64)


def np_sigmoid(np, x):
    return 1.0 / (1.0 + np.exp(-x))


def np_gelu(np, x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def np_mish(np, x):
    return x * np.tanh(np.log1p(np.exp(x)))


def np_hardswish(np, x):
    return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0


def np_softplus(np, x):
    return np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0))))


def np_leaky_relu(np, x, slope):
    return np.where(x > 0, x, x * slope)


def np_logsumexp(np, x, axis, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def np_softmax(np, x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def np_normalize(np, x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def np_batch_norm(np, x, weight, bias, eps=1e-5):
    x, weight, bias = np64(np, x, weight, bias)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    return np_normalize(np, x, axes, eps) * weight.reshape(shape) + bias.reshape(shape)


def np_group_norm(np, x, groups, weight=None, bias=None, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    shape = x.shape
    g = x.reshape((shape[0], groups, -1))
    y = np_normalize(np, g, (2,), eps).reshape(shape)
    if weight is None:
        return y
    weight, bias = np64(np, weight, bias)
    affine = [1, -1] + [1] * (x.ndim - 2)
    return y * weight.reshape(affine) + bias.reshape(affine)


# Problem registration ---------------------------------------------------------


class Arg(NamedTuple):
    """One input of a problem: its name, shape, distribution and, optionally,
    a comment line saying why that distribution."""
    name: str
    shape: List[int]
    dist: str
    why: str = ""


def linear_args(s, x_range: float = 1.0, inp: str = "IN", out: str = "OUT",
                suffix: str = "", x: bool = True, bias: bool = True) -> List[Arg]:
    """x (B, in), W (out, in), b (out) of an nn.Linear (see the module's
    docstring for the distributions)."""
    bound = 1.0 / math.sqrt(s[inp])
    args = []
    if x:
        args.append(Arg("x", [s["B"], s[inp]], uniform(-x_range, x_range),
                        "x ~ U(-%g, %g) (KernelBench: torch.rand): the GEMM outputs have both "
                        "signs, std about %.2g." % (x_range, x_range, x_range / 3.0)))
    args.append(Arg("w" + suffix, [s[out], s[inp]], uniform(-bound, bound),
                    "W%s%s ~ U(-1/sqrt(%d), 1/sqrt(%d)), nn.Linear's initialisation."
                    % (suffix, " and b" + suffix if bias else "", s[inp], s[inp])))
    if bias:
        args.append(Arg("b" + suffix, [s[out]], uniform(-bound, bound)))
    return args


def norm_affine_args(s, channels: str = "OUT", what: str = "BatchNorm",
                     prefix: str = "") -> List[Arg]:
    """The weight and bias of a BatchNorm/GroupNorm/LayerNorm over
    s[channels] features, named [prefix]gamma and [prefix]beta."""
    gamma, beta = prefix + "gamma", prefix + "beta"
    return [Arg(gamma, [s[channels]], normal(1.0, 0.1),
                "%s ~ N(1, 0.1), %s ~ N(0, 0.1): the %s affine parameters around "
                "their initial 1 and 0." % (gamma, beta, what)),
            Arg(beta, [s[channels]], normal(0.0, 0.1))]


def randn_arg(name: str, shape: List[int]) -> Arg:
    """A parameter created with torch.randn: N(0, 1)."""
    return Arg(name, shape, normal(0.0, 1.0),
               "%s ~ N(0, 1): nn.Parameter(torch.randn(...))." % name)


GEMM_1024 = {"B": 1024, "IN": 8192, "OUT": 8192}
GEMM_2048 = {"B": 2048, "IN": 8192, "OUT": 8192}
GEMM_16384 = {"B": 16384, "IN": 4096, "OUT": 4096}
GEMM_128 = {"B": 128, "IN": 32768, "OUT": 32768}
SMALL = {"B": 16, "IN": 203, "OUT": 192}


def _dims(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


DEFAULT_TOLERANCE = ("atol = rtol = 1e-4: the outputs are of order 0.1-1, and a fp32 reduction "
                     "of thousands of terms in another order moves them by about 1e-5.")


def chain(name: str, forward: Sequence[str], args: Callable, build: Callable,
          torch_fn: Callable, numpy_fn: Optional[Callable], atol: float, rtol: float,
          why: Sequence[str] = (), full=GEMM_1024, small=SMALL, level: int = 2) -> Problem:
    """Registers a KernelBench chain.

    forward: the PyTorch forward in terms of the sizes' names (B, IN, ...);
    args:    sizes -> [Arg] in the reference's argument order (the forward's
             inputs, then the module's parameters in creation order);
    build:   (Func, sizes, *argument values) -> the output value(s);
    why:     comment lines on the distributions and the tolerance.
    """
    number, title = name.split("_", 1)
    symbol = "l%d_%s" % (level, name)

    def mlir(s):
        spec = args(s)
        f = Func(symbol + "_ref", [(a.name, a.shape) for a in spec])
        out = build(f, s, *[f.arg(a.name) for a in spec])
        outs = [out] if isinstance(out, str) else list(out)
        f.ret(*outs)
        comment = ["KernelBench level %d, problem %s (%s), fp32:" % (level, number, title)]
        comment += ["  " + line for line in forward]
        comment.append("Sizes: %s." % ", ".join("%s = %d" % kv for kv in s.items()))
        comment.append("Inputs: %s; output %s." % (
            ", ".join("%s %s" % (a.name, _dims(a.shape)) for a in spec),
            ", ".join(_dims(f.shape(o)) for o in outs)))
        comment += [a.why for a in spec if a.why]
        comment += list(why)
        if (atol, rtol) == (1e-4, 1e-4):
            comment += [DEFAULT_TOLERANCE]
        return problem_file(symbol, f, [a.dist for a in spec], atol, rtol, comment)

    return register(Problem(name=name, level=level, full=full, small=small, mlir=mlir,
                            torch=torch_fn, numpy=numpy_fn))


# The chains -------------------------------------------------------------------
# Tolerances: a fp32 dot product of length 4096-32768 computed in another
# order differs by about 1e-5 of the outputs' scale at worst, so outputs of
# order 1 get atol = rtol = 1e-4 (as examples/problems/gemm_bias_relu.mlir);
# sums over whole rows, softmax and logsumexp outputs get tolerances scaled
# to their magnitude, said per problem.

chain(
    "9_Matmul_Subtract_Multiply_ReLU",
    ["y = relu((linear(x) - 2.0) * 1.5)"],
    lambda s: linear_args(s, x_range=6.0),
    lambda f, s, x, w, b: unary(f, scalar(f, scalar(f, linear(f, x, w, b), "arith.subf", 2.0),
                                          "arith.mulf", 1.5), RELU),
    lambda torch, x, w, b, s: torch.relu((torch.nn.functional.linear(x, w, b) - 2.0) * 1.5),
    lambda np, x, w, b, s: np.maximum((np_linear(np, x, w, b) - 2.0) * 1.5, 0.0),
    atol=2e-4, rtol=1e-4,
    why=["With r = 6 the GEMM outputs (std 2) exceed 2.0 about 16% of the time: with",
         "U(-1, 1) the ReLU would output zeros almost everywhere, and so would a kernel",
         "writing zeros. atol = 2e-4, rtol = 1e-4: outputs of order 1-5."])

chain(
    "12_Gemm_Multiply_LeakyReLU",
    ["y = leaky_relu(linear(x) * 2.0, negative_slope=0.1)"],
    lambda s: linear_args(s),
    lambda f, s, x, w, b: unary(f, scalar(f, linear(f, x, w, b), "arith.mulf", 2.0),
                                leaky_relu(0.1)),
    lambda torch, x, w, b, s: torch.nn.functional.leaky_relu(
        torch.nn.functional.linear(x, w, b) * 2.0, 0.1),
    lambda np, x, w, b, s: np_leaky_relu(np, np_linear(np, x, w, b) * 2.0, 0.1),
    atol=1e-4, rtol=1e-4)


def _p14(f, s, x, w):
    y = scalar(f, linear(f, x, w), "arith.divf", 2.0)
    return scalar(f, reduce_dim(f, y, 1, "sum", keepdim=True), "arith.mulf", 1.5)


chain(
    "14_Gemm_Divide_Sum_Scaling",
    ["y = x @ W.T  (W = nn.Parameter(torch.randn(OUT, IN)), no bias)",
     "y = sum(y / 2, dim=1, keepdim=True) * 1.5"],
    lambda s: [Arg("x", [s["B"], s["IN"]], uniform(-1.0, 1.0),
                   "x ~ U(-1, 1) (KernelBench: torch.rand): GEMM outputs of both signs."),
               randn_arg("w", [s["OUT"], s["IN"]])],
    _p14,
    lambda torch, x, w, s: torch.sum(torch.matmul(x, w.T) / 2, dim=1, keepdim=True) * 1.5,
    lambda np, x, w, s: np.sum(np_linear(np, x, w) / 2, axis=1, keepdims=True) * 1.5,
    atol=0.5, rtol=1e-4,
    why=["With W ~ N(0, 1) the GEMM outputs have std sqrt(IN/3) (52 for IN = 8192) and",
         "the row sums about 3500: atol = 0.5 and rtol = 1e-4 cover a reordered fp32",
         "sum of 8192 such values and stay far below the outputs' spread."])


def _p18(f, s, x, w, b):
    y = reduce_dim(f, linear(f, x, w, b), 1, "sum", keepdim=True)  # (B, 1)
    y = reduce_dim(f, y, 1, "max", keepdim=True)
    y = reduce_dim(f, y, 1, "mean", keepdim=True)
    y = logsumexp(f, y, 1, keepdim=True)
    return logsumexp(f, y, 1, keepdim=True)


chain(
    "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp",
    ["y = sum(linear(x), dim=1, keepdim=True)            # (B, 1)",
     "y = max(y, dim=1, keepdim=True)[0]; y = mean(y, dim=1, keepdim=True)",
     "y = logsumexp(y, dim=1, keepdim=True); y = logsumexp(y, dim=1, keepdim=True)"],
    lambda s: linear_args(s),
    _p18,
    lambda torch, x, w, b, s: _torch18(torch, x, w, b),
    lambda np, x, w, b, s: np.sum(np_linear(np, x, w, b), axis=1, keepdims=True),
    atol=1e-2, rtol=1e-4,
    why=["After the sum every op reduces a dim of size 1 (the identity in exact",
         "arithmetic, as KernelBench computes it). The row sums have std about",
         "sqrt(IN) / 3 (30 for IN = 8192); atol = 1e-2 covers a reordered fp32 sum."])


def _torch18(torch, x, w, b):
    y = torch.sum(torch.nn.functional.linear(x, w, b), dim=1, keepdim=True)
    y = torch.max(y, dim=1, keepdim=True)[0]
    y = torch.mean(y, dim=1, keepdim=True)
    y = torch.logsumexp(y, dim=1, keepdim=True)
    return torch.logsumexp(y, dim=1, keepdim=True)


def _p22(f, s, x, w, b):
    y = scalar(f, linear(f, x, w, b), "arith.mulf", 2.0)
    y = binary(f, y, y, "arith.addf")
    y = unary(f, y, hardtanh(-10.0, 10.0))
    y = logsumexp(f, y, 1, keepdim=True)
    return binary(f, y, unary(f, y, MISH), "arith.mulf")


def _torch22(torch, x, w, b):
    y = torch.nn.functional.linear(x, w, b) * 2.0
    y = y + y
    y = torch.clamp(y, -10.0, 10.0)
    y = torch.logsumexp(y, dim=1, keepdim=True)
    return y * torch.nn.functional.mish(y)


def _np22(np, x, w, b):
    y = np_linear(np, x, w, b) * 4.0
    y = np_logsumexp(np, np.clip(y, -10.0, 10.0), 1, keepdims=True)
    return y * np_mish(np, y)


chain(
    "22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish",
    ["y = linear(x) * 2.0; y = y + y; y = clamp(y, -10.0, 10.0)",
     "y = logsumexp(y, dim=1, keepdim=True)              # (B, 1)",
     "y = y * mish(y)"],
    lambda s: linear_args(s, x_range=3.0),
    _p22, lambda torch, x, w, b, s: _torch22(torch, x, w, b),
    lambda np, x, w, b, s: _np22(np, x, w, b),
    atol=1e-4, rtol=1e-5,
    why=["With r = 3 the scaled outputs (std 4) reach the clamp at +-10 in about 1% of",
         "the elements, which then dominate the logsumexp: a kernel that skips the",
         "clamp is far off. The outputs (about 200) vary from row to row by a few",
         "units; rtol = 1e-5 is above the fp32 error of a reordered logsumexp."])


def _p28(f, s, x, y, w, b):
    h = linear(f, x, w, b)
    # InstanceNorm2d on h.unsqueeze(1).unsqueeze(1) (B, 1, 1, OUT): one
    # instance per row, normalized over its OUT elements (no affine).
    h = squeeze(f, squeeze(f, group_norm(f, unsqueeze(f, unsqueeze(f, h, 1), 1), 1), 1), 1)
    return binary(f, binary(f, h, y, "arith.addf"), y, "arith.mulf")


def _torch28(torch, x, y, w, b):
    h = torch.nn.functional.linear(x, w, b)
    h = torch.nn.functional.instance_norm(h.unsqueeze(1).unsqueeze(1), eps=1e-5)
    h = h.squeeze(1).squeeze(1)
    return (h + y) * y


chain(
    "28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply",
    ["h = linear(x)",
     "h = InstanceNorm2d(OUT, eps=1e-5)(h.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)",
     "out = (h + y) * y"],
    lambda s: linear_args(s)[:1] + [Arg("y", [s["B"], s["OUT"]], uniform(-1.0, 1.0),
                                        "y ~ U(-1, 1) (KernelBench: torch.rand).")]
    + linear_args(s, x=False),
    _p28, lambda torch, x, y, w, b, s: _torch28(torch, x, y, w, b),
    lambda np, x, y, w, b, s: (np_normalize(np, np_linear(np, x, w, b), (1,)) + y) * y,
    atol=1e-4, rtol=1e-4,
    why=["InstanceNorm2d sees one channel (dim 1 has size 1; num_features only warns,",
         "affine is off) and normalizes each row over its OUT values, biased variance."])

chain(
    "29_Matmul_Mish_Mish",
    ["y = mish(mish(linear(x)))"],
    lambda s: linear_args(s, x_range=3.0),
    lambda f, s, x, w, b: unary(f, unary(f, linear(f, x, w, b), MISH), MISH),
    lambda torch, x, w, b, s: torch.nn.functional.mish(torch.nn.functional.mish(
        torch.nn.functional.linear(x, w, b))),
    lambda np, x, w, b, s: np_mish(np, np_mish(np, np_linear(np, x, w, b))),
    atol=1e-4, rtol=1e-4,
    why=["r = 3 puts the GEMM outputs (std 1) where Mish is far from linear."])


def _gemm_group_norm(name, forward, groups, post, torch_post, np_post, why=(),
                     small_groups=None):
    """linear -> GroupNorm(G, OUT) (affine) -> post(f, y): the ops after it."""
    chain(name, forward,
          lambda s: linear_args(s) + norm_affine_args(s, what="GroupNorm"),
          lambda f, s, x, w, b, g, be: post(f, group_norm(f, linear(f, x, w, b), s["G"], g, be)),
          lambda torch, x, w, b, g, be, s: torch_post(torch, torch.nn.functional.group_norm(
              torch.nn.functional.linear(x, w, b), s["G"], g, be, eps=1e-5)),
          lambda np, x, w, b, g, be, s: np_post(np, np_group_norm(
              np, np_linear(np, x, w, b), s["G"], g, be)),
          atol=1e-4, rtol=1e-4, why=why,
          full=dict(GEMM_1024, G=groups), small=dict(SMALL, G=small_groups or groups))


_gemm_group_norm(
    "30_Gemm_GroupNorm_Hardtanh",
    ["y = Hardtanh(-2.0, 2.0)(GroupNorm(G, OUT, eps=1e-5)(linear(x)))"],
    16, lambda f, y: unary(f, y, hardtanh(-2.0, 2.0)),
    lambda torch, y: torch.nn.functional.hardtanh(y, -2.0, 2.0),
    lambda np, y: np.clip(y, -2.0, 2.0),
    why=["The normalized values are about N(0, 1): the Hardtanh clips about 5% of them."],
    small_groups=8)


def _bn_chain_args(s, x_range=1.0):
    return linear_args(s, x_range) + [randn_arg("scale", [s["OUT"]])] + norm_affine_args(s)


def _p33(f, s, x, w, b, scale, g, be):
    return batch_norm(f, broadcast_op(f, linear(f, x, w, b), scale, "arith.mulf"), g, be)


for _name, _full in (("33_Gemm_Scale_BatchNorm", GEMM_1024),
                     ("39_Gemm_Scale_BatchNorm", GEMM_16384)):
    chain(
        _name,
        ["y = linear(x) * scale              # scale = nn.Parameter(torch.randn(OUT))",
         "y = BatchNorm1d(OUT, eps=1e-5)(y)  # training mode: batch statistics"],
        _bn_chain_args, _p33,
        lambda torch, x, w, b, scale, g, be, s: torch.nn.functional.batch_norm(
            torch.nn.functional.linear(x, w, b) * scale, None, None, g, be,
            training=True, eps=1e-5),
        lambda np, x, w, b, scale, g, be, s: np_batch_norm(
            np, np_linear(np, x, w, b) * scale, g, be),
        atol=1e-4, rtol=1e-4,
        why=["BatchNorm normalizes each feature over the batch with the biased variance."],
        full=_full)


def _p37(f, s, x, w, b, bias, g, be):
    y = linear(f, x, w, b)
    y = binary(f, unary(f, y, SIGMOID), y, "arith.mulf")
    y = broadcast_op(f, y, bias, "arith.addf")
    return group_norm(f, y, s["G"], g, be)


chain(
    "37_Matmul_Swish_Sum_GroupNorm",
    ["y = linear(x); y = sigmoid(y) * y; y = y + bias  # bias = nn.Parameter(torch.randn(OUT))",
     "y = GroupNorm(G, OUT, eps=1e-5)(y)"],
    lambda s: linear_args(s, x_range=3.0) + [randn_arg("bias", [s["OUT"]])]
    + norm_affine_args(s, what="GroupNorm"),
    _p37,
    lambda torch, x, w, b, bias, g, be, s: (lambda y: torch.nn.functional.group_norm(
        torch.sigmoid(y) * y + bias, s["G"], g, be, eps=1e-5))(torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, bias, g, be, s: np_group_norm(
        np, _np_swish(np, np_linear(np, x, w, b)) + bias, s["G"], g, be),
    atol=1e-4, rtol=1e-4,
    why=["r = 3 puts the GEMM outputs (std 1) where Swish is far from linear."],
    full={"B": 32768, "IN": 1024, "OUT": 4096, "G": 64}, small=dict(SMALL, G=16))


def _np_swish(np, y):
    return np_sigmoid(np, y) * y


chain(
    "40_Matmul_Scaling_ResidualAdd",
    ["y = linear(x); original = y.clone().detach()",
     "y = y * 0.5 + original"],
    lambda s: linear_args(s),
    lambda f, s, x, w, b: (lambda y: binary(f, scalar(f, y, "arith.mulf", 0.5), y,
                                            "arith.addf"))(linear(f, x, w, b)),
    lambda torch, x, w, b, s: (lambda y: y * 0.5 + y.clone().detach())(
        torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, s: np_linear(np, x, w, b) * 1.5,
    atol=1e-4, rtol=1e-4, full=GEMM_16384)


def _p41(f, s, x, w, b, g, be):
    y = batch_norm(f, linear(f, x, w, b), g, be)
    return unary(f, unary(f, y, GELU), RELU)


chain(
    "41_Gemm_BatchNorm_GELU_ReLU",
    ["y = relu(gelu(BatchNorm1d(OUT)(linear(x))))  # training mode: batch statistics"],
    lambda s: linear_args(s) + norm_affine_args(s),
    _p41,
    lambda torch, x, w, b, g, be, s: torch.relu(torch.nn.functional.gelu(
        torch.nn.functional.batch_norm(torch.nn.functional.linear(x, w, b), None, None, g, be,
                                       training=True, eps=1e-5))),
    lambda np, x, w, b, g, be, s: np.maximum(np_gelu(np, np_batch_norm(
        np, np_linear(np, x, w, b), g, be)), 0.0),
    atol=1e-4, rtol=1e-4, full=GEMM_16384)


def _p45(f, s, x, w1, b1, w2, b2):
    h = unary(f, linear(f, x, w1, b1), SIGMOID)
    return logsumexp(f, linear(f, h, w2, b2), 1)


chain(
    "45_Gemm_Sigmoid_LogSumExp",
    ["h = sigmoid(linear1(x))            # IN -> H",
     "y = logsumexp(linear2(h), dim=1)   # H -> OUT, then (B,)"],
    lambda s: linear_args(s, x_range=3.0, out="H", suffix="1")
    + linear_args(s, inp="H", out="OUT", suffix="2", x=False),
    _p45,
    lambda torch, x, w1, b1, w2, b2, s: torch.logsumexp(torch.nn.functional.linear(
        torch.sigmoid(torch.nn.functional.linear(x, w1, b1)), w2, b2), dim=1),
    lambda np, x, w1, b1, w2, b2, s: np_logsumexp(np, np_linear(
        np, np_sigmoid(np, np_linear(np, x, w1, b1)), w2, b2), 1),
    atol=1e-5, rtol=2e-5,
    why=["The logsumexp over OUT values is about log(OUT) + 0.1 for every row and",
         "varies between rows by about 1e-3 (r = 3 widens the sigmoid's outputs for",
         "that): rtol = 2e-5 is above the fp32 error and well below that spread."],
    full={"B": 16384, "IN": 2048, "H": 4096, "OUT": 1024},
    small={"B": 16, "IN": 203, "H": 96, "OUT": 75})


def _p51(f, s, x, w, b, sub):
    y = broadcast_op(f, linear(f, x, w, b), sub, "arith.subf")
    y = reduce_dim(f, y, 1, "mean", keepdim=True)  # (B, 1)
    y = logsumexp(f, y, 1, keepdim=True)
    y = unary(f, y, GELU)
    return broadcast_op(f, x, y, "arith.addf")


def _torch51(torch, x, w, b, sub):
    original = x.clone().detach()
    y = torch.nn.functional.linear(x, w, b) - sub
    y = torch.mean(y, dim=1, keepdim=True)
    y = torch.logsumexp(y, dim=1, keepdim=True)
    return torch.nn.functional.gelu(y) + original


chain(
    "51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd",
    ["original = x.clone().detach()",
     "y = linear(x) - subtract           # subtract = nn.Parameter(torch.randn(OUT))",
     "y = mean(y, dim=1, keepdim=True); y = logsumexp(y, dim=1, keepdim=True)",
     "y = gelu(y) + original             # (B, 1) broadcast over (B, IN)"],
    lambda s: linear_args(s) + [randn_arg("subtract", [s["OUT"]])],
    _p51, lambda torch, x, w, b, sub, s: _torch51(torch, x, w, b, sub),
    lambda np, x, w, b, sub, s: np_gelu(np, np.mean(np_linear(np, x, w, b) - sub, axis=1,
                                                  keepdims=True)) + x,
    atol=1e-6, rtol=1e-5,
    why=["The output is x plus a per-row offset gelu(mean) of about 1e-3 to 1e-2:",
         "the tolerance (1e-6 + 1e-5 |y|) is far below it, so a copy of x fails."],
    full=GEMM_2048)

chain(
    "53_Gemm_Scaling_Hardtanh_GELU",
    ["y = gelu(Hardtanh(-2, 2)(linear(x) * 0.5))"],
    lambda s: linear_args(s, x_range=8.0),
    lambda f, s, x, w, b: unary(f, unary(f, scalar(f, linear(f, x, w, b), "arith.mulf", 0.5),
                                         hardtanh(-2.0, 2.0)), GELU),
    lambda torch, x, w, b, s: torch.nn.functional.gelu(torch.nn.functional.hardtanh(
        torch.nn.functional.linear(x, w, b) * 0.5, -2.0, 2.0)),
    lambda np, x, w, b, s: np_gelu(np, np.clip(np_linear(np, x, w, b) * 0.5, -2.0, 2.0)),
    atol=1e-4, rtol=1e-4,
    why=["With r = 8 the scaled GEMM outputs (std 1.3) are clipped in about 13% of",
         "the elements; with U(-1, 1) the Hardtanh would never act."],
    full=GEMM_2048)


def _p55(f, s, x, w, b):
    y = linear(f, x, w, b)
    y = squeeze(f, nn.max_pool1d(f, unsqueeze(f, y, 1), 2), 1)
    return scalar(f, reduce_dim(f, y, 1, "sum"), "arith.mulf", 0.5)


chain(
    "55_Matmul_MaxPool_Sum_Scale",
    ["y = MaxPool1d(2)(linear(x).unsqueeze(1)).squeeze(1)   # (B, OUT / 2)",
     "y = sum(y, dim=1) * 0.5                               # (B,)"],
    lambda s: linear_args(s),
    _p55,
    lambda torch, x, w, b, s: torch.sum(torch.nn.functional.max_pool1d(
        torch.nn.functional.linear(x, w, b).unsqueeze(1), 2).squeeze(1), dim=1) * 0.5,
    lambda np, x, w, b, s: np.sum(nn.np_max_pool(np, np_linear(np, x, w, b)[:, None, :], 2)[:, 0],
                                  axis=1) * 0.5,
    atol=1e-2, rtol=1e-4,
    why=["The outputs are sums of OUT / 2 pairwise maxima (about 1500 for OUT = 32768,",
         "varying by tens between rows); rtol = 1e-4 covers a reordered fp32 sum."],
    full=GEMM_128)

chain(
    "56_Matmul_Sigmoid_Sum",
    ["y = sum(sigmoid(linear(x)), dim=1, keepdim=True)   # (B, 1)"],
    lambda s: linear_args(s, x_range=3.0),
    lambda f, s, x, w, b: reduce_dim(f, unary(f, linear(f, x, w, b), SIGMOID), 1, "sum",
                                     keepdim=True),
    lambda torch, x, w, b, s: torch.sum(torch.sigmoid(torch.nn.functional.linear(x, w, b)),
                                        dim=1, keepdim=True),
    lambda np, x, w, b, s: np.sum(np_sigmoid(np, np_linear(np, x, w, b)), axis=1, keepdims=True),
    atol=1e-3, rtol=1e-5,
    why=["The row sums are about OUT / 2 (16384) and vary between rows by about 40",
         "(r = 3): rtol = 1e-5 (0.16) covers a reordered fp32 sum and rejects a constant."],
    full=GEMM_128)

chain(
    "59_Matmul_Swish_Scaling",
    ["y = linear(x); y = y * sigmoid(y); y = y * 2.0"],
    lambda s: linear_args(s, x_range=3.0),
    lambda f, s, x, w, b: (lambda y: scalar(f, binary(f, y, unary(f, y, SIGMOID), "arith.mulf"),
                                            "arith.mulf", 2.0))(linear(f, x, w, b)),
    lambda torch, x, w, b, s: (lambda y: y * torch.sigmoid(y) * 2.0)(
        torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, s: _np_swish(np, np_linear(np, x, w, b)) * 2.0,
    atol=1e-4, rtol=1e-4,
    why=["r = 3 puts the GEMM outputs (std 1) where Swish is far from linear."],
    full=GEMM_128)

_gemm_group_norm(
    "62_Matmul_GroupNorm_LeakyReLU_Sum",
    ["y = LeakyReLU(0.01)(GroupNorm(G, OUT, eps=1e-5)(linear(x)))",
     "y = y + y"],
    512, lambda f, y: (lambda z: binary(f, z, z, "arith.addf"))(unary(f, y, leaky_relu(0.01))),
    lambda torch, y: (lambda z: z + z)(torch.nn.functional.leaky_relu(y, 0.01)),
    lambda np, y: 2.0 * np_leaky_relu(np, y, 0.01),
    small_groups=32)

chain(
    "63_Gemm_ReLU_Divide",
    ["y = relu(linear(x)) / 2.0"],
    lambda s: linear_args(s),
    lambda f, s, x, w, b: scalar(f, unary(f, linear(f, x, w, b), RELU), "arith.divf", 2.0),
    lambda torch, x, w, b, s: torch.relu(torch.nn.functional.linear(x, w, b)) / 2.0,
    lambda np, x, w, b, s: np.maximum(np_linear(np, x, w, b), 0.0) / 2.0,
    atol=1e-4, rtol=1e-4)


def _p64(f, s, x, w, b):
    y = logsumexp(f, linear(f, x, w, b), 1, keepdim=True)
    y = unary(f, unary(f, y, leaky_relu(0.01)), leaky_relu(0.01))
    return unary(f, unary(f, y, GELU), GELU)


def _torch64(torch, x, w, b):
    y = torch.logsumexp(torch.nn.functional.linear(x, w, b), dim=1, keepdim=True)
    y = torch.nn.functional.leaky_relu(y, negative_slope=0.01)
    y = torch.nn.functional.leaky_relu(y, negative_slope=0.01)
    return torch.nn.functional.gelu(torch.nn.functional.gelu(y))


chain(
    "64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU",
    ["y = logsumexp(linear(x), dim=1, keepdim=True)   # (B, 1)",
     "y = leaky_relu(leaky_relu(y, 0.01), 0.01); y = gelu(gelu(y))"],
    lambda s: linear_args(s, x_range=3.0),
    _p64, lambda torch, x, w, b, s: _torch64(torch, x, w, b),
    lambda np, x, w, b, s: np_gelu(np, np_gelu(np, np_logsumexp(np, np_linear(np, x, w, b), 1,
                                                                 keepdims=True))),
    atol=1e-5, rtol=1e-5,
    why=["The logsumexp of OUT values is at least their max, so it is positive here",
         "(as in KernelBench) and the LeakyReLUs are the identity; it is about",
         "log(OUT) + 0.5 and varies between rows by about 1e-2 (r = 3): rtol = 1e-5",
         "rejects a constant and covers the fp32 error of a reordered logsumexp."])


def _p68(f, s, x, w, b, c):
    y = broadcast_op(f, linear(f, x, w, b), c, "arith.minimumf")
    return broadcast_op(f, y, c, "arith.subf")


chain(
    "68_Matmul_Min_Subtract",
    ["y = torch.min(linear(x), constant)   # constant = nn.Parameter(torch.tensor(2.0))",
     "y = y - constant"],
    lambda s: linear_args(s, x_range=6.0) + [Arg(
        "constant", [1], uniform(1.5, 2.5),
        "constant ~ U(1.5, 2.5) around its initial 2.0 (a 0-d parameter, here tensor<1>).")],
    _p68,
    lambda torch, x, w, b, c, s: (lambda y: torch.min(y, c.reshape(())) - c.reshape(()))(
        torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, c, s: np.minimum(np_linear(np, x, w, b), c[0]) - c[0],
    atol=2e-4, rtol=1e-4,
    why=["With r = 6 the GEMM outputs (std 2) exceed the constant in about 16% of",
         "the elements, so the min acts (with U(-1, 1) it would never).",
         "atol = 2e-4, rtol = 1e-4: outputs of order 1-5."],
    full={"B": 128, "IN": 16384, "OUT": 16384})

chain(
    "70_Gemm_Sigmoid_Scaling_ResidualAdd",
    ["y = linear(x); original = y", "y = sigmoid(y) * 2.0 + original"],
    lambda s: linear_args(s),
    lambda f, s, x, w, b: (lambda y: binary(f, scalar(f, unary(f, y, SIGMOID), "arith.mulf", 2.0),
                                            y, "arith.addf"))(linear(f, x, w, b)),
    lambda torch, x, w, b, s: (lambda y: torch.sigmoid(y) * 2.0 + y)(
        torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, s: (lambda y: np_sigmoid(np, y) * 2.0 + y)(np_linear(np, x, w, b)),
    atol=1e-4, rtol=1e-4)


def _p75(f, s, x, w, b, g, be, bias):
    y = group_norm(f, linear(f, x, w, b), s["G"], g, be)
    m = reduce_dim(f, y, 1, "min", keepdim=True)  # (B, 1)
    # (B, 1) + (1, OUT, 1, 1) broadcasts to (1, OUT, B, 1).
    out = f.empty([1, s["OUT"], s["B"], 1])
    return f.generic([m, bias], [out],
                     [amap(4, ["k", "l"]), amap(4, ["0", "j", "0", "0"]), identity_map(4)],
                     ["parallel"] * 4, lambda blk, mv, bv, _o: blk.bin("arith.addf", mv, bv))


chain(
    "75_Gemm_GroupNorm_Min_BiasAdd",
    ["y = GroupNorm(G, OUT, eps=1e-5)(linear(x))",
     "y = torch.min(y, dim=1, keepdim=True)[0]      # (B, 1)",
     "y = y + bias   # bias = nn.Parameter(torch.randn(1, OUT, 1, 1)): (1, OUT, B, 1)"],
    lambda s: linear_args(s) + norm_affine_args(s, what="GroupNorm")
    + [randn_arg("bias", [1, s["OUT"], 1, 1])],
    _p75,
    lambda torch, x, w, b, g, be, bias, s: torch.min(torch.nn.functional.group_norm(
        torch.nn.functional.linear(x, w, b), s["G"], g, be, eps=1e-5), dim=1,
        keepdim=True)[0] + bias,
    lambda np, x, w, b, g, be, bias, s: np.min(np_group_norm(
        np, np_linear(np, x, w, b), s["G"], g, be), axis=1, keepdims=True) + bias,
    atol=1e-4, rtol=1e-4,
    why=["The output broadcasts the (B, 1) minima against the (1, OUT, 1, 1) bias, as",
         "PyTorch does: out[0, c, i, 0] = min_i + bias[c]."],
    full=dict(GEMM_1024, G=512), small=dict(SMALL, G=48))

chain(
    "76_Gemm_Add_ReLU",
    ["y = relu(x @ W.T + bias)   # nn.Linear(bias=False); bias = nn.Parameter(torch.randn(OUT))"],
    lambda s: linear_args(s, bias=False) + [randn_arg("bias", [s["OUT"]])],
    lambda f, s, x, w, bias: unary(f, broadcast_op(f, linear(f, x, w), bias, "arith.addf"), RELU),
    lambda torch, x, w, bias, s: torch.relu(torch.nn.functional.linear(x, w) + bias),
    lambda np, x, w, bias, s: np.maximum(np_linear(np, x, w) + bias, 0.0),
    atol=1e-4, rtol=1e-4)


# 80_Gemm_Max_Subtract_GELU is left out: it subtracts a mean over a
# dimension of size 1, so its output is zero for every input (KernelBench's
# too), and a kernel writing zeros is correct: the problem fails the
# degenerate-problem check (docs/benchmarks.md).


def _p81(f, s, x, w, b):
    y = linear(f, x, w, b)
    y = binary(f, y, unary(f, y, SIGMOID), "arith.mulf")
    y = unary(f, scalar(f, y, "arith.divf", 2.0), hardtanh(-1.0, 1.0))
    return unary(f, unary(f, y, TANH), hardtanh(-1.0, 1.0))


chain(
    "81_Gemm_Swish_Divide_Clamp_Tanh_Clamp",
    ["y = linear(x); y = y * sigmoid(y); y = y / 2.0",
     "y = clamp(y, -1, 1); y = tanh(y); y = clamp(y, -1, 1)"],
    lambda s: linear_args(s, x_range=6.0),
    _p81,
    lambda torch, x, w, b, s: (lambda y: torch.clamp(torch.tanh(torch.clamp(
        y * torch.sigmoid(y) / 2.0, -1.0, 1.0)), -1.0, 1.0))(torch.nn.functional.linear(x, w, b)),
    lambda np, x, w, b, s: np.tanh(np.clip(_np_swish(np, np_linear(np, x, w, b)) / 2.0, -1.0, 1.0)),
    atol=1e-4, rtol=1e-4,
    why=["With r = 6 (GEMM outputs of std 2) swish(y) / 2 exceeds 1 in about 15% of",
         "the elements, so the first clamp acts."])


def _p84(f, s, x, w, b, g, be, scale):
    y = batch_norm(f, linear(f, x, w, b), g, be)
    y = broadcast_op(f, y, scale, "arith.mulf")
    return softmax(f, y, 1)


chain(
    "84_Gemm_BatchNorm_Scaling_Softmax",
    ["y = BatchNorm1d(OUT, eps=1e-5)(linear(x))   # training mode: batch statistics",
     "y = scale * y                               # scale = nn.Parameter(torch.ones(1))",
     "y = softmax(y, dim=1)"],
    lambda s: linear_args(s) + norm_affine_args(s)
    + [Arg("scale", [1], normal(1.0, 0.1), "scale ~ N(1, 0.1) around its initial 1.")],
    _p84,
    lambda torch, x, w, b, g, be, scale, s: torch.softmax(scale * torch.nn.functional.batch_norm(
        torch.nn.functional.linear(x, w, b), None, None, g, be, training=True, eps=1e-5), dim=1),
    lambda np, x, w, b, g, be, scale, s: np_softmax(np, scale[0] * np_batch_norm(
        np, np_linear(np, x, w, b), g, be), 1),
    atol=1e-9, rtol=1e-4,
    why=["Softmax outputs are about 1/OUT (1.2e-4 for OUT = 8192): the tolerance is",
         "relative, with an atol far below the smallest outputs (about 1e-6)."])

chain(
    "86_Matmul_Divide_GELU",
    ["y = gelu(linear(x) / 10.0)"],
    lambda s: linear_args(s, x_range=20.0),
    lambda f, s, x, w, b: unary(f, scalar(f, linear(f, x, w, b), "arith.divf", 10.0), GELU),
    lambda torch, x, w, b, s: torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b) / 10.0),
    lambda np, x, w, b, s: np_gelu(np, np_linear(np, x, w, b) / 10.0),
    atol=1e-4, rtol=1e-4,
    why=["With r = 20 the GEMM outputs have std 6.7, so y / 10 (std 0.67) reaches",
         "GELU's curved part; with U(-1, 1) GELU would be nearly linear."])


def _p88(f, s, x, w, b, g, be, mw):
    y = group_norm(f, linear(f, x, w, b), s["G"], g, be)
    y = binary(f, y, unary(f, y, SIGMOID), "arith.mulf")
    y = broadcast_op(f, y, mw, "arith.mulf")
    return binary(f, y, unary(f, y, SIGMOID), "arith.mulf")


chain(
    "88_Gemm_GroupNorm_Swish_Multiply_Swish",
    ["y = GroupNorm(G, OUT, eps=1e-5)(linear(x)); y = y * sigmoid(y)",
     "y = y * multiply_weight   # nn.Parameter(torch.randn(OUT))",
     "y = y * sigmoid(y)"],
    lambda s: linear_args(s) + norm_affine_args(s, what="GroupNorm")
    + [randn_arg("multiply_weight", [s["OUT"]])],
    _p88,
    lambda torch, x, w, b, g, be, mw, s: (lambda y: (lambda z: z * torch.sigmoid(z))(
        y * torch.sigmoid(y) * mw))(torch.nn.functional.group_norm(
            torch.nn.functional.linear(x, w, b), s["G"], g, be, eps=1e-5)),
    lambda np, x, w, b, g, be, mw, s: _np_swish(np, _np_swish(np, np_group_norm(
        np, np_linear(np, x, w, b), s["G"], g, be)) * mw),
    atol=1e-4, rtol=1e-4,
    full=dict(GEMM_1024, G=256), small=dict(SMALL, G=24))


def _p94(f, s, x, w, b, bias, g, be):
    y = broadcast_op(f, linear(f, x, w, b), bias, "arith.addf")
    y = unary(f, unary(f, y, hardtanh(-1.0, 1.0)), MISH)
    return group_norm(f, y, s["G"], g, be)


chain(
    "94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm",
    ["y = linear(x) + bias    # bias = nn.Parameter(torch.randn(OUT))",
     "y = Hardtanh()(y); y = Mish()(y); y = GroupNorm(G, OUT, eps=1e-5)(y)"],
    lambda s: linear_args(s) + [randn_arg("bias", [s["OUT"]])]
    + norm_affine_args(s, what="GroupNorm"),
    _p94,
    lambda torch, x, w, b, bias, g, be, s: torch.nn.functional.group_norm(
        torch.nn.functional.mish(torch.nn.functional.hardtanh(
            torch.nn.functional.linear(x, w, b) + bias)), s["G"], g, be, eps=1e-5),
    lambda np, x, w, b, bias, g, be, s: np_group_norm(np, np_mish(np, np.clip(
        np_linear(np, x, w, b) + bias, -1.0, 1.0)), s["G"], g, be),
    atol=1e-4, rtol=1e-4,
    why=["The N(0, 1) bias makes the Hardtanh clip about a third of the values."],
    full=dict(GEMM_1024, G=256), small=dict(SMALL, G=24))


def _p95(f, s, x, w, b, add):
    y = broadcast_op(f, linear(f, x, w, b), add, "arith.addf")
    y = binary(f, unary(f, y, SIGMOID), y, "arith.mulf")
    y = unary(f, unary(f, y, TANH), GELU)
    return unary(f, y, hardtanh(-1.0, 1.0))


chain(
    "95_Matmul_Add_Swish_Tanh_GELU_Hardtanh",
    ["y = linear(x) + add_value    # add_value = nn.Parameter(torch.randn(OUT))",
     "y = sigmoid(y) * y; y = tanh(y); y = gelu(y); y = hardtanh(y, -1, 1)"],
    lambda s: linear_args(s) + [randn_arg("add_value", [s["OUT"]])],
    _p95,
    lambda torch, x, w, b, add, s: (lambda y: torch.nn.functional.hardtanh(
        torch.nn.functional.gelu(torch.tanh(torch.sigmoid(y) * y)), -1.0, 1.0))(
        torch.nn.functional.linear(x, w, b) + add),
    lambda np, x, w, b, add, s: np.clip(np_gelu(np, np.tanh(_np_swish(
        np, np_linear(np, x, w, b) + add))), -1.0, 1.0),
    atol=1e-4, rtol=1e-4,
    why=["gelu(tanh(.)) lies in (-0.17, 0.85): the final Hardtanh never clips, in",
         "KernelBench as here."])


def _p97(f, s, x, w, b, g, be, bias):
    y = batch_norm(f, linear(f, x, w, b), g, be)
    y = broadcast_op(f, y, bias, "arith.addf")
    y = scalar(f, y, "arith.divf", 1.0)
    return binary(f, y, unary(f, y, SIGMOID), "arith.mulf")


chain(
    "97_Matmul_BatchNorm_BiasAdd_Divide_Swish",
    ["y = BatchNorm1d(OUT, eps=1e-5)(linear(x))   # training mode: batch statistics",
     "y = y + bias        # bias = nn.Parameter(torch.randn(1))",
     "y = y / 1.0; y = y * sigmoid(y)"],
    lambda s: linear_args(s) + norm_affine_args(s) + [randn_arg("bias", [1])],
    _p97,
    lambda torch, x, w, b, g, be, bias, s: (lambda y: y * torch.sigmoid(y))(
        (torch.nn.functional.batch_norm(torch.nn.functional.linear(x, w, b), None, None, g, be,
                                        training=True, eps=1e-5) + bias) / 1.0),
    lambda np, x, w, b, g, be, bias, s: _np_swish(
        np, np_batch_norm(np, np_linear(np, x, w, b), g, be) + bias[0]),
    atol=1e-4, rtol=1e-4)


def _p98(f, s, x, w, b):
    y = linear(f, x, w, b)
    y = squeeze(f, nn.avg_pool1d(f, unsqueeze(f, y, 1), 16), 1)  # (B, OUT / 16)
    y = scalar(f, unary(f, y, GELU), "arith.mulf", 2.0)
    return reduce_dim(f, y, 1, "max")


chain(
    "98_Matmul_AvgPool_GELU_Scale_Max",
    ["y = AvgPool1d(16)(linear(x).unsqueeze(1)).squeeze(1)   # (B, OUT / 16)",
     "y = gelu(y) * 2.0; y = torch.max(y, dim=1).values      # (B,)"],
    lambda s: linear_args(s, x_range=3.0),
    _p98,
    lambda torch, x, w, b, s: torch.max(torch.nn.functional.gelu(
        torch.nn.functional.avg_pool1d(torch.nn.functional.linear(x, w, b).unsqueeze(1), 16)
        .squeeze(1)) * 2.0, dim=1).values,
    lambda np, x, w, b, s: np.max(np_gelu(np, nn.np_avg_pool(
        np, np_linear(np, x, w, b)[:, None, :], 16)[:, 0]) * 2.0, axis=1),
    atol=1e-5, rtol=1e-4,
    why=["With r = 3 the window means have std 0.25 and the row maxima (about 1.7)",
         "vary between rows by about 0.1."])

chain(
    "99_Matmul_GELU_Softmax",
    ["y = softmax(gelu(linear(x)), dim=1)"],
    lambda s: linear_args(s, x_range=3.0),
    lambda f, s, x, w, b: softmax(f, unary(f, linear(f, x, w, b), GELU), 1),
    lambda torch, x, w, b, s: torch.softmax(torch.nn.functional.gelu(
        torch.nn.functional.linear(x, w, b)), dim=1),
    lambda np, x, w, b, s: np_softmax(np, np_gelu(np, np_linear(np, x, w, b)), 1),
    atol=1e-9, rtol=1e-4,
    why=["r = 3 puts the GEMM outputs (std 1) on GELU's curved part. Softmax outputs",
         "are about 1/OUT: the tolerance is relative."])
