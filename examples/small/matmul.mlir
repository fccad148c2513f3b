// Small-shape version of examples/problems/matmul.mlir for the CPU cross-check
// of the GPU reference (kf-evolve check-reference).
// KernelBench level 1, problem 1 (Square matrix multiplication): C = A * B
// with N = 4096, fp32 (TF32 or lower precision is not allowed).
kf.problem @matmul reference(@matmul_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-03, rtol = 1.0e-04>)

func.func @matmul_ref(%a: tensor<96x96xf32>, %b: tensor<96x96xf32>) -> tensor<96x96xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<96x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<96x96xf32>) -> tensor<96x96xf32>
  %c = linalg.matmul ins(%a, %b : tensor<96x96xf32>, tensor<96x96xf32>)
                     outs(%acc : tensor<96x96xf32>) -> tensor<96x96xf32>
  return %c : tensor<96x96xf32>
}
