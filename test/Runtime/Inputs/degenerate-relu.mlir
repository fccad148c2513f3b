// A degenerate problem (for the degenerate-problem check): ReLU on inputs
// drawn from [0, 1) is the identity, so a kernel copying its input passes.
kf.problem @relu reference(@relu_ref)
    inputs([#kf.uniform<0.0, 1.0>])
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
