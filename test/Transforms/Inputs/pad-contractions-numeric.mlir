// Two contractions of odd sizes on small integer-valued inputs (every sum
// exact in f32): A @ B (10x7 times 7x9) and A @ C.T (C as 5x7), so that
// kf-pad-contractions' form must print the same values as the original
// (pad-contractions-cpu.test).
func.func @ref(%a: tensor<10x7xf32>, %b: tensor<7x9xf32>, %c: tensor<5x7xf32>) -> (tensor<10x9xf32>, tensor<10x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<10x9xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<10x9xf32>) -> tensor<10x9xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x9xf32>) outs(%f0 : tensor<10x9xf32>) -> tensor<10x9xf32>
  %e1 = tensor.empty() : tensor<10x5xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<10x5xf32>) -> tensor<10x5xf32>
  %act = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%a, %c : tensor<10x7xf32>, tensor<5x7xf32>) outs(%f1 : tensor<10x5xf32>) -> tensor<10x5xf32>
  return %ab, %act : tensor<10x9xf32>, tensor<10x5xf32>
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
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %ae = tensor.empty(%c10, %c7) : tensor<?x?xf32>
  %ad = func.call @pattern2(%ae, %c1, %c2, %c5) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<10x7xf32>
  %be = tensor.empty(%c7, %c9) : tensor<?x?xf32>
  %bd = func.call @pattern2(%be, %c3, %c1, %c7) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<7x9xf32>
  %ce = tensor.empty(%c5, %c7) : tensor<?x?xf32>
  %cd = func.call @pattern2(%ce, %c2, %c3, %c7) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %c = tensor.cast %cd : tensor<?x?xf32> to tensor<5x7xf32>
  %r:2 = func.call @ref(%a, %b, %c) : (tensor<10x7xf32>, tensor<7x9xf32>, tensor<5x7xf32>) -> (tensor<10x9xf32>, tensor<10x5xf32>)
  %m0 = bufferization.to_buffer %r#0 : tensor<10x9xf32> to memref<10x9xf32>
  %u0 = memref.cast %m0 : memref<10x9xf32> to memref<*xf32>
  func.call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %m1 = bufferization.to_buffer %r#1 : tensor<10x5xf32> to memref<10x5xf32>
  %u1 = memref.cast %m1 : memref<10x5xf32> to memref<*xf32>
  func.call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  return
}
