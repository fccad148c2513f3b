"""Level 1 convolutions (KernelBench 50, 54-87): standard, transposed,
depthwise, depthwise-separable and pointwise convolutions in 1D, 2D and 3D,
with each problem's parameters as KernelBench's get_init_inputs() passes
them to its Model (bias=False unless the module's default applies).

Every weight is an input of the problem drawn like PyTorch's default
initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
weight.size(1) * kernel volume (for a transposed convolution PyTorch uses
out_channels/groups there, and so do we)."""

import math

from . import nn
from .mlir import Func, problem_file, uniform
from .registry import Problem, register

_AXES = {1: ("L",), 2: ("H", "W"), 3: ("D", "H", "W")}

# A correct fp32 sum over up to a few thousand products, in any order,
# errs by ~1e-6 on these outputs; TF32 by ~1e-4.
ATOL, RTOL = 2e-5, 1e-4


def _why(fan_in, std):
    """The comment lines that justify the distributions and tolerance
    (fan_in: a number, or a text for several weights)."""
    return ["x ~ U(-1, 1) (KernelBench: U(0, 1); symmetric inputs make every tap",
            "matter) and the weight ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = %s,"
            % fan_in,
            "like PyTorch's initialisation: y has standard deviation ~%.2g. atol = 2e-5,"
            % std,
            "rtol = 1e-4 accept any fp32 summation order (errors ~1e-6) but not TF32",
            "or lower precision (~1e-4)."]


def _output_std(terms, fan_in):
    """Standard deviation of a sum of `terms` products x * w with
    x ~ U(-1, 1) (variance 1/3) and w ~ U(-b, b), b = 1/sqrt(fan_in)
    (variance 1/(3 fan_in))."""
    return math.sqrt(terms / (9.0 * fan_in))


TRANSPOSED = ["The reference writes the transposed convolution as the equivalent direct",
              "one (nn.conv_transpose in bench/suite/nn.py): a gather inserts stride - 1",
              "zeros between inputs and pads by dilation*(K-1) - padding, and the weight",
              "is flipped and transposed; the result is the same."]


def _title(name):
    """"63_conv_standard_2D__square_input__square_kernel" ->
    "conv standard 2D, square input, square kernel"."""
    words = name.split("_", 1)[1].strip("_")
    return ", ".join(part.replace("_", " ").strip()
                     for part in words.split("__") if part.strip("_"))


def _dims(shape):
    return "x".join(str(d) for d in shape)


def _weight_init(fan_in):
    bound = 1.0 / math.sqrt(fan_in)
    return uniform(-bound, bound)


