"""KernelBench level 2, convolution chains: nn.Conv2d/Conv3d or
nn.ConvTranspose2d/3d followed by elementwise ops, normalizations, pooling
and reductions.

The convolutions and pooling come from nn.py; the chain's other ops, the
registration and the input conventions from level2_gemm (see its
docstring): x ~ U(-r, r) instead of torch.rand; the weight and bias like
PyTorch's initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
C * K^n for a convolution and F * K^n for a transposed one (PyTorch reads
fan_in from the weight's dim 1); torch.randn parameters N(0, 1);
normalization affine parameters N(1, 0.1) and N(0, 0.1). A 0-d parameter
(nn.Parameter(torch.tensor(v))) is an input of shape tensor<1>.

Skipped: 66 and 83 (Dropout in training mode: random outputs).
"""

import math

from . import nn
from .level2_gemm import (GELU, HARDSWISH, MISH, RELU, SIGMOID, SOFTPLUS, TANH, Arg,
                          batch_norm, binary, broadcast_op, chain, collapse, expand,
                          group_norm, hardtanh, leaky_relu, logsumexp, norm_affine_args,
                          normalize, np_batch_norm, np_gelu, np_group_norm, np_hardswish,
                          np_leaky_relu, np_logsumexp, np_mish, np_normalize, np_sigmoid,
                          np_softmax, np_softplus, randn_arg, reduce_dim, scalar, softmax,
                          squeeze, unary)
from .mlir import normal, uniform


def _spatial_names(s):
    return [n for n in ("D", "H", "W") if n in s]


def conv_args(s, x_range: float = 1.0, transposed: bool = False, stride=1,
              bias: bool = True, x_shape=None):
    """x (B, C, [D,] H, W) and the weight (F, C, K...) of an nn.ConvNd, or
    (C, F, K...) of an nn.ConvTransposeNd, and its bias (F)."""
    n = len(_spatial_names(s))
    taps = s["K"] ** n
    fan_in = (s["F"] if transposed else s["C"]) * taps
    # Each output sums C * K^n products (1/prod(stride) of them for a
    # strided transposed convolution), each of variance r^2/3 * 1/(3 fan_in).
    terms = s["C"] * taps / (math.prod(nn.spatial(stride, n, 1)) if transposed else 1)
    std = x_range / 3.0 * math.sqrt(terms / fan_in)
    bound = 1.0 / math.sqrt(fan_in)
    x_shape = x_shape or [s["B"], s["C"]] + [s[d] for d in _spatial_names(s)]
    w_shape = ([s["C"], s["F"]] if transposed else [s["F"], s["C"]]) + [s["K"]] * n
    args = [Arg("x", x_shape, uniform(-x_range, x_range),
                "x ~ U(-%g, %g) (KernelBench: torch.rand): the convolution's outputs have "
                "both signs, std about %.2g." % (x_range, x_range, std)),
            Arg("w", w_shape, uniform(-bound, bound),
                "W%s ~ U(-1/sqrt(%d), 1/sqrt(%d)) (fan_in = %s*K^%d), PyTorch's "
                "initialisation." % (" and b" if bias else "", fan_in, fan_in,
                                     "F" if transposed else "C", n))]
    if bias:
        args.append(Arg("b", [s["F"]], uniform(-bound, bound)))
    return args


def _conv_line(transposed, n, bias, params):
    text = "y = %s%dd(C, F, kernel_size=K" % ("ConvTranspose" if transposed else "Conv", n)
    for key in ("stride", "padding", "output_padding"):
        if params.get(key):
            text += ", %s=%s" % (key, params[key])
    return text + (", bias=False" if not bias else "") + ")(x)"


def conv_chain(name, forward, post, torch_post, np_post, full, small, x_range=1.0,
               extra=lambda s: [], atol=1e-4, rtol=1e-4, why=(), transposed=False,
               bias=True, pre=None, **params):
    """Registers y = ConvNd / ConvTransposeNd(C, F, K, **params)(x) (2D or
    3D from the sizes: D, H, W or H, W) followed by post(f, s, y, *extra
    values); the module's further parameters extra(s) come after the
    convolution's weight and bias. torch_post(torch, y, *extra, s) and
    np_post(np, y, *extra, s) compute the same from the convolution's
    output. pre = (text, mlir(f, x), torch(torch, x), numpy(np, x)) is an
    op applied to x before the convolution."""
    n = len(_spatial_names(full))
    conv_mlir = nn.conv_transpose if transposed else nn.conv
    conv_torch = nn.torch_conv_transpose if transposed else nn.torch_conv
    conv_np = nn.np_conv_transpose if transposed else nn.np_conv
    first = 3 if bias else 2  # index of the first extra parameter
    lines = ([pre[0]] if pre else []) + [_conv_line(transposed, n, bias, params)]

    def build(f, s, *args):
        x = pre[1](f, args[0]) if pre else args[0]
        y = conv_mlir(f, x, args[1], args[2] if bias else None, **params)
        return post(f, s, y, *args[first:])

    def torch_fn(torch, *args):
        ins, s = args[:-1], args[-1]
        x = pre[2](torch, ins[0]) if pre else ins[0]
        y = conv_torch(torch, x, ins[1], ins[2] if bias else None, **params)
        return torch_post(torch, y, *ins[first:], s)

    def numpy_fn(np, *args):
        ins, s = args[:-1], args[-1]
        x = pre[3](np, ins[0]) if pre else ins[0]
        y = conv_np(np, x, ins[1], ins[2] if bias else None, **params)
        return np_post(np, y, *ins[first:], s)

    chain(name, lines + list(forward),
          lambda s: conv_args(s, x_range, transposed, params.get("stride", 1), bias) + extra(s),
          build, torch_fn, numpy_fn, atol=atol, rtol=rtol, why=why, full=full, small=small)


def _sizes(B, C, F, spatial, K=3, **extra):
    """Sizes of a chain: batch, in/out channels, (D,) H, W, kernel."""
    names = ("D", "H", "W")[3 - len(spatial):]
    return dict(B=B, C=C, F=F, **dict(zip(names, spatial)), K=K, **extra)


# Small sizes: odd, non-square spatial dims; the channel counts allow groups.
SMALL2 = _sizes(2, 5, 16, (17, 15))
SMALL3 = _sizes(2, 3, 8, (5, 7, 6))
# Transposed 3D with a LayerNorm over the last dim: KernelBench's output width
# equals F (W' = 2 W there), so the small sizes keep that.
SMALL3_LN = _sizes(2, 3, 8, (3, 5, 4))


def _param(name, shape_of, dist, why):
    return lambda s: [Arg(name, shape_of(s), dist, why)]


def _channel_randn(name="bias"):
    """A per-channel parameter torch.randn(F, 1, 1[, 1])."""
    return lambda s: [randn_arg(name, [s["F"]] + [1] * len(_spatial_names(s)))]


def _scalar_param(name, lo, hi, initial):
    """A 0-d parameter nn.Parameter(torch.tensor(initial)), as tensor<1>."""
    return _param(name, lambda s: [1], uniform(lo, hi),
                  "%s ~ U(%g, %g) around its initial %g (a 0-d parameter, here tensor<1>)."
                  % (name, lo, hi, initial))


def _gn_args(s, prefix=""):
    return norm_affine_args(s, "F", "GroupNorm", prefix)


def _bn_args(s, prefix=""):
    return norm_affine_args(s, "F", "BatchNorm", prefix)


def _ln_args(s):
    return norm_affine_args(s, "F", "LayerNorm")


def _swish(f, y):
    """x * sigmoid(x) (two PyTorch ops)."""
    return binary(f, y, unary(f, y, SIGMOID), "arith.mulf")


def _np_swish(np, y):
    return y * np_sigmoid(np, y)


def _np_spatial(y):
    return tuple(range(2, y.ndim))


# Conv2d ------------------------------------------------------------------------

conv_chain(
    "1_Conv2D_ReLU_BiasAdd",
    ["y = relu(y) + bias        # bias = nn.Parameter(torch.randn(F, 1, 1))"],
    lambda f, s, y, bias: broadcast_op(f, unary(f, y, RELU), bias, "arith.addf"),
    lambda torch, y, bias, s: torch.relu(y) + bias,
    lambda np, y, bias, s: np.maximum(y, 0.0) + bias,
    _sizes(128, 64, 128, (128, 128)), SMALL2, extra=_channel_randn())

