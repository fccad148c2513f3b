"""Level 1 pooling (KernelBench 41-46): max and average pooling in 1D, 2D
and 3D on NC(D)HW fp32 tensors, with each problem's kernel, stride, padding
and dilation as KernelBench's get_init_inputs() passes them."""

from . import nn
from .mlir import Func, problem_file, uniform
from .registry import Problem, register

_AXES = (("D", "H", "W"), ("H", "W"), ("L",))


def _shape(s):
    """(B, C, spatial...) from a sizes dict holding B, C and L or (D,) H, W."""
    for axes in _AXES:
        if all(a in s for a in axes):
            return [s["B"], s["C"]] + [s[a] for a in axes]
    raise KeyError("no spatial sizes in %r" % s)


def _pooling(name, title, kind, full, small, kernel, stride=None, padding=0,
             dilation=1, module=""):
    """Registers a pooling problem: kind "max" (nn.MaxPoolNd) or "avg"
    (nn.AvgPoolNd, count_include_pad=True: every window divides by the
    kernel volume). stride None means the kernel size, as in PyTorch."""
    symbol = "l1_" + name
    params = "kernel_size=%s, stride=%s, padding=%s" % (kernel, stride, padding)
    if kind == "max":
        params += ", dilation=%s" % dilation

    def mlir(s):
        shape = _shape(s)
        f = Func(symbol + "_ref", [("x", shape)])
        if kind == "max":
            y = nn.max_pool(f, f.arg("x"), kernel, stride, padding, dilation)
            atol, rtol = 0.0, 0.0
            why = ["Max is exact in any order: the tolerance is 0. Inputs are",
                   "U(-1, 1) (KernelBench: U(0, 1)) so that padding with 0 instead of",
                   "-inf gives wrong maxima wherever a window holds only negatives."]
        else:
            y = nn.avg_pool(f, f.arg("x"), kernel, stride, padding)
            atol, rtol = 1e-6, 1e-5
            why = ["Inputs are U(-1, 1) (KernelBench: U(0, 1)); the outputs are means of",
                   "up to a few dozen such values (|y| ~ 0.1-0.5), so atol = 1e-6 is far",
                   "below them while rtol = 1e-5 allows a different summation order."]
        f.ret(y)
        comment = ["KernelBench level 1, problem %s: %s." % (name.split("_")[0], title),
                   "y = %s(x, %s)%s" % (module, params,
                                        "  (count_include_pad=True)" if kind == "avg" else ""),
                   "x: %s fp32 -> y: %s." % ("x".join(map(str, shape)),
                                             "x".join(map(str, f.shape(y))))]
        return problem_file(symbol, f, [uniform(-1.0, 1.0)], atol, rtol, comment + why)

    if kind == "max":
        def torch_fn(torch, x, s):
            return nn.torch_max_pool(torch, x, kernel, stride, padding, dilation)

        def numpy_fn(np, x, s):
            return nn.np_max_pool(np, x, kernel, stride, padding, dilation)
    else:
        def torch_fn(torch, x, s):
            return nn.torch_avg_pool(torch, x, kernel, stride, padding)

        def numpy_fn(np, x, s):
            return nn.np_avg_pool(np, x, kernel, stride, padding)

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_fn, numpy=numpy_fn))


_pooling("41_Max_Pooling_1D", "Max Pooling 1D", "max",
         {"B": 64, "C": 192, "L": 65536}, {"B": 2, "C": 3, "L": 301},
         kernel=8, stride=1, padding=4, dilation=3, module="nn.MaxPool1d")
_pooling("42_Max_Pooling_2D", "Max Pooling 2D", "max",
         {"B": 32, "C": 64, "H": 512, "W": 512}, {"B": 2, "C": 3, "H": 37, "W": 37},
         kernel=4, stride=1, padding=1, dilation=1, module="nn.MaxPool2d")
_pooling("43_Max_Pooling_3D", "Max Pooling 3D", "max",
         {"B": 16, "C": 32, "D": 128, "H": 128, "W": 128},
         {"B": 2, "C": 3, "D": 19, "H": 19, "W": 19},
         kernel=3, stride=2, padding=1, dilation=3, module="nn.MaxPool3d")
_pooling("44_Average_Pooling_1D", "Average Pooling 1D", "avg",
         {"B": 64, "C": 128, "L": 65536}, {"B": 2, "C": 3, "L": 301},
         kernel=8, stride=1, padding=4, module="nn.AvgPool1d")
# KernelBench passes only kernel_size: stride defaults to it, padding to 0
# (2048 = 186 * 11 + 2: the last 2 rows and columns are dropped).
_pooling("45_Average_Pooling_2D", "Average Pooling 2D", "avg",
         {"B": 16, "C": 64, "H": 2048, "W": 2048}, {"B": 2, "C": 3, "H": 60, "W": 60},
         kernel=11, module="nn.AvgPool2d")
_pooling("46_Average_Pooling_3D", "Average Pooling 3D", "avg",
         {"B": 16, "C": 32, "D": 128, "H": 128, "W": 256},
         {"B": 2, "C": 3, "D": 11, "H": 13, "W": 16},
         kernel=3, stride=2, padding=1, module="nn.AvgPool3d")