def _conv_problem(name, full, small, kernel, transposed=False, stride=1,
                  padding=0, dilation=1, output_padding=0, groups=1,
                  bias=False, axes=None, note=()):
    """Registers y = nn.ConvNd or nn.ConvTransposeNd(C, F, kernel, ...)(x).

    Sizes hold B (batch), C (in channels), F (out channels; omitted for
    depthwise, groups="C", where F = C) and the spatial sizes named by
    `axes` in the order of x's dims (default L, H W or D H W). The kernel
    and the other parameters are KernelBench's, also at the small sizes.
    """
    rank = len(kernel)
    axes = axes or _AXES[rank]
    symbol = "l1_" + name
    number = name.split("_")[0]

    def params(s):
        g = s["C"] if groups == "C" else groups
        filters = s["C"] if groups == "C" else s["F"]
        x_shape = [s["B"], s["C"]] + [s[a] for a in axes]
        if transposed:
            w_shape = [s["C"], filters // g] + list(kernel)
        else:
            w_shape = [filters, s["C"] // g] + list(kernel)
        return g, filters, x_shape, w_shape

    def mlir(s):
        g, filters, x_shape, w_shape = params(s)
        args = [("x", x_shape), ("weight", w_shape)] + ([("bias", [filters])] if bias else [])
        f = Func(symbol + "_ref", args)
        b = f.arg("bias") if bias else None
        if transposed:
            y = nn.conv_transpose(f, f.arg("x"), f.arg("weight"), b, stride=stride,
                                  padding=padding, output_padding=output_padding,
                                  dilation=dilation, groups=g)
        else:
            y = nn.conv(f, f.arg("x"), f.arg("weight"), b, stride=stride,
                        padding=padding, dilation=dilation, groups=g)
        f.ret(y)
        module = "nn.Conv%s%dd(%d, %d, kernel_size=%s, stride=%s, padding=%s, %sdilation=%s, groups=%s, bias=%s)" % (
            "Transpose" if transposed else "", rank, s["C"], filters,
            kernel if rank > 1 else kernel[0], stride, padding,
            "output_padding=%s, " % (output_padding,) if transposed else "",
            dilation, g, bias)
        fan_in = w_shape[1] * math.prod(kernel)
        comment = ["KernelBench level 1, problem %s: %s." % (number, _title(name)),
                   "y = %s(x)" % module,
                   "x: %s, weight: %s%s -> y: %s, fp32." % (
                       _dims(x_shape), _dims(w_shape),
                       ", bias: %d" % filters if bias else "", _dims(f.shape(y)))]
        # Products per output: all taps for a convolution; for a transposed
        # one, on average kernel volume / stride volume taps hit an output.
        terms = w_shape[1 if not transposed else 0] // (1 if not transposed else g)
        terms *= math.prod(kernel) / (math.prod(nn.spatial(stride, rank, 1))
                                      if transposed else 1)
        comment += list(note) + _why(fan_in, _output_std(terms, fan_in))
        if transposed:
            comment += TRANSPOSED
        inputs = [uniform(-1.0, 1.0), _weight_init(fan_in)]
        if bias:
            inputs.append(_weight_init(fan_in))
        return problem_file(symbol, f, inputs, ATOL, RTOL, comment)

    def torch_fn(torch, x, w, *rest):
        s = rest[-1]
        b = rest[0] if bias else None
        g = params(s)[0]
        if transposed:
            return nn.torch_conv_transpose(torch, x, w, b, stride, padding,
                                           output_padding, dilation, g)
        return nn.torch_conv(torch, x, w, b, stride, padding, dilation, g)

    def numpy_fn(np, x, w, *rest):
        s = rest[-1]
        b = rest[0] if bias else None
        g = params(s)[0]
        if transposed:
            return nn.np_conv_transpose(np, x, w, b, stride, padding,
                                        output_padding, dilation, g)
        return nn.np_conv(np, x, w, b, stride, padding, dilation, g)

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_fn, numpy=numpy_fn))


def _sizes(B, C, F=None, **spatial):
    s = {"B": B, "C": C}
    if F is not None:
        s["F"] = F
    s.update(spatial)
    return s


# Standard convolutions --------------------------------------------------------

# nn.Conv2d's default bias=True applies here (AlexNet's first layer).
_conv_problem("50_conv_standard_2D__square_input__square_kernel",
              _sizes(256, 3, 96, H=224, W=224), _sizes(2, 3, 5, H=39, W=39),
              (11, 11), stride=4, padding=2, bias=True)
_conv_problem("54_conv_standard_3D__square_input__square_kernel",
              _sizes(16, 3, 64, D=64, W=64, H=64), _sizes(2, 3, 5, D=10, W=10, H=10),
              (3, 3, 3), axes=("D", "W", "H"))
_conv_problem("55_conv_standard_2D__asymmetric_input__square_kernel",
              _sizes(8, 64, 128, H=512, W=1024), _sizes(2, 6, 8, H=13, W=27), (3, 3))
_conv_problem("56_conv_standard_2D__asymmetric_input__asymmetric_kernel",
              _sizes(8, 64, 128, H=512, W=256), _sizes(2, 6, 8, H=27, W=15), (5, 7))
_conv_problem("59_conv_standard_3D__asymmetric_input__square_kernel",
              _sizes(16, 3, 64, H=256, W=256, D=10), _sizes(2, 3, 5, H=12, W=11, D=4),
              (3, 3, 1), axes=("H", "W", "D"))
_conv_problem("60_conv_standard_3D__square_input__asymmetric_kernel",
              _sizes(16, 3, 64, W=64, H=64, D=64), _sizes(2, 3, 4, W=12, H=12, D=12),
              (3, 5, 7), axes=("W", "H", "D"))
_conv_problem("62_conv_standard_2D__square_input__asymmetric_kernel",
              _sizes(8, 32, 64, H=512, W=512), _sizes(2, 4, 6, H=21, W=21), (5, 9))
_conv_problem("63_conv_standard_2D__square_input__square_kernel",
              _sizes(16, 16, 128, H=1024, W=1024), _sizes(2, 4, 8, H=19, W=19), (3, 3))