conv_chain(
    "4_Conv2d_Mish_Mish",
    ["y = mish(mish(y))"],
    lambda f, s, y: unary(f, unary(f, y, MISH), MISH),
    lambda torch, y, s: torch.nn.functional.mish(torch.nn.functional.mish(y)),
    lambda np, y, s: np_mish(np, np_mish(np, y)),
    _sizes(64, 64, 128, (256, 256)), SMALL2, x_range=3.0,
    why=["r = 3 puts the convolution's outputs (std 1) where Mish is far from linear."])

conv_chain(
    "17_Conv2d_InstanceNorm_Divide",
    ["y = InstanceNorm2d(F)(y) / 2.0   # eps = 1e-5, no affine: per (n, c) over H, W"],
    lambda f, s, y: scalar(f, normalize(f, y, [2, 3]), "arith.divf", 2.0),
    lambda torch, y, s: torch.nn.functional.instance_norm(y, eps=1e-5) / 2.0,
    lambda np, y, s: np_normalize(np, y, (2, 3)) / 2.0,
    _sizes(128, 64, 128, (128, 128)), SMALL2)


def _p21(f, s, y, bias, scale, g, be):
    y = broadcast_op(f, y, bias, "arith.addf")
    y = unary(f, broadcast_op(f, y, scale, "arith.mulf"), SIGMOID)
    return group_norm(f, y, s["G"], g, be)


conv_chain(
    "21_Conv2d_Add_Scale_Sigmoid_GroupNorm",
    ["y = (y + bias) * scale   # bias, scale = nn.Parameter(torch.randn(F, 1, 1))",
     "y = GroupNorm(G, F, eps=1e-5)(sigmoid(y))"],
    _p21,
    lambda torch, y, bias, scale, g, be, s: torch.nn.functional.group_norm(
        torch.sigmoid((y + bias) * scale), s["G"], g, be, eps=1e-5),
    lambda np, y, bias, scale, g, be, s: np_group_norm(
        np, np_sigmoid(np, (y + bias) * scale), s["G"], g, be),
    _sizes(128, 8, 32, (256, 256), G=8), dict(SMALL2, G=4),
    extra=lambda s: _channel_randn()(s) + _channel_randn("scale")(s) + _gn_args(s))

conv_chain(
    "25_Conv2d_Min_Tanh_Tanh",
    ["y = torch.min(y, dim=1, keepdim=True)[0]   # (B, 1, H', W')",
     "y = tanh(tanh(y))"],
    lambda f, s, y: unary(f, unary(f, reduce_dim(f, y, 1, "min", keepdim=True), TANH), TANH),
    lambda torch, y, s: torch.tanh(torch.tanh(torch.min(y, dim=1, keepdim=True)[0])),
    lambda np, y, s: np.tanh(np.tanh(np.min(y, axis=1, keepdims=True))),
    _sizes(128, 16, 64, (256, 256)), SMALL2)

conv_chain(
    "31_Conv2d_Min_Add_Multiply",
    ["y = torch.min(y, torch.tensor(0.5))",
     "y = (y + bias) * 2.0      # bias = nn.Parameter(torch.randn(F, 1, 1))"],
    lambda f, s, y, bias: scalar(f, broadcast_op(f, scalar(f, y, "arith.minimumf", 0.5), bias,
                                                 "arith.addf"), "arith.mulf", 2.0),
    lambda torch, y, bias, s: (torch.min(y, torch.tensor(0.5, device=y.device, dtype=y.dtype))
                               + bias) * 2.0,
    lambda np, y, bias, s: (np.minimum(y, 0.5) + bias) * 2.0,
    _sizes(128, 64, 128, (128, 128)), SMALL2, x_range=2.0, extra=_channel_randn(),
    why=["With r = 2 the convolution's outputs (std 0.67) exceed 0.5 about 23% of the",
         "time, so the min acts."])

conv_chain(
    "32_Conv2d_Scaling_Min",
    ["y = torch.min(y * 2.0, dim=1, keepdim=True)[0]   # (B, 1, H', W')"],
    lambda f, s, y: reduce_dim(f, scalar(f, y, "arith.mulf", 2.0), 1, "min", keepdim=True),
    lambda torch, y, s: torch.min(y * 2.0, dim=1, keepdim=True)[0],
    lambda np, y, s: np.min(y * 2.0, axis=1, keepdims=True),
    _sizes(64, 64, 128, (256, 256)), SMALL2)


def _p35(f, s, y):
    y = unary(f, scalar(f, y, "arith.subf", 0.5), HARDSWISH)
    return unary(f, nn.max_pool2d(f, y, 2), MISH)


conv_chain(
    "35_Conv2d_Subtract_HardSwish_MaxPool_Mish",
    ["y = hardswish(y - 0.5); y = MaxPool2d(2)(y); y = mish(y)"],
    _p35,
    lambda torch, y, s: torch.nn.functional.mish(torch.nn.functional.max_pool2d(
        torch.nn.functional.hardswish(y - 0.5), 2)),
    lambda np, y, s: np_mish(np, nn.np_max_pool(np, np_hardswish(np, y - 0.5), 2)),
    _sizes(128, 64, 128, (128, 128)), SMALL2, x_range=3.0,
    why=["r = 3 (outputs of std 1) reaches HardSwish's quadratic part around -3..3."])


def _p46(f, s, y):
    y = unary(f, scalar(f, y, "arith.subf", 0.5), TANH)
    return nn.avg_pool2d(f, scalar(f, y, "arith.subf", 0.2), 2)


conv_chain(
    "46_Conv2d_Subtract_Tanh_Subtract_AvgPool",
    ["y = tanh(y - 0.5) - 0.2; y = AvgPool2d(2)(y)"],
    _p46,
    lambda torch, y, s: torch.nn.functional.avg_pool2d(torch.tanh(y - 0.5) - 0.2, 2),
    lambda np, y, s: nn.np_avg_pool(np, np.tanh(y - 0.5) - 0.2, 2),
    _sizes(128, 64, 128, (128, 128)), SMALL2, x_range=3.0,
    why=["r = 3 (outputs of std 1) reaches tanh's saturation."])


def _p52(f, s, y, g, be):
    t = unary(f, unary(f, y, SOFTPLUS), TANH)
    return batch_norm(f, binary(f, t, y, "arith.mulf"), g, be)


conv_chain(
    "52_Conv2d_Activation_BatchNorm",
    ["y = torch.multiply(tanh(softplus(y)), y)",
     "y = BatchNorm2d(F, eps=1e-5)(y)   # training mode: batch statistics"],
    _p52,
    lambda torch, y, g, be, s: torch.nn.functional.batch_norm(
        torch.multiply(torch.tanh(torch.nn.functional.softplus(y)), y), None, None, g, be,
        training=True, eps=1e-5),
    lambda np, y, g, be, s: np_batch_norm(np, np.tanh(np_softplus(np, y)) * y, g, be),
    _sizes(64, 64, 128, (128, 128)), SMALL2, x_range=3.0, extra=_bn_args,
    why=["r = 3 puts the convolution's outputs (std 1) where the activation is far",
         "from linear."])


def _p54(f, s, y, m):
    y = unary(f, broadcast_op(f, y, m, "arith.mulf"), leaky_relu(0.01))
    return unary(f, y, GELU)


conv_chain(
    "54_Conv2d_Multiply_LeakyReLU_GELU",
    ["y = y * multiplier     # multiplier = nn.Parameter(torch.randn(F, 1, 1))",
     "y = gelu(LeakyReLU()(y))   # negative_slope = 0.01"],
    _p54,
    lambda torch, y, m, s: torch.nn.functional.gelu(torch.nn.functional.leaky_relu(y * m, 0.01)),
    lambda np, y, m, s: np_gelu(np, np_leaky_relu(np, y * m, 0.01)),
    _sizes(64, 64, 64, (256, 256)), SMALL2, x_range=3.0, extra=_channel_randn("multiplier"))


def _p57(f, s, y):
    y = unary(f, y, RELU)
    t = unary(f, scalar(f, scalar(f, y, "arith.addf", 3.0), "arith.divf", 6.0), hardtanh(0.0, 1.0))
    return binary(f, y, t, "arith.mulf")


conv_chain(
    "57_Conv2d_ReLU_HardSwish",
    ["y = relu(y); y = y * torch.clamp((y + 3) / 6, 0, 1)"],
    _p57,
    lambda torch, y, s: (lambda r: r * torch.clamp((r + 3) / 6, 0, 1))(torch.relu(y)),
    lambda np, y, s: (lambda r: r * np.clip((r + 3.0) / 6.0, 0.0, 1.0))(np.maximum(y, 0.0)),
    _sizes(128, 8, 64, (128, 128)), SMALL2, x_range=3.0)


