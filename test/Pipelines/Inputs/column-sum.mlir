// A column sum (batch norm's mean after a GEMM): 256 outputs, each over
// 4096 rows that the threads along the columns step down together.
kf.problem @column_sum reference(@column_sum_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-04, rtol = 1.0e-04>)

func.func @column_sum_ref(%x: tensor<4096x256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256xf32>) -> tensor<256xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(f, b) -> (b, f)>, affine_map<(f, b) -> (f)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x256xf32>) outs(%acc : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %sum : tensor<256xf32>
}
