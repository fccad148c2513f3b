// A matrix-vector product written as linalg.matmul with one output column
// (Level 1 problem 4's form, smaller): the GEMM kernel refuses N = 1.
kf.problem @matvec reference(@matvec_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-03, rtol = 1.0e-04>)

func.func @matvec_ref(%A: tensor<64x8192xf32>, %B: tensor<8192x1xf32>) -> tensor<64x1xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x1xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x1xf32>) -> tensor<64x1xf32>
  %y = linalg.matmul ins(%A, %B : tensor<64x8192xf32>, tensor<8192x1xf32>) outs(%acc : tensor<64x1xf32>) -> tensor<64x1xf32>
  return %y : tensor<64x1xf32>
}