def _p65(f, s, y):
    y = unary(f, nn.avg_pool2d(f, y, 4), SIGMOID)
    return reduce_dim(f, y, [1, 2, 3], "sum")


conv_chain(
    "65_Conv2d_AvgPool_Sigmoid_Sum",
    ["y = sigmoid(AvgPool2d(4)(y)); y = torch.sum(y, dim=[1, 2, 3])   # (B,)"],
    _p65,
    lambda torch, y, s: torch.sum(torch.sigmoid(torch.nn.functional.avg_pool2d(y, 4)),
                                  dim=[1, 2, 3]),
    lambda np, y, s: np.sum(np_sigmoid(np, nn.np_avg_pool(np, y, 4)), axis=(1, 2, 3)),
    _sizes(128, 8, 64, (384, 384)), SMALL2, x_range=10.0, atol=1e-3, rtol=1e-4,
    why=["Each output sums F * (H'/4) * (W'/4) sigmoids (590,000 at full size), about",
         "half of that count: with r = 10 the window means spread over sigmoid's",
         "whole range, so the sums differ between batch elements by far more than",
         "rtol = 1e-4, which covers a reordered fp32 sum of that length."])

conv_chain(
    "67_Conv2d_GELU_GlobalAvgPool",
    ["y = adaptive_avg_pool2d(gelu(y), 1).squeeze(-1).squeeze(-1)   # (B, F)"],
    lambda f, s, y: squeeze(f, squeeze(f, nn.global_avg_pool(f, unary(f, y, GELU)), 3), 2),
    lambda torch, y, s: torch.nn.functional.adaptive_avg_pool2d(
        torch.nn.functional.gelu(y), 1).squeeze(-1).squeeze(-1),
    lambda np, y, s: np.mean(np_gelu(np, y), axis=(2, 3)),
    _sizes(128, 8, 64, (256, 256)), SMALL2, x_range=3.0, atol=1e-5, rtol=1e-4,
    why=["The means (about 0.1-0.5) differ between channels through the bias and",
         "the weights; rtol = 1e-4 covers a reordered fp32 mean of 64516 values."])

conv_chain(
    "69_Conv2d_HardSwish_ReLU",
    ["y = relu(hardswish(y))"],
    lambda f, s, y: unary(f, unary(f, y, HARDSWISH), RELU),
    lambda torch, y, s: torch.relu(torch.nn.functional.hardswish(y)),
    lambda np, y, s: np.maximum(np_hardswish(np, y), 0.0),
    _sizes(128, 8, 64, (128, 128)), SMALL2, x_range=3.0)

conv_chain(
    "71_Conv2d_Divide_LeakyReLU",
    ["y = leaky_relu(y / 2, negative_slope=0.01)"],
    lambda f, s, y: unary(f, scalar(f, y, "arith.divf", 2.0), leaky_relu(0.01)),
    lambda torch, y, s: torch.nn.functional.leaky_relu(y / 2, negative_slope=0.01),
    lambda np, y, s: np_leaky_relu(np, y / 2.0, 0.01),
    _sizes(128, 8, 64, (128, 128)), SMALL2)

conv_chain(
    "73_Conv2d_BatchNorm_Scaling",
    ["y = BatchNorm2d(F)(y) * 2.0   # training mode: batch statistics, eps = 1e-5"],
    lambda f, s, y, g, be: scalar(f, batch_norm(f, y, g, be), "arith.mulf", 2.0),
    lambda torch, y, g, be, s: torch.nn.functional.batch_norm(
        y, None, None, g, be, training=True, eps=1e-5) * 2.0,
    lambda np, y, g, be, s: np_batch_norm(np, y, g, be) * 2.0,
    _sizes(128, 8, 64, (128, 128)), SMALL2, extra=_bn_args)


def _p82(f, s, y, bias):
    y = scalar(f, unary(f, y, TANH), "arith.mulf", 2.0)
    return nn.max_pool2d(f, broadcast_op(f, y, bias, "arith.addf"), 4)


conv_chain(
    "82_Conv2d_Tanh_Scaling_BiasAdd_Max",
    ["y = tanh(y) * 2.0 + bias   # bias = nn.Parameter(torch.randn(F, 1, 1))",
     "y = MaxPool2d(4)(y)"],
    _p82,
    lambda torch, y, bias, s: torch.nn.functional.max_pool2d(torch.tanh(y) * 2.0 + bias, 4),
    lambda np, y, bias, s: nn.np_max_pool(np, np.tanh(y) * 2.0 + bias, 4),
    _sizes(128, 8, 64, (256, 256)), SMALL2, extra=_channel_randn())


def _p85(f, s, y, g, be, scale):
    y = broadcast_op(f, group_norm(f, y, s["G"], g, be), scale, "arith.mulf")
    return unary(f, nn.max_pool2d(f, y, 4), hardtanh(0.0, 1.0))


conv_chain(
    "85_Conv2d_GroupNorm_Scale_MaxPool_Clamp",
    ["y = GroupNorm(G, F, eps=1e-5)(y) * scale   # scale = nn.Parameter(torch.ones(F, 1, 1))",
     "y = torch.clamp(MaxPool2d(4)(y), 0.0, 1.0)"],
    _p85,
    lambda torch, y, g, be, scale, s: torch.clamp(torch.nn.functional.max_pool2d(
        torch.nn.functional.group_norm(y, s["G"], g, be, eps=1e-5) * scale, 4), 0.0, 1.0),
    lambda np, y, g, be, scale, s: np.clip(nn.np_max_pool(
        np, np_group_norm(np, y, s["G"], g, be) * scale, 4), 0.0, 1.0),
    _sizes(128, 8, 64, (128, 128), G=16), dict(SMALL2, G=4),
    extra=lambda s: _gn_args(s) + _param("scale", lambda s: [s["F"], 1, 1], normal(1.0, 0.1),
                                         "scale ~ N(1, 0.1) around its initial 1.")(s),
    why=["The window maxima of normalized values are mostly above 1: the clamp",
         "saturates there, as in KernelBench, and passes the rest."])

conv_chain(
    "87_Conv2d_Subtract_Subtract_Mish",
    ["y = mish(y - 0.5 - 0.2)"],
    lambda f, s, y: unary(f, scalar(f, scalar(f, y, "arith.subf", 0.5), "arith.subf", 0.2), MISH),
    lambda torch, y, s: torch.nn.functional.mish(y - 0.5 - 0.2),
    lambda np, y, s: np_mish(np, y - 0.7),
    _sizes(128, 8, 64, (256, 256)), SMALL2, x_range=3.0)


def _p92(f, s, y, g, be):
    t = unary(f, unary(f, group_norm(f, y, s["G"], g, be), TANH), HARDSWISH)
    return logsumexp(f, binary(f, y, t, "arith.addf"), 1, keepdim=True)


conv_chain(
    "92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp",
    ["t = hardswish(tanh(GroupNorm(G, F, eps=1e-5)(y)))",
     "y = torch.logsumexp(y + t, dim=1, keepdim=True)   # (B, 1, H', W')"],
    _p92,
    lambda torch, y, g, be, s: torch.logsumexp(y + torch.nn.functional.hardswish(torch.tanh(
        torch.nn.functional.group_norm(y, s["G"], g, be, eps=1e-5))), dim=1, keepdim=True),
    lambda np, y, g, be, s: np_logsumexp(np, y + np_hardswish(np, np.tanh(
        np_group_norm(np, y, s["G"], g, be))), 1, keepdims=True),
    _sizes(128, 8, 64, (128, 128), G=16), dict(SMALL2, G=4), extra=_gn_args,
    atol=1e-5, rtol=1e-5,
    why=["The logsumexp over F channels is about log(F) + 0.5: rtol = 1e-5."])


# ConvTranspose2d ---------------------------------------------------------------

_T2 = dict(transposed=True, stride=2, padding=1, output_padding=1)


def _p2(f, s, y, bias):
    y = unary(f, broadcast_op(f, y, bias, "arith.addf"), hardtanh(0.0, 1.0))
    y = unary(f, scalar(f, y, "arith.mulf", 2.0), hardtanh(0.0, 1.0))
    return scalar(f, y, "arith.divf", 2.0)


conv_chain(
    "2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide",
    ["y = clamp(y + bias, 0, 1)     # bias = nn.Parameter(torch.randn(F, 1, 1))",
     "y = clamp(y * 2.0, 0, 1) / 2.0"],
    _p2,
    lambda torch, y, bias, s: torch.clamp(torch.clamp(y + bias, min=0.0, max=1.0) * 2.0,
                                          min=0.0, max=1.0) / 2.0,
    lambda np, y, bias, s: np.clip(np.clip(y + bias, 0.0, 1.0) * 2.0, 0.0, 1.0) / 2.0,
    _sizes(128, 64, 64, (128, 128)), SMALL2, x_range=3.0, extra=_channel_randn(), **_T2)

