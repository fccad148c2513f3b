// A matmul followed by a bias add: the GEMM kernel and an elementwise
// kernel in one function (gemm-kernel.test).
kf.problem @gemm_bias reference(@gemm_bias_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 0.001, rtol = 0.0001>)

func.func @gemm_bias_ref(%x: tensor<256x512xf32>, %w: tensor<512x256xf32>, %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<256x512xf32>, tensor<512x256xf32>) outs(%fill : tensor<256x256xf32>) -> tensor<256x256xf32>
  %out = tensor.empty() : tensor<256x256xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x256xf32>, tensor<256xf32>) outs(%out : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
