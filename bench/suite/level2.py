"""KernelBench level 2: fusion chains (a GEMM or a convolution followed by
elementwise ops, normalizations, pooling and reductions)."""

from . import level2_conv, level2_gemm  # noqa: F401