conv_chain(
    "5_ConvTranspose2d_Subtract_Tanh",
    ["y = tanh(y - bias)   # bias = nn.Parameter(torch.randn(F, 1, 1))"],
    lambda f, s, y, bias: unary(f, broadcast_op(f, y, bias, "arith.subf"), TANH),
    lambda torch, y, bias, s: torch.tanh(y - bias),
    lambda np, y, bias, s: np.tanh(y - bias),
    _sizes(32, 64, 64, (256, 256), K=4), dict(SMALL2, K=4), x_range=3.0,
    extra=_channel_randn(), **_T2)


conv_chain(
    "10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh",
    ["y = MaxPool2d(kernel_size=2, stride=2)(y); y = Hardtanh(-1, 1)(y)",
     "y = tanh(torch.mean(y, dim=(2, 3), keepdim=True))   # (B, F, 1, 1)"],
    lambda f, s, y: unary(f, reduce_dim(f, unary(f, nn.max_pool2d(f, y, 2, stride=2),
                                                 hardtanh(-1.0, 1.0)), [2, 3], "mean",
                                        keepdim=True), TANH),
    lambda torch, y, s: torch.tanh(torch.mean(torch.nn.functional.hardtanh(
        torch.nn.functional.max_pool2d(y, 2, 2), -1.0, 1.0), dim=(2, 3), keepdim=True)),
    lambda np, y, s: np.tanh(np.mean(np.clip(nn.np_max_pool(np, y, 2, 2), -1.0, 1.0),
                                     axis=(2, 3), keepdims=True)),
    _sizes(128, 64, 64, (256, 256)), SMALL2, x_range=3.0, atol=1e-5, rtol=1e-4,
    why=["r = 3 (outputs of std 1) makes the Hardtanh clip; the means over H' W' / 4",
         "values differ between channels: atol = 1e-5, rtol = 1e-4 cover a reordered",
         "fp32 mean."],
    transposed=True, stride=1, padding=1)


def _p11(f, s, y, bg, bb, gg, gb):
    y = unary(f, batch_norm(f, y, bg, bb), TANH)
    return group_norm(f, nn.max_pool2d(f, y, 2, stride=2), s["G"], gg, gb)


conv_chain(
    "11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm",
    ["y = tanh(BatchNorm2d(F)(y))         # training mode: batch statistics",
     "y = MaxPool2d(kernel_size=2, stride=2)(y); y = GroupNorm(G, F)(y)   # eps = 1e-5"],
    _p11,
    lambda torch, y, bg, bb, gg, gb, s: torch.nn.functional.group_norm(
        torch.nn.functional.max_pool2d(torch.tanh(torch.nn.functional.batch_norm(
            y, None, None, bg, bb, training=True, eps=1e-5)), 2, 2), s["G"], gg, gb, eps=1e-5),
    lambda np, y, bg, bb, gg, gb, s: np_group_norm(np, nn.np_max_pool(
        np, np.tanh(np_batch_norm(np, y, bg, bb)), 2, 2), s["G"], gg, gb),
    _sizes(512, 64, 128, (32, 32), K=5, G=8), dict(SMALL2, K=5, G=4),
    extra=lambda s: _bn_args(s, "bn_") + _gn_args(s, "gn_"),
    why=["KernelBench's file sets height = width = 2048, then 32: the later value counts."],
    transposed=True, stride=1, padding=1)


def _p16(f, s, y):
    y = unary(f, scalar(f, unary(f, y, MISH), "arith.addf", 0.5), hardtanh(-1.0, 1.0))
    return scalar(f, y, "arith.mulf", 2.0)


conv_chain(
    "16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling",
    ["y = hardtanh(mish(y) + 0.5, min_val=-1, max_val=1) * 2"],
    _p16,
    lambda torch, y, s: torch.nn.functional.hardtanh(
        torch.nn.functional.mish(y) + 0.5, min_val=-1, max_val=1) * 2,
    lambda np, y, s: np.clip(np_mish(np, y) + 0.5, -1.0, 1.0) * 2.0,
    _sizes(128, 64, 64, (128, 128)), SMALL2, x_range=6.0,
    why=["r = 6 gives outputs of std 1 (a stride-2 transposed convolution sums a",
         "quarter of its taps): Mish is non-linear there and the Hardtanh clips."],
    **_T2)

conv_chain(
    "19_ConvTranspose2d_GELU_GroupNorm",
    ["y = GroupNorm(G, F)(gelu(y))   # eps = 1e-5"],
    lambda f, s, y, g, be: group_norm(f, unary(f, y, GELU), s["G"], g, be),
    lambda torch, y, g, be, s: torch.nn.functional.group_norm(
        torch.nn.functional.gelu(y), s["G"], g, be, eps=1e-5),
    lambda np, y, g, be, s: np_group_norm(np, np_gelu(np, y), s["G"], g, be),
    _sizes(128, 64, 64, (256, 256), G=8), dict(SMALL2, G=4), x_range=3.0, extra=_gn_args,
    why=["r = 3 puts the outputs (std 1) on GELU's curved part."],
    transposed=True, stride=1)


# 36_ConvTranspose2d_Min_Sum_GELU_Add is left out: the minimum over the
# channels summed over the height is far below -5 for any input scale, so
# gelu() is 0 to within 1e-7 and the output is the bias everywhere (as in
# KernelBench). A kernel writing that constant passes: the problem fails the
# degenerate-problem check at KernelBench's shapes (docs/benchmarks.md).


def _p42(f, s, y, bias):
    y = broadcast_op(f, reduce_dim(f, y, [2, 3], "mean", keepdim=True), bias, "arith.addf")
    y = reduce_dim(f, logsumexp(f, y, 1, keepdim=True), [2, 3], "sum")
    return scalar(f, y, "arith.mulf", 10.0)


conv_chain(
    "42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply",
    ["y = torch.mean(y, dim=(2, 3), keepdim=True) + bias   # bias: torch.randn(F, 1, 1)",
     "y = torch.logsumexp(y, dim=1, keepdim=True); y = torch.sum(y, dim=(2, 3)) * 10.0"],
    _p42,
    lambda torch, y, bias, s: torch.sum(torch.logsumexp(
        torch.mean(y, dim=(2, 3), keepdim=True) + bias, dim=1, keepdim=True), dim=(2, 3)) * 10.0,
    lambda np, y, bias, s: np.sum(np_logsumexp(
        np, np.mean(y, axis=(2, 3), keepdims=True) + bias, 1, keepdims=True), axis=(2, 3)) * 10.0,
    _sizes(16, 64, 128, (512, 512)), SMALL2, x_range=3.0, extra=_channel_randn(),
    atol=1e-5, rtol=1e-5,
    why=["The outputs (about 55) depend on x only through the spatial means, which",
         "move them by about 1e-2 between batch elements: rtol = 1e-5 keeps a",
         "constant output from passing and covers a reordered fp32 mean."],
    transposed=True)


def _p44(f, s, y):
    y = reduce_dim(f, scalar(f, y, "arith.mulf", 0.5), [2, 3], "mean", keepdim=True)
    return reduce_dim(f, y, [2, 3], "mean", keepdim=True)


conv_chain(
    "44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean",
    ["y = torch.mean(y * 0.5, dim=[2, 3], keepdim=True)",
     "y = torch.mean(y, dim=[2, 3], keepdim=True)     # (B, F, 1, 1)"],
    _p44,
    lambda torch, y, s: torch.mean(torch.mean(y * 0.5, dim=[2, 3], keepdim=True), dim=[2, 3],
                                   keepdim=True),
    lambda np, y, s: np.mean(y * 0.5, axis=(2, 3), keepdims=True),
    _sizes(16, 64, 128, (128, 128)), SMALL2, atol=1e-6, rtol=1e-4,
    why=["The means are about half the conv bias (|y| < 0.02): atol = 1e-6."],
    **_T2)


def _p91(f, s, y, bias):
    y = broadcast_op(f, softmax(f, y, 1), bias, "arith.addf")
    return unary(f, scalar(f, y, "arith.mulf", 2.0), SIGMOID)


