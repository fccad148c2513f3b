"""KernelBench level 1: single operators. The families live in their own
modules; importing them registers their problems."""

from . import (level1_activations, level1_convolution, level1_losses,  # noqa: F401
               level1_matmul, level1_normalization, level1_pooling,
               level1_reductions)
