// x @ W.T (x as 2x7, W as 32x7) on small integer-valued inputs (every sum
// exact in f32): kf-transpose-contraction-products' form must print the
// same values as the original (transpose-contraction-products-cpu.test).
func.func @ref(%x: tensor<2x7xf32>, %w: tensor<32x7xf32>) -> tensor<2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32xf32>) -> tensor<2x32xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%x, %w : tensor<2x7xf32>, tensor<32x7xf32>) outs(%f : tensor<2x32xf32>) -> tensor<2x32xf32>
  return %c : tensor<2x32xf32>
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
  %c32 = arith.constant 32 : index
  %c7 = arith.constant 7 : index
  %xe = tensor.empty(%c2, %c7) : tensor<?x?xf32>
  %xd = func.call @pattern2(%xe, %c1, %c2, %c5) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<2x7xf32>
  %we = tensor.empty(%c32, %c7) : tensor<?x?xf32>
  %wd = func.call @pattern2(%we, %c3, %c1, %c7) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<32x7xf32>
  %r = func.call @ref(%x, %w) : (tensor<2x7xf32>, tensor<32x7xf32>) -> tensor<2x32xf32>
  %m = bufferization.to_buffer %r : tensor<2x32xf32> to memref<2x32xf32>
  %u = memref.cast %m : memref<2x32xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
