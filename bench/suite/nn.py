"""Neural-network building blocks shared by the level 1 and level 2 problems:
convolutions, transposed convolutions and pooling in NC(D)HW layout, each in
three independent forms:

  MLIR builders  conv(f, x, w, ...), conv_transpose(f, ...), max_pool(f, ...),
                 avg_pool(f, ...), global_avg_pool(f, ...), pad(f, ...):
                 take a mlir.Func and SSA values, emit linalg ops (named ops
                 where linalg has one, linalg.generic otherwise) and return
                 the result's SSA value;
  torch helpers  torch_conv(torch, ...), torch_conv_transpose(torch, ...),
                 torch_max_pool(torch, ...), torch_avg_pool(torch, ...):
                 what nn.ConvNd / nn.ConvTransposeNd / nn.MaxPoolNd /
                 nn.AvgPoolNd compute, dispatched on the input's rank;
  NumPy helpers  np_conv(np, ...), np_conv_transpose(np, ...),
                 np_max_pool(np, ...), np_avg_pool(np, ...),
                 np_global_avg_pool(np, ...): float64 re-implementations
                 written differently from the MLIR (strided slices per kernel
                 offset; transposed convolution as a scatter), so that the
                 CPU check compares two independent derivations.

Parameters follow PyTorch: `stride`, `padding`, `dilation`, `output_padding`
are an int (same for every spatial dim) or a sequence with one entry per
spatial dim; weights are laid out as PyTorch stores them: (F, C/groups, K...)
for convolutions, (C, F/groups, K...) for transposed convolutions. kf cannot
lower tensor.pad, so padding (and the zero insertion of transposed
convolutions) is a gather linalg.generic: see pad().
"""

import itertools
from typing import List, Optional, Sequence, Union

from .mlir import Func, amap, dims, identity_map, tensor_type

IntOrSeq = Union[int, Sequence[int]]


def spatial(value: Optional[IntOrSeq], n: int, default: int = 0) -> List[int]:
    """A PyTorch int-or-tuple parameter as a list of n ints."""
    if value is None:
        return [default] * n
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError("expected %d spatial values, got %r" % (n, value))
    return value