conv_chain(
    "91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid",
    ["y = torch.softmax(y, dim=1) + bias   # bias = nn.Parameter(torch.randn(F, 1, 1))",
     "y = sigmoid(y * 2.0)"],
    _p91,
    lambda torch, y, bias, s: torch.sigmoid((torch.softmax(y, dim=1) + bias) * 2.0),
    lambda np, y, bias, s: np_sigmoid(np, (np_softmax(np, y, 1) + bias) * 2.0),
    _sizes(128, 64, 128, (64, 64), K=4), dict(SMALL2, K=4), x_range=3.0,
    extra=_channel_randn(), atol=1e-6, rtol=1e-5,
    why=["The softmax terms (about 1/F) move the output by about 1/(2F): the",
         "tolerance is well below that, so a kernel must compute them."],
    **_T2)


def _p93(f, s, y):
    y = scalar(f, scalar(f, y, "arith.addf", 0.5), "arith.minimumf", 0.0)
    return scalar(f, unary(f, y, GELU), "arith.mulf", 2.0)


conv_chain(
    "93_ConvTranspose2d_Add_Min_GELU_Multiply",
    ["y = torch.min(y + 0.5, torch.tensor(0.0)); y = gelu(y) * 2.0"],
    _p93,
    lambda torch, y, s: torch.nn.functional.gelu(torch.min(
        y + 0.5, torch.tensor(0.0, device=y.device, dtype=y.dtype))) * 2.0,
    lambda np, y, s: np_gelu(np, np.minimum(y + 0.5, 0.0)) * 2.0,
    _sizes(128, 64, 128, (64, 64), K=4), dict(SMALL2, K=4), x_range=6.0,
    why=["With r = 6 (outputs of std 0.7) y + 0.5 is negative in about a quarter of",
         "the elements; elsewhere the min gives 0 and so does the output."],
    transposed=True, stride=2)


# Conv3d ------------------------------------------------------------------------

conv_chain(
    "6_Conv3d_Softmax_MaxPool_MaxPool",
    ["y = torch.softmax(y, dim=1); y = MaxPool3d(2)(MaxPool3d(2)(y))"],
    lambda f, s, y: nn.max_pool3d(f, nn.max_pool3d(f, softmax(f, y, 1), 2), 2),
    lambda torch, y, s: torch.nn.functional.max_pool3d(torch.nn.functional.max_pool3d(
        torch.softmax(y, dim=1), 2), 2),
    lambda np, y, s: nn.np_max_pool(np, nn.np_max_pool(np, np_softmax(np, y, 1), 2), 2),
    _sizes(128, 3, 16, (16, 32, 32)), _sizes(2, 3, 8, (10, 9, 11)), x_range=3.0,
    atol=1e-6, rtol=1e-5,
    why=["Softmax outputs over F channels are about 1/F: atol = 1e-6, rtol = 1e-5."])


def _p7(f, s, y, bias):
    y = unary(f, unary(f, unary(f, unary(f, y, RELU), leaky_relu(0.01)), GELU), SIGMOID)
    return broadcast_op(f, y, bias, "arith.addf")


conv_chain(
    "7_Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd",
    ["y = sigmoid(gelu(leaky_relu(relu(y), 0.01)))",
     "y = y + bias    # bias = nn.Parameter(torch.randn(F, 1, 1, 1))"],
    _p7,
    lambda torch, y, bias, s: torch.sigmoid(torch.nn.functional.gelu(
        torch.nn.functional.leaky_relu(torch.relu(y), negative_slope=0.01))) + bias,
    lambda np, y, bias, s: np_sigmoid(np, np_gelu(np, np.maximum(y, 0.0))) + bias,
    _sizes(64, 8, 32, (32, 64, 64)), SMALL3, x_range=3.0, extra=_channel_randn())


def _p8(f, s, y, bias):
    y = nn.max_pool3d(f, scalar(f, y, "arith.divf", 2.0), 2)
    y = broadcast_op(f, nn.global_avg_pool(f, y), bias, "arith.addf")
    return reduce_dim(f, y, 1, "sum")


conv_chain(
    "8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum",
    ["y = MaxPool3d(2)(y / 2.0); y = AdaptiveAvgPool3d(1)(y)      # (B, F, 1, 1, 1)",
     "y = torch.sum(y + bias, dim=1)   # bias: torch.randn(F, 1, 1, 1); (B, 1, 1, 1)"],
    _p8,
    lambda torch, y, bias, s: torch.sum(torch.nn.functional.adaptive_avg_pool3d(
        torch.nn.functional.max_pool3d(y / 2.0, 2), 1) + bias, dim=1),
    lambda np, y, bias, s: np.sum(nn.np_global_avg_pool(
        np, nn.np_max_pool(np, y / 2.0, 2)) + bias, axis=1),
    _sizes(128, 8, 16, (16, 64, 64)), SMALL3, x_range=3.0, extra=_channel_randn(),
    atol=1e-5, rtol=1e-5,
    why=["The sum over channels is dominated by the N(0, 1) biases, common to the",
         "batch; the pooled means move it by about 1e-2 between batch elements:",
         "rtol = 1e-5 keeps a constant output from passing."])

conv_chain(
    "23_Conv3d_GroupNorm_Mean",
    ["y = GroupNorm(G, F)(y)   # eps = 1e-5",
     "y = y.mean(dim=[1, 2, 3, 4])   # (B,)"],
    lambda f, s, y, g, be: reduce_dim(f, group_norm(f, y, s["G"], g, be), [1, 2, 3, 4], "mean"),
    lambda torch, y, g, be, s: torch.nn.functional.group_norm(
        y, s["G"], g, be, eps=1e-5).mean(dim=[1, 2, 3, 4]),
    lambda np, y, g, be, s: np.mean(np_group_norm(np, y, s["G"], g, be), axis=(1, 2, 3, 4)),
    _sizes(128, 3, 24, (24, 32, 32), G=8), dict(SMALL3, G=4), extra=_gn_args,
    atol=1e-5, rtol=1e-4)


def _p24(f, s, y):
    return softmax(f, reduce_dim(f, y, 2, "min"), 1)


conv_chain(
    "24_Conv3d_Min_Softmax",
    ["y = torch.min(y, dim=2)[0]    # over depth: (B, F, H', W')",
     "y = torch.softmax(y, dim=1)"],
    _p24,
    lambda torch, y, s: torch.softmax(torch.min(y, dim=2)[0], dim=1),
    lambda np, y, s: np_softmax(np, np.min(y, axis=2), 1),
    _sizes(128, 3, 24, (24, 32, 32)), SMALL3, x_range=3.0, atol=1e-6, rtol=1e-5,
    why=["Softmax outputs over F channels are about 1/F: atol = 1e-6, rtol = 1e-5."])


def _p27(f, s, y, g, be):
    y = group_norm(f, unary(f, y, HARDSWISH), s["G"], g, be)
    return reduce_dim(f, y, [2, 3, 4], "mean")


conv_chain(
    "27_Conv3d_HardSwish_GroupNorm_Mean",
    ["y = GroupNorm(G, F)(F.hardswish(y))   # num_groups = 4, eps = 1e-5",
     "y = torch.mean(y, dim=[2, 3, 4])      # (B, F)"],
    _p27,
    lambda torch, y, g, be, s: torch.mean(torch.nn.functional.group_norm(
        torch.nn.functional.hardswish(y), s["G"], g, be, eps=1e-5), dim=[2, 3, 4]),
    lambda np, y, g, be, s: np.mean(np_group_norm(np, np_hardswish(np, y), s["G"], g, be),
                                    axis=(2, 3, 4)),
    _sizes(1024, 3, 16, (16, 32, 32), K=4, G=4), dict(SMALL3, K=4, G=4), x_range=3.0,
    extra=_gn_args, atol=1e-5, rtol=1e-4,
    why=["The per-channel means of the normalized values differ between channels",
         "(each group mixes channels with different biases)."])


def _p43(f, s, y):
    y = logsumexp(f, nn.max_pool3d(f, y, 2, stride=2), 1, keepdim=True)
    return unary(f, y, RELU)


conv_chain(
    "43_Conv3d_Max_LogSumExp_ReLU",
    ["y = MaxPool3d(kernel_size=2, stride=2)(y)",
     "y = relu(torch.logsumexp(y, dim=1, keepdim=True))   # (B, 1, D', H', W')"],
    _p43,
    lambda torch, y, s: torch.relu(torch.logsumexp(
        torch.nn.functional.max_pool3d(y, 2, 2), dim=1, keepdim=True)),
    lambda np, y, s: np.maximum(np_logsumexp(np, nn.np_max_pool(np, y, 2, 2), 1,
                                             keepdims=True), 0.0),
    _sizes(4, 32, 64, (32, 128, 128)), SMALL3, atol=1e-5, rtol=1e-5,
    why=["The logsumexp over F channels (about log(F) + 0.3) is positive: the ReLU",
         "is the identity, as in KernelBench. rtol = 1e-5."],
    stride=1, padding=1)

