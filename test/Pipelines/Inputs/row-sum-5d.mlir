// Sums over the last dimension of a 5-D tensor (layer norm's statistics
// after a ConvTranspose3d): 4 x 16 x 32 x 64 outputs of 64 elements each.
kf.problem @row_sum_5d reference(@row_sum_5d_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @row_sum_5d_ref(%x: tensor<4x16x32x64x64xf32>) -> tensor<4x16x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16x32x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16x32x64xf32>) -> tensor<4x16x32x64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, d, h, w) -> (n, c, d, h, w)>,
                       affine_map<(n, c, d, h, w) -> (n, c, d, h)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x16x32x64x64xf32>) outs(%acc : tensor<4x16x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x16x32x64xf32>
  return %sum : tensor<4x16x32x64xf32>
}
