// A small convolution with a bias and a ReLU (conv-gemm.test): GEMM
// M = 64 filters, N = 2 * 16 * 16 = 512 pixels, K = 8 * 3 * 3 = 72 taps
// (padded to 80).
kf.problem @conv2d_bias_relu reference(@conv2d_bias_relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-0.1, 0.1>, #kf.uniform<-0.1, 0.1>])
    tolerance(<atol = 0.0001, rtol = 0.0001>)

func.func @conv2d_bias_relu_ref(%x: tensor<2x8x18x18xf32>, %w: tensor<64x8x3x3xf32>, %b: tensor<64xf32>) -> tensor<2x64x16x16xf32> {
  %e = tensor.empty() : tensor<2x64x16x16xf32>
  %init = linalg.generic {
      indexing_maps = [affine_map<(n, f, p, q) -> (f)>, affine_map<(n, f, p, q) -> (n, f, p, q)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<64xf32>) outs(%e : tensor<2x64x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x64x16x16xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x18x18xf32>, tensor<64x8x3x3xf32>) outs(%init : tensor<2x64x16x16xf32>) -> tensor<2x64x16x16xf32>
  %e2 = tensor.empty() : tensor<2x64x16x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, f, p, q) -> (n, f, p, q)>, affine_map<(n, f, p, q) -> (n, f, p, q)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<2x64x16x16xf32>) outs(%e2 : tensor<2x64x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x64x16x16xf32>
  return %r : tensor<2x64x16x16xf32>
}
