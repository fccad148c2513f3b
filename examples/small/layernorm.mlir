// Small-shape version of examples/problems/layernorm.mlir for the CPU cross-check
// of the GPU reference (kf-evolve check-reference).
// KernelBench level 1, problem 40 (LayerNorm): nn.LayerNorm((64, 256, 256))
// on x of shape 4x8x16x16 fp32, eps = 1e-5, biased variance. The affine
// weight and bias are inputs (drawn around PyTorch's initial 1 and 0) so a
// kernel cannot assume their initial values.
kf.problem @layernorm reference(@layernorm_ref)
    inputs([#kf.normal<0.0, 1.0>, #kf.normal<1.0, 0.1>, #kf.normal<0.0, 0.1>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @layernorm_ref(%x: tensor<4x8x16x16xf32>, %w: tensor<8x16x16xf32>,
                         %b: tensor<8x16x16xf32>) -> tensor<4x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 2048.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %row_init = tensor.empty() : tensor<4xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%row_init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16x16xf32>) outs(%sum_init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {
      indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>],
      iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%row_init : tensor<4xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %count : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %sq_init = linalg.fill ins(%zero : f32) outs(%row_init : tensor<4xf32>) -> tensor<4xf32>
  %sq = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>,
                       affine_map<(n, c, h, w) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %mean : tensor<4x8x16x16xf32>, tensor<4xf32>) outs(%sq_init : tensor<4xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %rstd = linalg.generic {
      indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>],
      iterator_types = ["parallel"]}
      ins(%sq : tensor<4xf32>) outs(%row_init : tensor<4xf32>) {
  ^bb0(%s: f32, %out: f32):
    %var = arith.divf %s, %count : f32
    %v = arith.addf %var, %eps : f32
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %init = tensor.empty() : tensor<4x8x16x16xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>,
                       affine_map<(n, c, h, w) -> (n)>, affine_map<(n, c, h, w) -> (c, h, w)>,
                       affine_map<(n, c, h, w) -> (c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %rstd, %w, %b : tensor<4x8x16x16xf32>, tensor<4xf32>, tensor<4xf32>,
          tensor<8x16x16xf32>, tensor<8x16x16xf32>)
      outs(%init : tensor<4x8x16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %wv: f32, %bv: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %wv : f32
    %o = arith.addf %s, %bv : f32
    linalg.yield %o : f32
  } -> tensor<4x8x16x16xf32>
  return %y : tensor<4x8x16x16xf32>
}
