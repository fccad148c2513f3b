// A degenerate problem (for the degenerate-problem check): softmax over
// rows of 1000 inputs from [-5, 5) gives outputs below 0.011, so with an
// absolute tolerance of 0.05 a kernel writing zeros passes.
kf.problem @softmax reference(@softmax_ref)
    inputs([#kf.uniform<-5.0, 5.0>])
    tolerance(<atol = 5.0e-02, rtol = 1.0e-04>)

func.func @softmax_ref(%x: tensor<32x1000xf32>) -> tensor<32x1000xf32> {
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %row_init = tensor.empty() : tensor<32xf32>
  %max_init = linalg.fill ins(%neg_inf : f32) outs(%row_init : tensor<32xf32>) -> tensor<32xf32>
  %max = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x1000xf32>) outs(%max_init : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %full_init = tensor.empty() : tensor<32x1000xf32>
  %exp = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<32x1000xf32>, tensor<32xf32>)
      outs(%full_init : tensor<32x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<32x1000xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%row_init : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<32x1000xf32>) outs(%sum_init : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<32x1000xf32>, tensor<32xf32>)
      outs(%full_init : tensor<32x1000xf32>) {
  ^bb0(%e: f32, %s: f32, %out: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x1000xf32>
  return %y : tensor<32x1000xf32>
}
