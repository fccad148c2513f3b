// Small-shape version of examples/problems/sum_reduction.mlir for the CPU cross-check
// of the GPU reference (kf-evolve check-reference).
// KernelBench level 1, problem 47 (Sum reduction over a dimension):
// torch.sum(x, dim=1, keepdim=True) for x of shape 8x64x65 fp32.
kf.problem @sum_reduction reference(@sum_reduction_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-03, rtol = 1.0e-04>)

func.func @sum_reduction_ref(%x: tensor<8x64x65xf32>) -> tensor<8x1x65xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x65xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x65xf32>) -> tensor<8x65xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(b, k, n) -> (b, k, n)>, affine_map<(b, k, n) -> (b, n)>],
      iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<8x64x65xf32>) outs(%acc : tensor<8x65xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x65xf32>
  %y = tensor.expand_shape %sum [[0], [1, 2]] output_shape [8, 1, 65]
      : tensor<8x65xf32> into tensor<8x1x65xf32>
  return %y : tensor<8x1x65xf32>
}
