// A Conv3d's bias over its 5-D output (n, c, d, h, w): the grid's three
// dimensions take d, h and w, 8 x 14 x 30 outputs.
kf.problem @conv3d_bias reference(@conv3d_bias_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-05, rtol = 1.0e-05>)

func.func @conv3d_bias_ref(%x: tensor<16x16x8x14x30xf32>, %b: tensor<16xf32>) -> tensor<16x16x8x14x30xf32> {
  %empty = tensor.empty() : tensor<16x16x8x14x30xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(n, c, d, h, w) -> (n, c, d, h, w)>, affine_map<(n, c, d, h, w) -> (c)>, affine_map<(n, c, d, h, w) -> (n, c, d, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<16x16x8x14x30xf32>, tensor<16xf32>) outs(%empty : tensor<16x16x8x14x30xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<16x16x8x14x30xf32>
  return %y : tensor<16x16x8x14x30xf32>
}
