// A problem too large for the CPU check: 2^40 f32 elements (4 TiB) each for
// the input and the output.
kf.problem @huge reference(@relu_ref) tolerance(<atol = 0.0, rtol = 0.0>)

func.func @relu_ref(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1099511627776xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<1099511627776xf32>) outs(%init : tensor<1099511627776xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}