conv_chain(
    "47_Conv3d_Mish_Tanh",
    ["y = tanh(mish(y))"],
    lambda f, s, y: unary(f, unary(f, y, MISH), TANH),
    lambda torch, y, s: torch.tanh(torch.nn.functional.mish(y)),
    lambda np, y, s: np.tanh(np_mish(np, y)),
    _sizes(16, 32, 64, (32, 64, 64)), SMALL3, x_range=3.0)


def _p48(f, s, y, scale, bias):
    y = unary(f, broadcast_op(f, y, scale, "arith.mulf"), TANH)
    return unary(f, broadcast_op(f, y, bias, "arith.mulf"), SIGMOID)


conv_chain(
    "48_Conv3d_Scaling_Tanh_Multiply_Sigmoid",
    ["y = tanh(y * scaling_factor)  # scaling_factor, bias: nn.Parameter(torch.randn(F, 1, 1, 1))",
     "y = sigmoid(y * bias)"],
    _p48,
    lambda torch, y, scale, bias, s: torch.sigmoid(torch.tanh(y * scale) * bias),
    lambda np, y, scale, bias, s: np_sigmoid(np, np.tanh(y * scale) * bias),
    _sizes(128, 3, 16, (16, 64, 64)), SMALL3, x_range=3.0,
    extra=lambda s: _channel_randn("scaling_factor")(s) + _channel_randn()(s))


def _p79(f, s, y, m):
    y = normalize(f, broadcast_op(f, y, m, "arith.mulf"), [2, 3, 4])
    y = broadcast_op(f, unary(f, y, hardtanh(-1.0, 1.0)), m, "arith.mulf")
    return reduce_dim(f, y, 1, "max")


conv_chain(
    "79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max",
    ["y = InstanceNorm3d(F)(y * multiplier)   # multiplier: torch.randn(F, 1, 1, 1); eps = 1e-5",
     "y = torch.clamp(y, -1.0, 1.0) * multiplier; y = torch.max(y, dim=1)[0]   # (B, D', H', W')"],
    _p79,
    lambda torch, y, m, s: torch.max(torch.clamp(torch.nn.functional.instance_norm(
        y * m, eps=1e-5), -1.0, 1.0) * m, dim=1)[0],
    lambda np, y, m, s: np.max(np.clip(np_normalize(np, y * m, (2, 3, 4)), -1.0, 1.0) * m,
                               axis=1),
    _sizes(128, 3, 16, (16, 32, 32)), SMALL3, extra=_channel_randn("multiplier"))


def _p90(f, s, y, t):
    y = broadcast_op(f, unary(f, y, leaky_relu(0.2)), t, "arith.addf")
    return unary(f, unary(f, y, hardtanh(-1.0, 1.0)), GELU)


conv_chain(
    "90_Conv3d_LeakyReLU_Sum_Clamp_GELU",
    ["y = leaky_relu(y, 0.2) + sum_tensor   # sum_tensor = nn.Parameter(torch.randn(F, 1, 1, 1))",
     "y = gelu(torch.clamp(y, -1.0, 1.0))"],
    _p90,
    lambda torch, y, t, s: torch.nn.functional.gelu(torch.clamp(
        torch.nn.functional.leaky_relu(y, negative_slope=0.2) + t, min=-1.0, max=1.0)),
    lambda np, y, t, s: np_gelu(np, np.clip(np_leaky_relu(np, y, 0.2) + t, -1.0, 1.0)),
    _sizes(128, 8, 64, (16, 64, 64)), SMALL3, x_range=3.0, extra=_channel_randn("sum_tensor"))


# ConvTranspose3d ---------------------------------------------------------------


def _layer_norm_last(f, y, g, be):
    """nn.LayerNorm(F) on (B, F, D, H, W): over the last dim (W' = F here)."""
    n = len(f.shape(y))
    return normalize(f, y, [n - 1], 1e-5, g, be, [n - 1])


def _np_layer_norm_last(np, y, g, be):
    return np_normalize(np, y, (-1,)) * g + be


def _p3(f, s, y, w, g, be):
    y = _layer_norm_last(f, broadcast_op(f, y, w, "arith.addf"), g, be)
    return unary(f, nn.avg_pool3d(f, y, 2), GELU)


conv_chain(
    "3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU",
    ["y = y + sum_weight      # sum_weight = nn.Parameter(torch.tensor(1.0))",
     "y = LayerNorm((F,))(y)  # over the last dim, W' = F; eps = 1e-5",
     "y = gelu(AvgPool3d(2)(y))"],
    _p3,
    lambda torch, y, w, g, be, s: torch.nn.functional.gelu(torch.nn.functional.avg_pool3d(
        torch.nn.functional.layer_norm(y + w, (s["F"],), g, be, eps=1e-5), 2)),
    lambda np, y, w, g, be, s: np_gelu(np, nn.np_avg_pool(
        np, _np_layer_norm_last(np, y + w, g, be), 2)),
    _sizes(32, 32, 64, (16, 32, 32)), SMALL3_LN,
    extra=lambda s: _scalar_param("sum_weight", 0.5, 1.5, 1.0)(s) + _ln_args(s), **_T2)


def _p13(f, s, y, bias):
    y = broadcast_op(f, reduce_dim(f, y, 2, "mean", keepdim=True), bias, "arith.addf")
    return scalar(f, unary(f, softmax(f, y, 1), TANH), "arith.mulf", 2.0)


conv_chain(
    "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling",
    ["y = y.mean(dim=2, keepdim=True) + bias   # bias = nn.Parameter(torch.randn(1, F, 1, 1, 1))",
     "y = tanh(torch.softmax(y, dim=1)) * 2.0"],
    _p13,
    lambda torch, y, bias, s: torch.tanh(torch.softmax(y.mean(dim=2, keepdim=True) + bias,
                                                       dim=1)) * 2.0,
    lambda np, y, bias, s: np.tanh(np_softmax(np, y.mean(axis=2, keepdims=True) + bias, 1)) * 2.0,
    _sizes(16, 16, 64, (32, 128, 128)), SMALL3, x_range=3.0,
    extra=lambda s: [randn_arg("bias", [1, s["F"], 1, 1, 1])], atol=1e-6, rtol=1e-5,
    why=["The outputs are about 2/F (softmax over F channels, N(0, 1) biases):",
         "atol = 1e-6, rtol = 1e-5."],
    transposed=True, stride=1, padding=1)


def _p15(f, s, y, g, be):
    y = batch_norm(f, y, g, be)
    return broadcast_op(f, y, reduce_dim(f, y, [2, 3, 4], "mean", keepdim=True), "arith.subf")


conv_chain(
    "15_ConvTranspose3d_BatchNorm_Subtract",
    ["y = BatchNorm3d(F)(y)    # training mode: batch statistics, eps = 1e-5",
     "y = y - torch.mean(y, dim=(2, 3, 4), keepdim=True)"],
    _p15,
    lambda torch, y, g, be, s: (lambda z: z - torch.mean(z, dim=(2, 3, 4), keepdim=True))(
        torch.nn.functional.batch_norm(y, None, None, g, be, training=True, eps=1e-5)),
    lambda np, y, g, be, s: (lambda z: z - z.mean(axis=(2, 3, 4), keepdims=True))(
        np_batch_norm(np, y, g, be)),
    _sizes(16, 16, 32, (16, 32, 32)), SMALL3, extra=_bn_args,
    transposed=True, stride=2, padding=1)


def _p20(f, s, y, bias):
    original = y
    y = broadcast_op(f, y, bias, "arith.addf")
    y = binary(f, binary(f, y, original, "arith.addf"), original, "arith.mulf")
    return binary(f, y, original, "arith.addf")


conv_chain(
    "20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd",
    ["original = y.clone().detach(); y = y + bias   # bias: torch.randn(F, 1, 1, 1)",
     "y = (y + original) * original + original"],
    _p20,
    lambda torch, y, bias, s: (lambda o: ((y + bias) + o) * o + o)(y.clone().detach()),
    lambda np, y, bias, s: ((y + bias) + y) * y + y,
    _sizes(16, 32, 64, (16, 32, 32)), SMALL3, x_range=3.0, extra=_channel_randn(), **_T2)


def _p26(f, s, x, add, w, b):
    y = nn.conv_transpose(f, x, w, b, stride=2, padding=1, output_padding=1)
    y = binary(f, y, add, "arith.addf")
    return binary(f, y, unary(f, y, HARDSWISH), "arith.mulf")