def conv_out_size(size: int, kernel: int, stride: int = 1, padding: int = 0,
                  dilation: int = 1) -> int:
    """Output length of a convolution or pooling window (floor mode)."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_transpose_out_size(size: int, kernel: int, stride: int = 1,
                            padding: int = 0, output_padding: int = 0,
                            dilation: int = 1) -> int:
    """Output length of a transposed convolution."""
    return ((size - 1) * stride - 2 * padding + dilation * (kernel - 1)
            + output_padding + 1)


def _dense(values: Sequence[int]) -> str:
    return "dense<[%s]> : tensor<%dxi64>" % (", ".join(str(v) for v in values),
                                             len(values))


def _window_attrs(stride: Sequence[int], dilation: Sequence[int]) -> str:
    return "{dilations = %s, strides = %s}" % (_dense(dilation), _dense(stride))


# MLIR builders ---------------------------------------------------------------

def pad(f: Func, x: str, lo: IntOrSeq, hi: Optional[IntOrSeq] = None,
        value: float = 0.0, stride: Optional[IntOrSeq] = None) -> str:
    """Gathers x into a padded tensor (kf cannot lower tensor.pad).

    The last k dims of x (k = len(lo), or all but N and C when lo is an int)
    are padded: out[..., j] = x[..., (j - lo) / stride] when that is an
    integer index inside x, `value` elsewhere. stride > 1 inserts stride - 1
    zeros between input elements (the input dilation of a transposed
    convolution); a negative lo or hi crops instead. Out length per dim:
    (size - 1) * stride + 1 + lo + hi. Returns x itself when there is
    nothing to do. Use value=-inf in front of max pooling.
    """
    shape = f.shape(x)
    n = len(shape)
    k = len(lo) if not isinstance(lo, int) else n - 2
    lo = spatial(lo, k)
    hi = spatial(hi if hi is not None else lo, k)
    stride = spatial(stride, k, 1)
    first = n - k
    if not any(lo) and not any(hi) and all(s == 1 for s in stride):
        return x
    elem = f.elem(x)
    out_shape = shape[:first] + [(shape[first + i] - 1) * stride[i] + 1 + lo[i] + hi[i]
                                 for i in range(k)]
    out = f.empty(out_shape, elem)

    def body(b, _out):
        indices = [b.index(d) for d in range(n)]
        inside = []
        for i in range(k):
            size = shape[first + i]
            j = indices[first + i]
            if lo[i]:
                j = b.bin("arith.subi", j, b.const(lo[i], "index"))
            if stride[i] > 1:
                step = b.const(stride[i], "index")
                rem = b.bin("arith.remsi", j, step)
                inside.append(b.cmpi("eq", rem, b.const(0, "index")))
                j = b.bin("arith.divsi", j, step)
            # Bounds are only checked (and the index clamped, so that the
            # extract stays in bounds even where its value is discarded) on
            # the sides that can go out of range.
            low_side = lo[i] > 0 or stride[i] > 1
            high_side = hi[i] > 0 or stride[i] > 1
            zero, last = b.const(0, "index"), b.const(size - 1, "index")
            if low_side:
                inside.append(b.cmpi("sge", j, zero))
            if high_side:
                inside.append(b.cmpi("sle", j, last))
            if low_side:
                j = b.bin("arith.maxsi", j, zero)
            if high_side:
                j = b.bin("arith.minsi", j, last)
            indices[first + i] = j
        v = b.extract(x, indices)
        if not inside:
            return v
        cond = inside[0]
        for c in inside[1:]:
            cond = b.bin("arith.andi", cond, c)
        return b.select(cond, v, b.const(value, elem))

    return f.generic([], [out], [identity_map(n)], ["parallel"] * n, body)


def channel_broadcast(f: Func, v: str, shape: Sequence[int]) -> str:
    """A tensor of `shape` (N, C, ...) holding v[c] at every (n, c, ...)."""
    n = len(shape)
    out = f.empty(shape, f.elem(v))
    return f.generic([v], [out], [amap(n, ["j"]), identity_map(n)],
                     ["parallel"] * n, lambda b, a, _o: a)


def add_channel_bias(f: Func, x: str, bias: str) -> str:
    """x + bias[c] for x of shape (N, C, ...) and bias of shape (C,)."""
    return f.broadcast_apply(x, bias, [1], lambda b, v, r: b.bin("arith.addf", v, r))


def _accumulator(f: Func, shape: Sequence[int], bias: Optional[str], elem: str) -> str:
    """The output a convolution accumulates into: zeros, or the bias
    broadcast over (N, ., spatial) so the bias add costs no extra pass."""
    if bias is None:
        return f.fill(0.0, shape, elem)
    return channel_broadcast(f, bias, shape)


_CONV_OPS = {1: "linalg.conv_1d_ncw_fcw", 2: "linalg.conv_2d_nchw_fchw",
             3: "linalg.conv_3d_ncdhw_fcdhw"}
_DEPTHWISE_OPS = {1: "linalg.depthwise_conv_1d_ncw_cw",
                  2: "linalg.depthwise_conv_2d_nchw_chw",
                  3: "linalg.depthwise_conv_3d_ncdhw_cdhw"}


def conv(f: Func, x: str, w: str, bias: Optional[str] = None,
         stride: IntOrSeq = 1, padding: IntOrSeq = 0, dilation: IntOrSeq = 1,
         groups: int = 1) -> str:
    """nn.Conv1d/2d/3d (cross-correlation): x (N, C, S...), w (F, C/groups,
    K...), optional bias (F,) -> (N, F, S_out...).

    Zero padding is a gather generic (pad()); then groups == 1 uses
    linalg.conv_{1d_ncw_fcw, 2d_nchw_fchw, 3d_ncdhw_fcdhw}; depthwise
    (groups == C == F) collapses w to (C, K...) and uses
    linalg.depthwise_conv_*; other groups use a linalg.generic whose input
    map picks channel (f floordiv (F/groups)) * (C/groups) + c.
    """
    xshape, wshape = f.shape(x), f.shape(w)
    n = len(xshape) - 2
    stride, padding, dilation = (spatial(stride, n, 1), spatial(padding, n),
                                 spatial(dilation, n, 1))
    batch, channels = xshape[:2]
    filters, group_channels = wshape[:2]
    kernel = wshape[2:]
    if channels != group_channels * groups or filters % groups:
        raise ValueError("conv: %d input channels, weight %r, groups %d"
                         % (channels, wshape, groups))
    xp = pad(f, x, padding, padding)
    sizes = f.shape(xp)[2:]
    out_sizes = [conv_out_size(sizes[i], kernel[i], stride[i], 0, dilation[i])
                 for i in range(n)]
    acc = _accumulator(f, [batch, filters] + out_sizes, bias, f.elem(x))
    attrs = _window_attrs(stride, dilation)
    if groups == 1:
        return f.named(_CONV_OPS[n], [xp, w], acc, attrs)
    if groups == channels == filters:
        collapsed = f.raw("{r} = tensor.collapse_shape %s [[0, 1], %s] : %s into %s" % (
            w, ", ".join("[%d]" % (d + 2) for d in range(n)), f.types[w],
            tensor_type([filters] + kernel, f.elem(w))),
            tensor_type([filters] + kernel, f.elem(w)))
        return f.named(_DEPTHWISE_OPS[n], [xp, collapsed], acc, attrs)
    # Grouped: loops (b, o, out spatial..., c, k...), c in [0, C/groups).
    names = dims(2 + 2 * n + 1)
    o_, out_, c_, k_ = names[1], names[2:2 + n], names[2 + n], names[3 + n:]
    in_channel = "(%s floordiv %d) * %d + %s" % (o_, filters // groups,
                                                group_channels, c_)
    x_map = amap(len(names), [names[0], in_channel] + [
        "%s * %d + %s * %d" % (out_[i], stride[i], k_[i], dilation[i]) for i in range(n)])
    w_map = amap(len(names), [o_, c_] + k_)
    out_map = amap(len(names), names[:2 + n])
    return f.generic([xp, w], [acc], [x_map, w_map, out_map],
                     ["parallel"] * (2 + n) + ["reduction"] * (n + 1),
                     lambda b, xv, wv, a: b.fma(xv, wv, a))


def conv1d(f: Func, x: str, w: str, bias: Optional[str] = None, **params) -> str:
    """conv() on (N, C, L); see conv for the parameters."""
    assert len(f.shape(x)) == 3
    return conv(f, x, w, bias, **params)


def conv2d(f: Func, x: str, w: str, bias: Optional[str] = None, **params) -> str:
    """conv() on (N, C, H, W); see conv for the parameters."""
    assert len(f.shape(x)) == 4
    return conv(f, x, w, bias, **params)


def conv3d(f: Func, x: str, w: str, bias: Optional[str] = None, **params) -> str:
    """conv() on (N, C, D, H, W); see conv for the parameters."""
    assert len(f.shape(x)) == 5
    return conv(f, x, w, bias, **params)


def conv_transpose(f: Func, x: str, w: str, bias: Optional[str] = None,
                   stride: IntOrSeq = 1, padding: IntOrSeq = 0,
                   output_padding: IntOrSeq = 0, dilation: IntOrSeq = 1,
                   groups: int = 1) -> str:
    """nn.ConvTranspose1d/2d/3d: x (N, C, S...), w (C, F/groups, K...),
    optional bias (F,) -> (N, F, (S-1)*stride - 2*padding
    + dilation*(K-1) + output_padding + 1).

    Written as the equivalent direct convolution: a gather generic (pad())
    inserts stride - 1 zeros between input elements and pads each side by
    dilation*(K-1) - padding (plus output_padding at the end; negative
    amounts crop); a generic transposes and flips the weight to
    w'[o, c, k] = w[g*C/groups + c, o mod F/groups, K-1-k]; then conv() with
    stride 1, the same dilation and groups.
    """
    xshape, wshape = f.shape(x), f.shape(w)
    n = len(xshape) - 2
    stride, padding, dilation = (spatial(stride, n, 1), spatial(padding, n),
                                 spatial(dilation, n, 1))
    output_padding = spatial(output_padding, n)
    channels = xshape[1]
    group_filters = wshape[1]
    kernel = wshape[2:]
    if wshape[0] != channels or channels % groups:
        raise ValueError("conv_transpose: %d input channels, weight %r, groups %d"
                         % (channels, wshape, groups))
    group_channels = channels // groups
    filters = group_filters * groups
    edge = [dilation[i] * (kernel[i] - 1) - padding[i] for i in range(n)]
    xz = pad(f, x, edge, [edge[i] + output_padding[i] for i in range(n)],
             stride=stride)
    # w'[o, c, k...] = w[(o floordiv Fg) * Cg + c, o mod Fg, K-1-k...]
    names = dims(2 + n)
    o_, c_ = names[0], names[1]
    source = ["(%s floordiv %d) * %d + %s" % (o_, group_filters, group_channels, c_)
              if groups > 1 else c_,
              "%s mod %d" % (o_, group_filters) if groups > 1 else o_]
    source += ["%d - %s" % (kernel[i] - 1, names[2 + i]) for i in range(n)]
    flipped = f.empty([filters, group_channels] + kernel, f.elem(w))
    flipped = f.generic([w], [flipped], [amap(2 + n, source), identity_map(2 + n)],
                        ["parallel"] * (2 + n), lambda b, v, _o: v)
    return conv(f, xz, flipped, bias, stride=1, padding=0, dilation=dilation,
                groups=groups)


def conv_transpose1d(f: Func, x: str, w: str, bias: Optional[str] = None,
                     **params) -> str:
    """conv_transpose() on (N, C, L); see conv_transpose for the parameters."""
    assert len(f.shape(x)) == 3
    return conv_transpose(f, x, w, bias, **params)


def conv_transpose2d(f: Func, x: str, w: str, bias: Optional[str] = None,
                     **params) -> str:
    """conv_transpose() on (N, C, H, W); see conv_transpose for the parameters."""
    assert len(f.shape(x)) == 4
    return conv_transpose(f, x, w, bias, **params)


def conv_transpose3d(f: Func, x: str, w: str, bias: Optional[str] = None,
                     **params) -> str:
    """conv_transpose() on (N, C, D, H, W); see conv_transpose for the parameters."""
    assert len(f.shape(x)) == 5
    return conv_transpose(f, x, w, bias, **params)


_POOL_OPS = {("max", 1): "linalg.pooling_ncw_max", ("max", 2): "linalg.pooling_nchw_max",
             ("sum", 1): "linalg.pooling_ncw_sum", ("sum", 2): "linalg.pooling_nchw_sum"}


def _pool(f: Func, x: str, kind: str, kernel: Sequence[int], stride: Sequence[int],
          padding: Sequence[int], dilation: Sequence[int]) -> str:
    """Max or sum over windows of the spatial dims of x (N, C, S...): a pad
    gather, then linalg.pooling_nc(h)w_{max,sum} for 1D/2D, and the same
    computation as a linalg.generic for 3D (linalg has no NCDHW pooling)."""
    n = len(f.shape(x)) - 2
    elem = f.elem(x)
    init = float("-inf") if kind == "max" else 0.0
    xp = pad(f, x, padding, padding, value=init)
    sizes = f.shape(xp)[2:]
    out_sizes = [conv_out_size(sizes[i], kernel[i], stride[i], 0, dilation[i])
                 for i in range(n)]
    acc = f.fill(init, f.shape(x)[:2] + out_sizes, elem)
    window = f.empty(list(kernel), elem)
    if (kind, n) in _POOL_OPS:
        return f.named(_POOL_OPS[kind, n], [xp, window], acc,
                       _window_attrs(stride, dilation))
    names = dims(2 + 2 * n)
    out_, k_ = names[2:2 + n], names[2 + n:]
    x_map = amap(len(names), names[:2] + [
        "%s * %d + %s * %d" % (out_[i], stride[i], k_[i], dilation[i]) for i in range(n)])
    op = "arith.maximumf" if kind == "max" else "arith.addf"
    return f.generic([xp, window], [acc],
                     [x_map, amap(len(names), k_), amap(len(names), names[:2 + n])],
                     ["parallel"] * (2 + n) + ["reduction"] * n,
                     lambda b, v, _w, a: b.bin(op, v, a))


def max_pool(f: Func, x: str, kernel: IntOrSeq, stride: Optional[IntOrSeq] = None,
             padding: IntOrSeq = 0, dilation: IntOrSeq = 1) -> str:
    """nn.MaxPool1d/2d/3d (ceil_mode=False) on x (N, C, S...): padding is
    -inf, stride defaults to the kernel size as in PyTorch."""
    n = len(f.shape(x)) - 2
    kernel = spatial(kernel, n)
    return _pool(f, x, "max", kernel, spatial(stride, n) if stride else kernel,
                 spatial(padding, n), spatial(dilation, n, 1))


def avg_pool(f: Func, x: str, kernel: IntOrSeq, stride: Optional[IntOrSeq] = None,
             padding: IntOrSeq = 0) -> str:
    """nn.AvgPool1d/2d/3d with PyTorch's defaults (count_include_pad=True,
    ceil_mode=False) on x (N, C, S...): zero padding counts, so every window
    divides by the kernel volume. stride defaults to the kernel size."""
    n = len(f.shape(x)) - 2
    kernel = spatial(kernel, n)
    total = _pool(f, x, "sum", kernel, spatial(stride, n) if stride else kernel,
                  spatial(padding, n), [1] * n)
    volume = 1
    for k in kernel:
        volume *= k
    return f.elementwise([total], lambda b, v: b.bin("arith.divf", v, b.const(float(volume))))


def max_pool1d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 3
    return max_pool(f, x, kernel, **params)


def max_pool2d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 4
    return max_pool(f, x, kernel, **params)


def max_pool3d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 5
    return max_pool(f, x, kernel, **params)


def avg_pool1d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 3
    return avg_pool(f, x, kernel, **params)


def avg_pool2d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 4
    return avg_pool(f, x, kernel, **params)


def avg_pool3d(f: Func, x: str, kernel: IntOrSeq, **params) -> str:
    assert len(f.shape(x)) == 5
    return avg_pool(f, x, kernel, **params)


def global_avg_pool(f: Func, x: str, keepdim: bool = True) -> str:
    """Mean over the spatial dims of x (N, C, S...): (N, C, 1...) when
    keepdim (nn.AdaptiveAvgPoolNd(1), torch.mean(x, dim=(2, ...),
    keepdim=True)), else (N, C)."""
    shape = f.shape(x)
    n = len(shape)
    count = 1
    for s in shape[2:]:
        count *= s
    total = f.reduce(x, list(range(2, n)), 0.0, lambda b, v, a: b.bin("arith.addf", v, a))
    mean = f.elementwise([total], lambda b, v: b.bin("arith.divf", v, b.const(float(count))))
    if not keepdim:
        return mean
    kept = tensor_type(shape[:2] + [1] * (n - 2), f.elem(x))
    return f.raw("{r} = tensor.expand_shape %s [[0], [%s]] output_shape [%s] : %s into %s"
                 % (mean, ", ".join(str(d) for d in range(1, n)),
                    ", ".join(str(d) for d in shape[:2] + [1] * (n - 2)),
                    f.types[mean], kept), kept)


# PyTorch helpers ---------------------------------------------------------------

def torch_conv(torch, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv{1,2,3}d chosen by x's rank."""
    fn = getattr(torch.nn.functional, "conv%dd" % (x.dim() - 2))
    return fn(x, w, bias, stride=stride, padding=padding, dilation=dilation,
              groups=groups)


