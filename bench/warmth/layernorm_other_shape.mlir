// examples/problems/layernorm.mlir at another shape, a problem the warm-up
// runs of bench/library-warmth do not include: nn.LayerNorm((32, 256, 128))
// on x of shape 32x32x256x128 fp32 (the same 2^20 elements per sample, twice the samples).
kf.problem @layernorm_other_shape reference(@layernorm_ref)
    inputs([#kf.normal<0.0, 1.0>, #kf.normal<1.0, 0.1>, #kf.normal<0.0, 0.1>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @layernorm_ref(%x: tensor<32x32x256x128xf32>, %w: tensor<32x256x128xf32>,
                         %b: tensor<32x256x128xf32>) -> tensor<32x32x256x128xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 1048576.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %row_init = tensor.empty() : tensor<32xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%row_init : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<32x32x256x128xf32>) outs(%sum_init : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %mean = linalg.generic {
      indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>],
      iterator_types = ["parallel"]}
      ins(%sum : tensor<32xf32>) outs(%row_init : tensor<32xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %count : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %sq_init = linalg.fill ins(%zero : f32) outs(%row_init : tensor<32xf32>) -> tensor<32xf32>
  %sq = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>,
                       affine_map<(n, c, h, w) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %mean : tensor<32x32x256x128xf32>, tensor<32xf32>) outs(%sq_init : tensor<32xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %rstd = linalg.generic {
      indexing_maps = [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>],
      iterator_types = ["parallel"]}
      ins(%sq : tensor<32xf32>) outs(%row_init : tensor<32xf32>) {
  ^bb0(%s: f32, %out: f32):
    %var = arith.divf %s, %count : f32
    %v = arith.addf %var, %eps : f32
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %init = tensor.empty() : tensor<32x32x256x128xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>,
                       affine_map<(n, c, h, w) -> (n)>, affine_map<(n, c, h, w) -> (c, h, w)>,
                       affine_map<(n, c, h, w) -> (c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %rstd, %w, %b : tensor<32x32x256x128xf32>, tensor<32xf32>, tensor<32xf32>,
          tensor<32x256x128xf32>, tensor<32x256x128xf32>)
      outs(%init : tensor<32x32x256x128xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %wv: f32, %bv: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %wv : f32
    %o = arith.addf %s, %bv : f32
    linalg.yield %o : f32
  } -> tensor<32x32x256x128xf32>
  return %y : tensor<32x32x256x128xf32>
}
