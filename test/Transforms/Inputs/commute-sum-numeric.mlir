// A GEMM, an epilogue affine in it ((c + b - s) / 2) and a sum over N, on
// small integer-valued inputs: every partial sum is exact in f32, so the
// rewritten form (kf-commute-sum-contraction) must print the same values
// as the original (commute-sum-contraction-cpu.test).
func.func @ref(%x: tensor<8x12xf32>, %w: tensor<16x12xf32>, %b: tensor<16xf32>, %s: tensor<16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%x, %w : tensor<8x12xf32>, tensor<16x12xf32>) outs(%fill : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %epi = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %s : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%c: f32, %bias: f32, %sub: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %t = arith.addf %c, %bias : f32
    %u = arith.subf %t, %sub : f32
    %v = arith.divf %u, %two : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%epi : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// value(i, j) = ((a * i + c * j) mod m) - m / 2, as f32.
func.func private @pattern2(%out: tensor<?x?xf32>, %a: index, %c: index, %m: index) -> tensor<?x?xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%out : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %a, %i : index
    %cj = arith.muli %c, %j : index
    %sum = arith.addi %ai, %cj : index
    %mod = arith.remui %sum, %m : index
    %two = arith.constant 2 : index
    %half = arith.divui %m, %two : index
    %v = arith.subi %mod, %half : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f32
    linalg.yield %vf : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %xe = tensor.empty(%c8, %c12) : tensor<?x?xf32>
  %xd = func.call @pattern2(%xe, %c1, %c2, %c5) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x12xf32>
  %we = tensor.empty(%c16, %c12) : tensor<?x?xf32>
  %wd = func.call @pattern2(%we, %c3, %c1, %c7) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<16x12xf32>
  %be = tensor.empty(%c1, %c16) : tensor<?x?xf32>
  %bd = func.call @pattern2(%be, %c1, %c1, %c3) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %b2 = tensor.cast %bd : tensor<?x?xf32> to tensor<1x16xf32>
  %b = tensor.collapse_shape %b2 [[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
  %se = tensor.empty(%c1, %c16) : tensor<?x?xf32>
  %sd = func.call @pattern2(%se, %c1, %c2, %c5) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %s2 = tensor.cast %sd : tensor<?x?xf32> to tensor<1x16xf32>
  %s = tensor.collapse_shape %s2 [[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
  %r = func.call @ref(%x, %w, %b, %s) : (tensor<8x12xf32>, tensor<16x12xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8xf32>
  %m = bufferization.to_buffer %r : tensor<8xf32> to memref<8xf32>
  %u = memref.cast %m : memref<8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
