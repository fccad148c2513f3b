// Small-shape version of examples/problems/gemm_bias_relu.mlir for the CPU cross-check
// of the GPU reference (kf-evolve check-reference).
// KernelBench level 2, problem 76 (Gemm_Add_ReLU): y = relu(x W^T + bias)
// with x 32x192, W 192x256 (nn.Linear without bias), bias 8192, fp32.
// W is drawn like nn.Linear's initial weights, U(-1/sqrt(8192), 1/sqrt(8192));
// inputs include negative values so that ReLU is not the identity.
// The matmul, the bias add and the ReLU are separate memory passes in eager
// PyTorch: a fusion opportunity.
kf.problem @gemm_bias_relu reference(@gemm_bias_relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-0.0625, 0.0625>, #kf.normal<0.0, 0.5>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @gemm_bias_relu_ref(%x: tensor<32x256xf32>, %w: tensor<192x256xf32>,
                              %bias: tensor<192xf32>) -> tensor<32x192xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x192xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<32x256xf32>, tensor<192x256xf32>)
      outs(%acc : tensor<32x192xf32>) -> tensor<32x192xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>,
                       affine_map<(m, n) -> (m, n)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x192xf32>, tensor<192xf32>)
      outs(%init : tensor<32x192xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x192xf32>
  return %y : tensor<32x192xf32>
}
