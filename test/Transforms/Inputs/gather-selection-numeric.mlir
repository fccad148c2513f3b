// Cross-entropy's sum of exponentials and target pick in one reduction
// (rows of 6 logits, targets 0..5, one out of range each way): the form of
// kf-gather-selected-elements must print the same values as the original
// (gather-selected-elements-cpu.test). The picks' initial value is -1.
func.func @ref(%x: tensor<4x6xf32>, %t: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %minus1 = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %p0 = linalg.fill ins(%minus1 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : tensor<4x6xf32>, tensor<4xi64>)
      outs(%s0, %p0 : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %ti: i64, %s: f32, %p: f32):
    %ex = math.exp %a : f32
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %eq = arith.cmpi eq, %jj, %ti : i64
    %s1 = arith.addf %ex, %s : f32
    %p1 = arith.select %eq, %a, %p : f32
    linalg.yield %s1, %p1 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  // x[i][j] = i + j / 8 (exact in f32); t = [2, 5, -1, 6].
  %x = arith.constant dense<[[0.0, 0.125, 0.25, 0.375, 0.5, 0.625],
                              [1.0, 1.125, 1.25, 1.375, 1.5, 1.625],
                              [2.0, 2.125, 2.25, 2.375, 2.5, 2.625],
                              [3.0, 3.125, 3.25, 3.375, 3.5, 3.625]]> : tensor<4x6xf32>
  %t = arith.constant dense<[2, 5, -1, 6]> : tensor<4xi64>
  %r:2 = func.call @ref(%x, %t) : (tensor<4x6xf32>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  %m0 = bufferization.to_buffer %r#0 : tensor<4xf32> to memref<4xf32>
  %u0 = memref.cast %m0 : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %m1 = bufferization.to_buffer %r#1 : tensor<4xf32> to memref<4xf32>
  %u1 = memref.cast %m1 : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  return
}