_conv_problem("66_conv_standard_3D__asymmetric_input__asymmetric_kernel",
              _sizes(8, 3, 64, D=16, H=128, W=128), _sizes(2, 3, 4, D=6, H=14, W=14),
              (3, 5, 7))
_conv_problem("67_conv_standard_1D",
              _sizes(32, 64, 128, L=131072), _sizes(2, 6, 8, L=203), (3,))
_conv_problem("76_conv_standard_1D_dilated_strided__",
              _sizes(64, 64, 128, L=524280), _sizes(2, 6, 8, L=301), (3,),
              stride=3, dilation=4)
_conv_problem("80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__",
              _sizes(8, 32, 64, H=512, W=512), _sizes(2, 4, 6, H=25, W=25), (5, 9),
              padding=(2, 4), dilation=(2, 3))

# Transposed convolutions ------------------------------------------------------

_conv_problem("57_conv_transposed_2D__square_input__square_kernel",
              _sizes(8, 64, 64, H=1024, W=1024), _sizes(2, 6, 6, H=15, W=15), (3, 3),
              transposed=True)
_conv_problem("58_conv_transposed_3D__asymmetric_input__asymmetric_kernel",
              _sizes(16, 32, 16, D=16, H=32, W=64), _sizes(2, 4, 3, D=4, H=6, W=8),
              (3, 5, 7), transposed=True)
_conv_problem("61_conv_transposed_3D__square_input__square_kernel",
              _sizes(8, 48, 48, D=64, H=64, W=64), _sizes(2, 4, 4, D=6, H=6, W=6),
              (3, 3, 3), transposed=True)
_conv_problem("64_conv_transposed_1D",
              _sizes(64, 128, 128, L=65536), _sizes(2, 6, 6, L=101), (3,), transposed=True)
_conv_problem("65_conv_transposed_2D__square_input__asymmetric_kernel",
              _sizes(8, 64, 64, H=512, W=512), _sizes(2, 5, 5, H=13, W=13), (3, 7),
              transposed=True)
_conv_problem("68_conv_transposed_3D__square_input__asymmetric_kernel",
              _sizes(16, 32, 64, D=64, W=64, H=64), _sizes(2, 4, 6, D=5, W=6, H=6),
              (3, 5, 5), transposed=True, axes=("D", "W", "H"))
_conv_problem("69_conv_transposed_2D__asymmetric_input__asymmetric_kernel",
              _sizes(64, 64, 128, H=128, W=256), _sizes(2, 6, 8, H=9, W=17), (3, 5),
              transposed=True)
_conv_problem("70_conv_transposed_3D__asymmetric_input__square_kernel",
              _sizes(8, 48, 24, D=96, H=96, W=96), _sizes(2, 6, 4, D=6, H=6, W=6),
              (3, 3, 3), transposed=True)
_conv_problem("71_conv_transposed_2D__asymmetric_input__square_kernel",
              _sizes(8, 32, 32, H=512, W=1024), _sizes(2, 4, 4, H=11, W=21), (3, 3),
              transposed=True)
_conv_problem("72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_",
              _sizes(8, 32, 32, D=12, H=24, W=48), _sizes(2, 8, 12, D=3, H=4, W=5),
              (3, 5, 7), transposed=True, stride=2, padding=(1, 2, 3),
              output_padding=1, groups=4)
_conv_problem("73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped",
              _sizes(4, 32, 32, D=32, H=64, W=128), _sizes(2, 4, 4, D=4, H=5, W=6),
              (3, 3, 3), transposed=True, stride=2, padding=1,
              note=["Despite the name, groups = 1: get_init_inputs() passes groups=4 in the",
                    "position of output_padding, which Model.__init__ does not forward",
                    "to nn.ConvTranspose3d."])
_conv_problem("74_conv_transposed_1D_dilated",
              _sizes(32, 32, 64, L=131072), _sizes(2, 4, 6, L=97), (5,),
              transposed=True, dilation=3)
_conv_problem("75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__",
              _sizes(16, 32, 64, H=128, W=256), _sizes(2, 8, 12, H=7, W=9), (3, 5),
              transposed=True, stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4)
_conv_problem("77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__",
              _sizes(16, 32, 64, D=16, H=32, W=32), _sizes(2, 4, 6, D=4, H=5, W=5),
              (3, 3, 3), transposed=True, stride=2, padding=1, dilation=2)
