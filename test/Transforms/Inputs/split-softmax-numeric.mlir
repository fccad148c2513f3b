// A softmax over rows of 8 (kf-fuse-elementwise's form: the max, the sum of
// exp(x - max), the division), for split-softmax-statistics-cpu.test. Row 0
// is constant (every output 1/8), row 1 starts with a chunk of -inf (whose
// outputs are 0 and whose chunk adds nothing to the sum: 1/6 elsewhere),
// row 2 rises by ln 2 per element (outputs 2^j / 255, the last chunk
// holding the max).
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @ref(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [#id, #row],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x8xf32>) outs(%mi : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<3x8xf32>, tensor<3xf32>) outs(%si : tensor<3xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %x1 = math.exp %d : f32
    %s = arith.addf %x1, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %oe = tensor.empty() : tensor<3x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<3x8xf32>, tensor<3xf32>, tensor<3xf32>)
      outs(%oe : tensor<3x8xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x1 = math.exp %d : f32
    %q = arith.divf %x1, %s : f32
    linalg.yield %q : f32
  } -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %x = arith.constant dense<[
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
    [0xFF800000, 0xFF800000, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    [0.0, 0.693147182, 1.38629436, 2.07944155, 2.77258873, 3.46573591,
     4.15888309, 4.85203028]]> : tensor<3x8xf32>
  %r = func.call @ref(%x) : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %m = bufferization.to_buffer %r : tensor<3x8xf32> to memref<3x8xf32>
  %u = memref.cast %m : memref<3x8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