def torch_conv_transpose(torch, x, w, bias=None, stride=1, padding=0,
                         output_padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv_transpose{1,2,3}d chosen by x's rank."""
    fn = getattr(torch.nn.functional, "conv_transpose%dd" % (x.dim() - 2))
    return fn(x, w, bias, stride=stride, padding=padding,
              output_padding=output_padding, groups=groups, dilation=dilation)


def torch_max_pool(torch, x, kernel, stride=None, padding=0, dilation=1):
    """torch.nn.functional.max_pool{1,2,3}d chosen by x's rank."""
    fn = getattr(torch.nn.functional, "max_pool%dd" % (x.dim() - 2))
    return fn(x, kernel, stride=stride, padding=padding, dilation=dilation)


def torch_avg_pool(torch, x, kernel, stride=None, padding=0):
    """torch.nn.functional.avg_pool{1,2,3}d (count_include_pad=True)."""
    fn = getattr(torch.nn.functional, "avg_pool%dd" % (x.dim() - 2))
    return fn(x, kernel, stride=stride, padding=padding)


# NumPy helpers (float64) -----------------------------------------------------

def _windows(xp, kernel, stride, dilation, out_sizes):
    """Yields (kernel offset, strided view of xp (N, C, S_out...)) for each
    offset of the window."""
    for offset in itertools.product(*[range(k) for k in kernel]):
        index = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + s * (m - 1) + 1, s)
            for o, d, s, m in zip(offset, dilation, stride, out_sizes))
        yield offset, xp[index]