_conv_problem("78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__",
              _sizes(8, 32, 32, H=512, W=1024), _sizes(2, 4, 4, H=12, W=23), (3, 7),
              transposed=True, padding=(1, 3))
_conv_problem("79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__",
              _sizes(16, 32, 64, L=131072), _sizes(2, 4, 6, L=77), (3,),
              transposed=True, stride=2, padding=1, dilation=2)
_conv_problem("81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__",
              _sizes(16, 32, 64, H=64, W=128), _sizes(2, 4, 6, H=5, W=9), (3, 3),
              transposed=True, stride=5, padding=1, dilation=2)

# Depthwise and pointwise convolutions ---------------------------------------

_conv_problem("82_conv_depthwise_2D_square_input_square_kernel",
              _sizes(16, 64, H=512, W=512), _sizes(2, 6, H=17, W=17), (3, 3), groups="C")
_conv_problem("83_conv_depthwise_2D_square_input_asymmetric_kernel",
              _sizes(64, 8, H=512, W=512), _sizes(2, 5, H=17, W=17), (3, 1), groups="C")
_conv_problem("84_conv_depthwise_2D_asymmetric_input_square_kernel",
              _sizes(64, 128, H=256, W=512), _sizes(2, 6, H=11, W=21), (3, 3), groups="C")
_conv_problem("85_conv_depthwise_2D_asymmetric_input_asymmetric_kernel",
              _sizes(32, 128, H=128, W=256), _sizes(2, 6, H=11, W=23), (3, 7), groups="C")
_conv_problem("87_conv_pointwise_2D",
              _sizes(16, 64, 128, H=1024, W=1024), _sizes(2, 6, 8, H=13, W=13), (1, 1))


def _depthwise_separable():
    """86: a depthwise 3x3 convolution (padding 1, groups = C) followed by a
    pointwise 1x1 convolution C -> F, both without bias."""
    name = "86_conv_depthwise_separable_2D"
    symbol = "l1_" + name
    kernel, padding = 3, 1

    def shapes(s):
        return ([s["B"], s["C"], s["H"], s["W"]], [s["C"], 1, kernel, kernel],
                [s["F"], s["C"], 1, 1])

    def mlir(s):
        x_shape, dw_shape, pw_shape = shapes(s)
        f = Func(symbol + "_ref", [("x", x_shape), ("depthwise_weight", dw_shape),
                                   ("pointwise_weight", pw_shape)])
        t = nn.conv(f, f.arg("x"), f.arg("depthwise_weight"), padding=padding,
                    groups=s["C"])
        y = nn.conv(f, t, f.arg("pointwise_weight"))
        f.ret(y)
        comment = ["KernelBench level 1, problem 86: %s." % _title(name),
                   "y = pointwise(depthwise(x)) with depthwise = nn.Conv2d(%d, %d, 3, padding=1,"
                   % (s["C"], s["C"]),
                   "groups=%d, bias=False), pointwise = nn.Conv2d(%d, %d, 1, bias=False)."
                   % (s["C"], s["C"], s["F"]),
                   "x: %s, depthwise weight: %s, pointwise weight: %s -> y: %s, fp32."
                   % (_dims(x_shape), _dims(dw_shape), _dims(pw_shape), _dims(f.shape(y)))]
        # The depthwise output has variance 1/9 instead of x's 1/3.
        std = _output_std(9, 9) / math.sqrt(3.0)
        comment += _why("9 then %d" % s["C"], std)
        inputs = [uniform(-1.0, 1.0), _weight_init(kernel * kernel), _weight_init(s["C"])]
        return problem_file(symbol, f, inputs, ATOL, RTOL, comment)

    def torch_fn(torch, x, dw, pw, s):
        t = nn.torch_conv(torch, x, dw, padding=padding, groups=s["C"])
        return nn.torch_conv(torch, t, pw)

    def numpy_fn(np, x, dw, pw, s):
        return nn.np_conv(np, nn.np_conv(np, x, dw, padding=padding, groups=s["C"]), pw)

    register(Problem(name=name, level=1, full=_sizes(16, 64, 128, H=512, W=512),
                     small=_sizes(2, 6, 8, H=13, W=13), mlir=mlir, torch=torch_fn,
                     numpy=numpy_fn))


_depthwise_separable()
