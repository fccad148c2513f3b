// An elementwise problem none of the examples is: sigmoid on 2048x262144
// fp32 (KernelBench level 1, problem 21, at another shape). The warm-library
// test runs it after the library has seen relu and the sum reduction.
kf.problem @sigmoid reference(@sigmoid_ref)
    inputs([#kf.uniform<-4.0, 4.0>])
    tolerance(<atol = 1.0e-06, rtol = 1.0e-05>)

func.func @sigmoid_ref(%x: tensor<2048x262144xf32>) -> tensor<2048x262144xf32> {
  %one = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<2048x262144xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2048x262144xf32>) outs(%init : tensor<2048x262144xf32>) {
  ^bb0(%in: f32, %out: f32):
    %neg = arith.negf %in : f32
    %e = math.exp %neg : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<2048x262144xf32>
  return %y : tensor<2048x262144xf32>
}
