// A Linear layer (B as [N, K]) with its bias and a ReLU, as L2-76 at a
// small size: the default schedule fuses the bias and the ReLU into the
// GEMM kernel (gemm-epilogue.test).
kf.problem @gemm_bias_relu reference(@gemm_bias_relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 0.001, rtol = 0.0001>)

func.func @gemm_bias_relu_ref(%x: tensor<256x512xf32>, %w: tensor<256x512xf32>, %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%x, %w : tensor<256x512xf32>, tensor<256x512xf32>) outs(%fill : tensor<256x256xf32>) -> tensor<256x256xf32>
  %e1 = tensor.empty() : tensor<256x256xf32>
  %biased = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x256xf32>, tensor<256xf32>) outs(%e1 : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  %e2 = tensor.empty() : tensor<256x256xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<256x256xf32>) outs(%e2 : tensor<256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<256x256xf32>
  return %relu : tensor<256x256xf32>
}
