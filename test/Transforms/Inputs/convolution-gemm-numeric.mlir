// Convolutions on small integer-valued inputs: every partial sum is exact
// in f32, so their im2col-and-GEMM form (kf-convolution-to-gemm) must print
// the same values as the named ops (convolution-to-gemm-cpu.test). The 2-D
// one is strided and dilated, with a bias as its initial value; the 3-D
// one has a zero-filled output; both are padded to the GEMM's tiles.
func.func @conv2d(%x: tensor<2x3x9x10xf32>, %w: tensor<5x3x3x2xf32>, %b: tensor<5xf32>) -> tensor<2x5x4x8xf32> {
  %e = tensor.empty() : tensor<2x5x4x8xf32>
  %init = linalg.generic {
      indexing_maps = [affine_map<(n, f, p, q) -> (f)>, affine_map<(n, f, p, q) -> (n, f, p, q)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<5xf32>) outs(%e : tensor<2x5x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x5x4x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x9x10xf32>, tensor<5x3x3x2xf32>) outs(%init : tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
  return %y : tensor<2x5x4x8xf32>
}

func.func @conv3d(%x: tensor<1x2x4x5x6xf32>, %w: tensor<3x2x2x2x3xf32>) -> tensor<1x3x3x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x4x4xf32>) -> tensor<1x3x3x4x4xf32>
  %y = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%x, %w : tensor<1x2x4x5x6xf32>, tensor<3x2x2x2x3xf32>) outs(%init : tensor<1x3x3x4x4xf32>) -> tensor<1x3x3x4x4xf32>
  return %y : tensor<1x3x3x4x4xf32>
}

// value = ((a * i + c * (flat index of the rest)) mod m) - m / 2, as f32.
func.func private @pattern(%out: tensor<?xf32>, %a: index, %m: index) -> tensor<?xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%out : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ai = arith.muli %a, %i : index
    %mod = arith.remui %ai, %m : index
    %two = arith.constant 2 : index
    %half = arith.divui %m, %two : index
    %v = arith.subi %mod, %half : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.sitofp %vi : i64 to f32
    linalg.yield %vf : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %n540 = arith.constant 540 : index
  %n90 = arith.constant 90 : index
  %n240 = arith.constant 240 : index
  %n72 = arith.constant 72 : index

  %xe = tensor.empty(%n540) : tensor<?xf32>
  %xd = func.call @pattern(%xe, %c7, %c11) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %xs = tensor.cast %xd : tensor<?xf32> to tensor<540xf32>
  %x = tensor.expand_shape %xs [[0, 1, 2, 3]] output_shape [2, 3, 9, 10] : tensor<540xf32> into tensor<2x3x9x10xf32>
  %we = tensor.empty(%n90) : tensor<?xf32>
  %wd = func.call @pattern(%we, %c5, %c7) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %ws = tensor.cast %wd : tensor<?xf32> to tensor<90xf32>
  %w = tensor.expand_shape %ws [[0, 1, 2, 3]] output_shape [5, 3, 3, 2] : tensor<90xf32> into tensor<5x3x3x2xf32>
  %be = tensor.empty(%c5) : tensor<?xf32>
  %bd = func.call @pattern(%be, %c3, %c5) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<5xf32>
  %y = func.call @conv2d(%x, %w, %b) : (tensor<2x3x9x10xf32>, tensor<5x3x3x2xf32>, tensor<5xf32>) -> tensor<2x5x4x8xf32>
  %ym = bufferization.to_buffer %y : tensor<2x5x4x8xf32> to memref<2x5x4x8xf32>
  %yu = memref.cast %ym : memref<2x5x4x8xf32> to memref<*xf32>
  func.call @printMemrefF32(%yu) : (memref<*xf32>) -> ()

  %ue = tensor.empty(%n240) : tensor<?xf32>
  %ud = func.call @pattern(%ue, %c13, %c7) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %us = tensor.cast %ud : tensor<?xf32> to tensor<240xf32>
  %u = tensor.expand_shape %us [[0, 1, 2, 3, 4]] output_shape [1, 2, 4, 5, 6] : tensor<240xf32> into tensor<1x2x4x5x6xf32>
  %ve = tensor.empty(%n72) : tensor<?xf32>
  %vd = func.call @pattern(%ve, %c3, %c5) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %vs = tensor.cast %vd : tensor<?xf32> to tensor<72xf32>
  %v = tensor.expand_shape %vs [[0, 1, 2, 3, 4]] output_shape [3, 2, 2, 2, 3] : tensor<72xf32> into tensor<3x2x2x2x3xf32>
  %z = func.call @conv3d(%u, %v) : (tensor<1x2x4x5x6xf32>, tensor<3x2x2x2x3xf32>) -> tensor<1x3x3x4x4xf32>
  %zm = bufferization.to_buffer %z : tensor<1x3x3x4x4xf32> to memref<1x3x3x4x4xf32>
  %zu = memref.cast %zm : memref<1x3x3x4x4xf32> to memref<*xf32>
  func.call @printMemrefF32(%zu) : (memref<*xf32>) -> ()
  return
}