def _args26(s):
    x, w, b = conv_args(s, 3.0, True, 2)
    out = [s["B"], s["F"]] + [2 * s[d] for d in ("D", "H", "W")]
    return [x, Arg("add_input", out, uniform(-1.0, 1.0),
                   "add_input ~ U(-1, 1) (KernelBench: torch.rand)."), w, b]


chain(
    "26_ConvTranspose3d_Add_HardSwish",
    ["y = ConvTranspose3d(C, F, kernel_size=K, stride=2, padding=1, output_padding=1)(x)",
     "y = y + add_input; y = y * hardswish(y)",
     "(the module's unused self.bias parameter is not an input)"],
    _args26, _p26,
    lambda torch, x, add, w, b, s: (lambda y: y * torch.nn.functional.hardswish(y))(
        nn.torch_conv_transpose(torch, x, w, b, stride=2, padding=1, output_padding=1) + add),
    lambda np, x, add, w, b, s: (lambda y: y * np_hardswish(np, y))(
        nn.np_conv_transpose(np, x, w, b, stride=2, padding=1, output_padding=1) + add),
    atol=1e-4, rtol=1e-4, full=_sizes(128, 32, 64, (16, 16, 16)), small=SMALL3)

conv_chain(
    "34_ConvTranspose3d_LayerNorm_GELU_Scaling",
    ["y = LayerNorm(F, eps=1e-5)(y)   # over the last dim, W' = F",
     "y = gelu(y) * 1.0"],
    lambda f, s, y, g, be: scalar(f, unary(f, _layer_norm_last(f, y, g, be), GELU),
                                  "arith.mulf", 1.0),
    lambda torch, y, g, be, s: torch.nn.functional.gelu(torch.nn.functional.layer_norm(
        y, (s["F"],), g, be, eps=1e-5)) * 1.0,
    lambda np, y, g, be, s: np_gelu(np, _np_layer_norm_last(np, y, g, be)),
    _sizes(32, 32, 64, (16, 32, 32), K=4), dict(SMALL3_LN, K=4), extra=_ln_args,
    transposed=True, stride=2, padding=1)


def _p38(f, s, y, scale):
    y = unary(f, y, hardtanh(0.0, 1.0))
    shape = f.shape(y)
    flat = collapse(f, y, [[0], [1], [2, 3, 4]])
    y = expand(f, softmax(f, flat, 2), [[0], [1], [2, 3, 4]], shape)
    return broadcast_op(f, y, scale, "arith.mulf")


conv_chain(
    "38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply",
    ["y = torch.clamp(y, 0.0, 1.0)",
     "y = torch.softmax(y.view(B, F, -1), dim=2).view(B, F, D', H', W')",
     "y = y * scale    # scale = nn.Parameter(torch.ones(1, F, 1, 1, 1))"],
    _p38,
    lambda torch, y, scale, s: torch.softmax(torch.clamp(y, 0.0, 1.0).reshape(
        y.shape[0], y.shape[1], -1), dim=2).reshape(y.shape) * scale,
    lambda np, y, scale, s: np_softmax(np, np.clip(y, 0.0, 1.0).reshape(
        y.shape[0], y.shape[1], -1), 2).reshape(y.shape) * scale,
    _sizes(32, 32, 64, (32, 64, 64)), _sizes(2, 3, 8, (6, 8, 6)), x_range=20.0,
    extra=_param("scale", lambda s: [1, s["F"], 1, 1, 1], normal(1.0, 0.1),
                 "scale ~ N(1, 0.1) around its initial 1."),
    atol=1e-12, rtol=1e-5,
    why=["The convolution sees x average-pooled by 2x2x2 (std divided by sqrt(8)): with",
         "r = 20 its outputs have std about 0.6, so both ends of the clamp act. The",
         "softmax outputs are about 1/(D' H' W') (7.6e-6 at full size): the tolerance is",
         "relative."],
    pre=("x = AvgPool3d(2)(x)", lambda f, x: nn.avg_pool3d(f, x, 2),
         lambda torch, x: torch.nn.functional.avg_pool3d(x, 2),
         lambda np, x: nn.np_avg_pool(np, x, 2)),
    **_T2)

conv_chain(
    "49_ConvTranspose3d_Softmax_Sigmoid",
    ["y = sigmoid(torch.softmax(y, dim=1))"],
    lambda f, s, y: unary(f, softmax(f, y, 1), SIGMOID),
    lambda torch, y, s: torch.sigmoid(torch.softmax(y, dim=1)),
    lambda np, y, s: np_sigmoid(np, np_softmax(np, y, 1)),
    _sizes(16, 32, 64, (16, 32, 32)), SMALL3, x_range=3.0, atol=1e-6, rtol=1e-6,
    why=["The outputs are sigmoid(about 1/F), 0.5 to 0.52: the tolerance is tight",
         "enough that the softmax term (about 1/(4F)) matters."],
    **_T2)


def _p50(f, s, y, scale1, bias, scale2):
    y = nn.avg_pool3d(f, broadcast_op(f, y, scale1, "arith.mulf"), 2)
    return broadcast_op(f, broadcast_op(f, y, bias, "arith.addf"), scale2, "arith.mulf")


conv_chain(
    "50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling",
    ["y = AvgPool3d(2)(y * scale1)    # scale1 = nn.Parameter(torch.tensor(0.5))",
     "y = (y + bias) * scale2          # bias: torch.randn(F, 1, 1, 1); scale2: tensor(1.0)"],
    _p50,
    lambda torch, y, s1, bias, s2, s: (torch.nn.functional.avg_pool3d(y * s1, 2) + bias) * s2,
    lambda np, y, s1, bias, s2, s: (nn.np_avg_pool(np, y * s1, 2) + bias) * s2,
    _sizes(128, 3, 16, (16, 32, 32)), SMALL3,
    extra=lambda s: (_scalar_param("scale1", 0.25, 0.75, 0.5)(s) + _channel_randn()(s)
                     + _scalar_param("scale2", 0.5, 1.5, 1.0)(s)),
    transposed=True, stride=2, padding=1)


def _p58(f, s, y, bias):
    y = logsumexp(f, y, 1, keepdim=True)
    t = unary(f, scalar(f, y, "arith.addf", 3.0), SIGMOID)
    y = scalar(f, binary(f, y, t, "arith.mulf"), "arith.divf", 6.0)
    return unary(f, broadcast_op(f, y, bias, "arith.subf"), hardtanh(-1.0, 1.0))


conv_chain(
    "58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp",
    ["y = torch.logsumexp(y, dim=1, keepdim=True)    # (B, 1, D', H', W')",
     "y = y * torch.sigmoid(y + 3) / 6",
     "y = torch.clamp(y - bias, min=-1, max=1)   # bias = nn.Parameter(torch.randn(1, 1, 1, 1))"],
    _p58,
    lambda torch, y, bias, s: (lambda z: torch.clamp(z * torch.sigmoid(z + 3) / 6 - bias,
                                                     min=-1, max=1))(
        torch.logsumexp(y, dim=1, keepdim=True)),
    lambda np, y, bias, s: (lambda z: np.clip(z * np_sigmoid(np, z + 3.0) / 6.0 - bias,
                                              -1.0, 1.0))(np_logsumexp(np, y, 1, keepdims=True)),
    _sizes(128, 3, 16, (16, 32, 32)), SMALL3, x_range=10.0,
    extra=_param("bias", lambda s: [1, 1, 1, 1], uniform(-0.5, 0.5),
                 "bias ~ U(-0.5, 0.5) (nn.Parameter(torch.randn(1, 1, 1, 1))): the values"),
    atol=1e-5, rtol=1e-5,
    why=["before it are about 0.45-0.6, so a draw beyond +-0.5 would let the clamp",
         "saturate everywhere and make the output constant. r = 10 gives the",
         "convolution's outputs a std of 0.5, so the logsumexp varies."],
    transposed=True, stride=2, padding=1)


def _p60(f, s, y, g, be):
    y = group_norm(f, binary(f, unary(f, y, SIGMOID), y, "arith.mulf"), s["G"], g, be)
    return unary(f, y, HARDSWISH)


conv_chain(
    "60_ConvTranspose3d_Swish_GroupNorm_HardSwish",
    ["y = torch.sigmoid(y) * y; y = GroupNorm(G, F, eps=1e-5)(y); y = hardswish(y)"],
    _p60,
    lambda torch, y, g, be, s: torch.nn.functional.hardswish(torch.nn.functional.group_norm(
        torch.sigmoid(y) * y, s["G"], g, be, eps=1e-5)),
    lambda np, y, g, be, s: np_hardswish(np, np_group_norm(np, _np_swish(np, y), s["G"], g, be)),
    _sizes(128, 3, 16, (16, 32, 32), G=4), dict(SMALL3, G=4), x_range=10.0, extra=_gn_args,
    why=["r = 10 gives the convolution's outputs a std of 0.5, where Swish is curved."],
    transposed=True, stride=2, padding=1)

