// Two scans written in blocks of 8 over rows of 64 (see
// fold-blocked-scans-cpu.test): a forward inclusive sum and a reverse
// exclusive one, on small integers (every sum exact in f32).
func.func @forward(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ult, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

func.func @reverse_exclusive(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

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
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %xe = tensor.empty(%c2, %c64) : tensor<?x?xf32>
  %xd = func.call @pattern2(%xe, %c1, %c3, %c7) : (tensor<?x?xf32>, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<2x64xf32>
  %f = func.call @forward(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %fm = bufferization.to_buffer %f : tensor<2x64xf32> to memref<2x64xf32>
  %fu = memref.cast %fm : memref<2x64xf32> to memref<*xf32>
  func.call @printMemrefF32(%fu) : (memref<*xf32>) -> ()
  %r = func.call @reverse_exclusive(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %rm = bufferization.to_buffer %r : tensor<2x64xf32> to memref<2x64xf32>
  %ru = memref.cast %rm : memref<2x64xf32> to memref<*xf32>
  func.call @printMemrefF32(%ru) : (memref<*xf32>) -> ()
  return
}
