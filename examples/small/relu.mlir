// Small-shape version of examples/problems/relu.mlir for the CPU cross-check
// of the GPU reference (kf-evolve check-reference).
// KernelBench level 1, problem 19 (ReLU): y = max(x, 0) on 64x1000 fp32.
// Inputs are drawn with negative values: on KernelBench's torch.rand inputs
// (uniform on [0,1)) ReLU is the identity and a copy would pass.
kf.problem @relu reference(@relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 0.0, rtol = 0.0>)

func.func @relu_ref(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1000xf32>) outs(%init : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
