// Batch norm's mean over NCHW: a sum over n and h*w, with c between them in
// memory, then the centred input. 32 x 32 = 1024 terms per sample.
kf.problem @batchnorm_mean reference(@batchnorm_mean_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @batchnorm_mean_ref(%x: tensor<8x4x32x32xf32>) -> tensor<8x4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 8192.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(c, n, h, w) -> (n, c, h, w)>, affine_map<(c, n, h, w) -> (c)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<8x4x32x32xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %empty = tensor.empty() : tensor<8x4x32x32xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<8x4x32x32xf32>, tensor<4xf32>) outs(%empty : tensor<8x4x32x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %count : f32
    %d = arith.subf %in, %mean : f32
    linalg.yield %d : f32
  } -> tensor<8x4x32x32xf32>
  return %y : tensor<8x4x32x32xf32>
}