conv_chain(
    "61_ConvTranspose3d_ReLU_GroupNorm",
    ["y = GroupNorm(G, F)(relu(y))   # eps = 1e-5"],
    lambda f, s, y, g, be: group_norm(f, unary(f, y, RELU), s["G"], g, be),
    lambda torch, y, g, be, s: torch.nn.functional.group_norm(torch.relu(y), s["G"], g, be,
                                                              eps=1e-5),
    lambda np, y, g, be, s: np_group_norm(np, np.maximum(y, 0.0), s["G"], g, be),
    _sizes(16, 64, 128, (32, 32, 32), G=8), dict(SMALL3, G=4), extra=_gn_args,
    transposed=True, bias=False)

conv_chain(
    "72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool",
    ["y = BatchNorm3d(F)(y)   # training mode: batch statistics, eps = 1e-5",
     "y = AvgPool3d(2)(AvgPool3d(2)(y))"],
    lambda f, s, y, g, be: nn.avg_pool3d(f, nn.avg_pool3d(f, batch_norm(f, y, g, be), 2), 2),
    lambda torch, y, g, be, s: torch.nn.functional.avg_pool3d(torch.nn.functional.avg_pool3d(
        torch.nn.functional.batch_norm(y, None, None, g, be, training=True, eps=1e-5), 2), 2),
    lambda np, y, g, be, s: nn.np_avg_pool(np, nn.np_avg_pool(np, np_batch_norm(np, y, g, be),
                                                              2), 2),
    _sizes(64, 3, 16, (32, 32, 32)), SMALL3, extra=_bn_args,
    transposed=True, stride=2, padding=1)


def _p74(f, s, y, m):
    y = broadcast_op(f, unary(f, y, leaky_relu(0.2)), m, "arith.mulf")
    return nn.max_pool3d(f, unary(f, y, leaky_relu(0.2)), 2)


conv_chain(
    "74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max",
    ["y = LeakyReLU(0.2)(y) * multiplier   # multiplier = nn.Parameter(torch.randn(F, 1, 1, 1))",
     "y = MaxPool3d(2)(LeakyReLU(0.2)(y))"],
    _p74,
    lambda torch, y, m, s: torch.nn.functional.max_pool3d(torch.nn.functional.leaky_relu(
        torch.nn.functional.leaky_relu(y, 0.2) * m, 0.2), 2),
    lambda np, y, m, s: nn.np_max_pool(np, np_leaky_relu(np, np_leaky_relu(np, y, 0.2) * m, 0.2),
                                       2),
    _sizes(16, 16, 32, (16, 32, 32)), SMALL3, x_range=3.0, extra=_channel_randn("multiplier"),
    **_T2)

conv_chain(
    "77_ConvTranspose3d_Scale_BatchNorm_GlobalAvgPool",
    ["y = BatchNorm3d(F)(y * 2.0)   # training mode: batch statistics, eps = 1e-5",
     "y = AdaptiveAvgPool3d(1)(y)   # (B, F, 1, 1, 1)"],
    lambda f, s, y, g, be: nn.global_avg_pool(f, batch_norm(f, scalar(f, y, "arith.mulf", 2.0),
                                                            g, be)),
    lambda torch, y, g, be, s: torch.nn.functional.adaptive_avg_pool3d(
        torch.nn.functional.batch_norm(y * 2.0, None, None, g, be, training=True, eps=1e-5), 1),
    lambda np, y, g, be, s: nn.np_global_avg_pool(np, np_batch_norm(np, y * 2.0, g, be)),
    _sizes(16, 64, 128, (16, 32, 32), K=5), dict(SMALL3, K=5), extra=_bn_args,
    atol=1e-5, rtol=1e-4,
    why=["Each output is beta plus gamma times a batch element's deviation from the",
         "batch mean, a few 1e-2: atol = 1e-5."],
    transposed=True)


def _p78(f, s, y):
    y = nn.max_pool3d(f, nn.max_pool3d(f, y, 2), 3)
    return reduce_dim(f, y, 1, "sum", keepdim=True)


conv_chain(
    "78_ConvTranspose3d_Max_Max_Sum",
    ["y = MaxPool3d(3)(MaxPool3d(2)(y)); y = torch.sum(y, dim=1, keepdim=True)"],
    _p78,
    lambda torch, y, s: torch.sum(torch.nn.functional.max_pool3d(
        torch.nn.functional.max_pool3d(y, 2), 3), dim=1, keepdim=True),
    lambda np, y, s: np.sum(nn.np_max_pool(np, nn.np_max_pool(np, y, 2), 3), axis=1,
                            keepdims=True),
    _sizes(16, 32, 64, (32, 32, 32), K=5), dict(SMALL3, K=5),
    transposed=True, stride=2, padding=2)


def _p89(f, s, y, sub):
    y = softmax(f, nn.max_pool3d(f, y, 2, stride=2, padding=0), 1)
    y = broadcast_op(f, y, expand(f, sub, [[0, 1, 2, 3, 4]], [1, s["F"], 1, 1, 1]), "arith.subf")
    y = binary(f, unary(f, y, SIGMOID), y, "arith.mulf")
    return reduce_dim(f, y, 1, "max")


conv_chain(
    "89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max",
    ["y = MaxPool3d(kernel_size=2, stride=2, padding=0)(y); y = torch.softmax(y, dim=1)",
     "y = y - subtract.view(1, -1, 1, 1, 1)   # subtract = nn.Parameter(torch.randn(F))",
     "y = torch.sigmoid(y) * y; y = torch.max(y, dim=1)[0]   # (B, D', H', W')"],
    _p89,
    lambda torch, y, sub, s: (lambda z: torch.max(torch.sigmoid(z) * z, dim=1)[0])(
        torch.softmax(torch.nn.functional.max_pool3d(y, 2, 2, 0), dim=1)
        - sub.view(1, -1, 1, 1, 1)),
    lambda np, y, sub, s: np.max(_np_swish(np, np_softmax(np, nn.np_max_pool(np, y, 2, 2), 1)
                                           - sub.reshape(1, -1, 1, 1, 1)), axis=1),
    _sizes(128, 3, 16, (16, 32, 32)), SMALL3, x_range=10.0,
    extra=lambda s: [randn_arg("subtract", [s["F"]])], atol=1e-5, rtol=1e-5,
    why=["r = 10 gives the convolution's outputs a std of 0.5, so the softmax varies."],
    **_T2)


def _p96(f, s, y):
    y = nn.max_pool3d(f, scalar(f, y, "arith.mulf", 0.5), 2)
    return unary(f, nn.global_avg_pool(f, y), hardtanh(0.0, 1.0))


conv_chain(
    "96_ConvTranspose3d_Multiply_Max_GlobalAvgPool_Clamp",
    ["y = MaxPool3d(2)(y * 0.5); y = AdaptiveAvgPool3d(1)(y)   # (B, F, 1, 1, 1)",
     "y = torch.clamp(y, min=0, max=1)"],
    _p96,
    lambda torch, y, s: torch.clamp(torch.nn.functional.adaptive_avg_pool3d(
        torch.nn.functional.max_pool3d(y * 0.5, 2), 1), min=0, max=1),
    lambda np, y, s: np.clip(nn.np_global_avg_pool(np, nn.np_max_pool(np, y * 0.5, 2)), 0.0, 1.0),
    _sizes(128, 3, 16, (16, 32, 32)), SMALL3, x_range=3.0, atol=1e-5, rtol=1e-4,
    why=["The means of window maxima (about 0.1) differ between channels."],
    transposed=True, stride=2, padding=1)

conv_chain(
    "100_ConvTranspose3d_Clamp_Min_Divide",
    ["y = torch.clamp(y, min=-1.0) / 2.0"],
    lambda f, s, y: scalar(f, scalar(f, y, "arith.maximumf", -1.0), "arith.divf", 2.0),
    lambda torch, y, s: torch.clamp(y, min=-1.0) / 2.0,
    lambda np, y, s: np.maximum(y, -1.0) / 2.0,
    _sizes(16, 64, 128, (24, 48, 48)), SMALL3, x_range=12.0,
    why=["r = 12 gives the convolution's outputs a std of 1, so the clamp at -1 acts."],
    transposed=True, stride=2, padding=1)