def np_conv(np, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """nn.ConvNd in float64: a sum over kernel offsets of strided slices of
    the zero-padded input contracted with the weight's taps."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = x.ndim - 2
    stride, padding, dilation = (spatial(stride, n, 1), spatial(padding, n),
                                 spatial(dilation, n, 1))
    batch, channels = x.shape[:2]
    filters, kernel = w.shape[0], w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_sizes = [conv_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i],
                               dilation[i]) for i in range(n)]
    out = np.zeros([batch, groups, filters // groups] + out_sizes)
    wg = w.reshape((groups, filters // groups, channels // groups) + tuple(kernel))
    for offset, view in _windows(xp, kernel, stride, dilation, out_sizes):
        view = view.reshape((batch, groups, channels // groups) + view.shape[2:])
        tap = wg[(Ellipsis,) + offset]
        out += np.einsum("bgc...,gfc->bgf...", view, tap)
    out = out.reshape([batch, filters] + out_sizes)
    if bias is not None:
        out += np.asarray(bias, dtype=np.float64).reshape([filters] + [1] * n)
    return out


def np_conv_transpose(np, x, w, bias=None, stride=1, padding=0, output_padding=0,
                      dilation=1, groups=1):
    """nn.ConvTransposeNd in float64 as a scatter: every input element adds
    x * w[k] at output position i*stride + k*dilation - padding."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = x.ndim - 2
    stride, padding, dilation = (spatial(stride, n, 1), spatial(padding, n),
                                 spatial(dilation, n, 1))
    output_padding = spatial(output_padding, n)
    batch, channels = x.shape[:2]
    sizes = list(x.shape[2:])
    group_filters, kernel = w.shape[1], w.shape[2:]
    filters = group_filters * groups
    full = [(sizes[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
            + output_padding[i] for i in range(n)]
    out = np.zeros([batch, groups, group_filters] + full)
    xg = x.reshape((batch, groups, channels // groups) + tuple(sizes))
    wg = w.reshape((groups, channels // groups, group_filters) + tuple(kernel))
    for offset in itertools.product(*[range(k) for k in kernel]):
        index = (slice(None),) * 3 + tuple(
            slice(o * d, o * d + s * (m - 1) + 1, s)
            for o, d, s, m in zip(offset, dilation, stride, sizes))
        out[index] += np.einsum("bgc...,gcf->bgf...", xg, wg[(Ellipsis,) + offset])
    out = out.reshape([batch, filters] + full)
    out_sizes = [conv_transpose_out_size(sizes[i], kernel[i], stride[i], padding[i],
                                         output_padding[i], dilation[i])
                 for i in range(n)]
    out = out[(slice(None), slice(None)) + tuple(
        slice(p, p + m) for p, m in zip(padding, out_sizes))]
    if bias is not None:
        out = out + np.asarray(bias, dtype=np.float64).reshape([filters] + [1] * n)
    return out


def np_max_pool(np, x, kernel, stride=None, padding=0, dilation=1):
    """nn.MaxPoolNd in float64: the maximum of strided slices of the
    -inf-padded input."""
    x = np.asarray(x, dtype=np.float64)
    n = x.ndim - 2
    kernel = spatial(kernel, n)
    stride = spatial(stride, n) if stride else kernel
    padding, dilation = spatial(padding, n), spatial(dilation, n, 1)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding],
                constant_values=-np.inf)
    out_sizes = [conv_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i],
                               dilation[i]) for i in range(n)]
    out = np.full(list(x.shape[:2]) + out_sizes, -np.inf)
    for _, view in _windows(xp, kernel, stride, dilation, out_sizes):
        out = np.maximum(out, view)
    return out


def np_avg_pool(np, x, kernel, stride=None, padding=0):
    """nn.AvgPoolNd (count_include_pad=True) in float64."""
    x = np.asarray(x, dtype=np.float64)
    n = x.ndim - 2
    kernel = spatial(kernel, n)
    stride = spatial(stride, n) if stride else kernel
    padding = spatial(padding, n)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_sizes = [conv_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i])
                 for i in range(n)]
    out = np.zeros(list(x.shape[:2]) + out_sizes)
    for _, view in _windows(xp, kernel, stride, [1] * n, out_sizes):
        out += view
    return out / float(np.prod(kernel))


def np_global_avg_pool(np, x, keepdim=True):
    """Mean over the spatial dims in float64."""
    x = np.asarray(x, dtype=np.float64)
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=keepdim)
