// Convolutions on small integer-valued inputs: every partial sum is exact
// in f32, so their im2col-and-GEMM form (kf-convolution-to-gemm) must print
// the same values as the named ops (convolution-to-gemm-cpu.test). The 2-D
// one is strided and dilated, with a bias as its initial value; the 3-D
// one has a zero-filled output; both are padded to the GEMM's tiles. The
// transposed ones (written as bench/suite/nn.py writes them: a gather that
// inserts zeros, then a stride-1 convolution) are split into stride
// phases: a 2-D one with strides (2, 3), dilation (2, 1), padding,
// output padding and a bias, and a 3-D one with stride 2 and padding 1.
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

func.func @conv_transpose2d(%x: tensor<2x3x4x5xf32>, %w: tensor<3x4x3x2xf32>, %b: tensor<4xf32>) -> tensor<2x4x10x16xf32> {
  %v1 = tensor.empty() : tensor<2x3x14x17xf32>
  %v41 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%v1 : tensor<2x3x14x17xf32>) {
  ^bb0(%v2: f32):
    %v3 = linalg.index 0 : index
    %v4 = linalg.index 1 : index
    %v5 = linalg.index 2 : index
    %v6 = linalg.index 3 : index
    %v7 = arith.constant 3 : index
    %v8 = arith.subi %v5, %v7 : index
    %v9 = arith.constant 2 : index
    %v10 = arith.remsi %v8, %v9 : index
    %v11 = arith.constant 0 : index
    %v12 = arith.cmpi eq, %v10, %v11 : index
    %v13 = arith.divsi %v8, %v9 : index
    %v14 = arith.constant 0 : index
    %v15 = arith.constant 3 : index
    %v16 = arith.cmpi sge, %v13, %v14 : index
    %v17 = arith.cmpi sle, %v13, %v15 : index
    %v18 = arith.maxsi %v13, %v14 : index
    %v19 = arith.minsi %v18, %v15 : index
    %v20 = arith.constant 1 : index
    %v21 = arith.subi %v6, %v20 : index
    %v22 = arith.constant 3 : index
    %v23 = arith.remsi %v21, %v22 : index
    %v24 = arith.constant 0 : index
    %v25 = arith.cmpi eq, %v23, %v24 : index
    %v26 = arith.divsi %v21, %v22 : index
    %v27 = arith.constant 0 : index
    %v28 = arith.constant 4 : index
    %v29 = arith.cmpi sge, %v26, %v27 : index
    %v30 = arith.cmpi sle, %v26, %v28 : index
    %v31 = arith.maxsi %v26, %v27 : index
    %v32 = arith.minsi %v31, %v28 : index
    %v33 = tensor.extract %x[%v3, %v4, %v19, %v32] : tensor<2x3x4x5xf32>
    %v34 = arith.andi %v12, %v16 : i1
    %v35 = arith.andi %v34, %v17 : i1
    %v36 = arith.andi %v35, %v25 : i1
    %v37 = arith.andi %v36, %v29 : i1
    %v38 = arith.andi %v37, %v30 : i1
    %v39 = arith.constant 0.0 : f32
    %v40 = arith.select %v38, %v33, %v39 : f32
    linalg.yield %v40 : f32
  } -> tensor<2x3x14x17xf32>
  %v42 = tensor.empty() : tensor<4x3x3x2xf32>
  %v45 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (j, i, 2 - k, 1 - l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<3x4x3x2xf32>)
      outs(%v42 : tensor<4x3x3x2xf32>) {
  ^bb0(%v43: f32, %v44: f32):
    linalg.yield %v43 : f32
  } -> tensor<4x3x3x2xf32>
  %v46 = tensor.empty() : tensor<2x4x10x16xf32>
  %v49 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (j)>, affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<4xf32>)
      outs(%v46 : tensor<2x4x10x16xf32>) {
  ^bb0(%v47: f32, %v48: f32):
    linalg.yield %v47 : f32
  } -> tensor<2x4x10x16xf32>
  %v50 = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%v41, %v45 : tensor<2x3x14x17xf32>, tensor<4x3x3x2xf32>) outs(%v49 : tensor<2x4x10x16xf32>) -> tensor<2x4x10x16xf32>
  return %v50 : tensor<2x4x10x16xf32>
}

func.func @conv_transpose3d(%x: tensor<1x2x3x2x3xf32>, %w: tensor<2x3x3x3x2xf32>) -> tensor<1x3x5x3x4xf32> {
  %v1 = tensor.empty() : tensor<1x2x7x5x5xf32>
  %v56 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l, m) -> (i, j, k, l, m)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%v1 : tensor<1x2x7x5x5xf32>) {
  ^bb0(%v2: f32):
    %v3 = linalg.index 0 : index
    %v4 = linalg.index 1 : index
    %v5 = linalg.index 2 : index
    %v6 = linalg.index 3 : index
    %v7 = linalg.index 4 : index
    %v8 = arith.constant 1 : index
    %v9 = arith.subi %v5, %v8 : index
    %v10 = arith.constant 2 : index
    %v11 = arith.remsi %v9, %v10 : index
    %v12 = arith.constant 0 : index
    %v13 = arith.cmpi eq, %v11, %v12 : index
    %v14 = arith.divsi %v9, %v10 : index
    %v15 = arith.constant 0 : index
    %v16 = arith.constant 2 : index
    %v17 = arith.cmpi sge, %v14, %v15 : index
    %v18 = arith.cmpi sle, %v14, %v16 : index
    %v19 = arith.maxsi %v14, %v15 : index
    %v20 = arith.minsi %v19, %v16 : index
    %v21 = arith.constant 1 : index
    %v22 = arith.subi %v6, %v21 : index
    %v23 = arith.constant 2 : index
    %v24 = arith.remsi %v22, %v23 : index
    %v25 = arith.constant 0 : index
    %v26 = arith.cmpi eq, %v24, %v25 : index
    %v27 = arith.divsi %v22, %v23 : index
    %v28 = arith.constant 0 : index
    %v29 = arith.constant 1 : index
    %v30 = arith.cmpi sge, %v27, %v28 : index
    %v31 = arith.cmpi sle, %v27, %v29 : index
    %v32 = arith.maxsi %v27, %v28 : index
    %v33 = arith.minsi %v32, %v29 : index
    %v34 = arith.constant 2 : index
    %v35 = arith.remsi %v7, %v34 : index
    %v36 = arith.constant 0 : index
    %v37 = arith.cmpi eq, %v35, %v36 : index
    %v38 = arith.divsi %v7, %v34 : index
    %v39 = arith.constant 0 : index
    %v40 = arith.constant 2 : index
    %v41 = arith.cmpi sge, %v38, %v39 : index
    %v42 = arith.cmpi sle, %v38, %v40 : index
    %v43 = arith.maxsi %v38, %v39 : index
    %v44 = arith.minsi %v43, %v40 : index
    %v45 = tensor.extract %x[%v3, %v4, %v20, %v33, %v44] : tensor<1x2x3x2x3xf32>
    %v46 = arith.andi %v13, %v17 : i1
    %v47 = arith.andi %v46, %v18 : i1
    %v48 = arith.andi %v47, %v26 : i1
    %v49 = arith.andi %v48, %v30 : i1
    %v50 = arith.andi %v49, %v31 : i1
    %v51 = arith.andi %v50, %v37 : i1
    %v52 = arith.andi %v51, %v41 : i1
    %v53 = arith.andi %v52, %v42 : i1
    %v54 = arith.constant 0.0 : f32
    %v55 = arith.select %v53, %v45, %v54 : f32
    linalg.yield %v55 : f32
  } -> tensor<1x2x7x5x5xf32>
  %v57 = tensor.empty() : tensor<3x2x3x3x2xf32>
  %v60 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l, m) -> (j, i, 2 - k, 2 - l, 1 - m)>, affine_map<(i, j, k, l, m) -> (i, j, k, l, m)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<2x3x3x3x2xf32>)
      outs(%v57 : tensor<3x2x3x3x2xf32>) {
  ^bb0(%v58: f32, %v59: f32):
    linalg.yield %v58 : f32
  } -> tensor<3x2x3x3x2xf32>
  %v61 = arith.constant 0.0 : f32
  %v62 = tensor.empty() : tensor<1x3x5x3x4xf32>
  %v63 = linalg.fill ins(%v61 : f32) outs(%v62 : tensor<1x3x5x3x4xf32>) -> tensor<1x3x5x3x4xf32>
  %v64 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<[1, 1, 1]> : tensor<3xi64>, strides = dense<[1, 1, 1]> : tensor<3xi64>} ins(%v56, %v60 : tensor<1x2x7x5x5xf32>, tensor<3x2x3x3x2xf32>) outs(%v63 : tensor<1x3x5x3x4xf32>) -> tensor<1x3x5x3x4xf32>
  return %v64 : tensor<1x3x5x3x4xf32>
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
  %n120 = arith.constant 120 : index
  %n36 = arith.constant 36 : index
  %n108 = arith.constant 108 : index
  %c4 = arith.constant 4 : index
  %te = tensor.empty(%n120) : tensor<?xf32>
  %td = func.call @pattern(%te, %c7, %c11) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %ts = tensor.cast %td : tensor<?xf32> to tensor<120xf32>
  %t = tensor.expand_shape %ts [[0, 1, 2, 3]] output_shape [2, 3, 4, 5] : tensor<120xf32> into tensor<2x3x4x5xf32>
  %tw = tensor.extract_slice %ws[0] [72] [1] : tensor<90xf32> to tensor<72xf32>
  %tk = tensor.expand_shape %tw [[0, 1, 2, 3]] output_shape [3, 4, 3, 2] : tensor<72xf32> into tensor<3x4x3x2xf32>
  %tb = tensor.extract_slice %b[0] [4] [1] : tensor<5xf32> to tensor<4xf32>
  %ty = func.call @conv_transpose2d(%t, %tk, %tb) : (tensor<2x3x4x5xf32>, tensor<3x4x3x2xf32>, tensor<4xf32>) -> tensor<2x4x10x16xf32>
  %tym = bufferization.to_buffer %ty : tensor<2x4x10x16xf32> to memref<2x4x10x16xf32>
  %tyu = memref.cast %tym : memref<2x4x10x16xf32> to memref<*xf32>
  func.call @printMemrefF32(%tyu) : (memref<*xf32>) -> ()

  %se = tensor.empty(%n36) : tensor<?xf32>
  %sd = func.call @pattern(%se, %c5, %c13) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %ss = tensor.cast %sd : tensor<?xf32> to tensor<36xf32>
  %sx = tensor.expand_shape %ss [[0, 1, 2, 3, 4]] output_shape [1, 2, 3, 2, 3] : tensor<36xf32> into tensor<1x2x3x2x3xf32>
  %ske = tensor.empty(%n108) : tensor<?xf32>
  %skd = func.call @pattern(%ske, %c11, %c4) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  %sks = tensor.cast %skd : tensor<?xf32> to tensor<108xf32>
  %sk = tensor.expand_shape %sks [[0, 1, 2, 3, 4]] output_shape [2, 3, 3, 3, 2] : tensor<108xf32> into tensor<2x3x3x3x2xf32>
  %sy = func.call @conv_transpose3d(%sx, %sk) : (tensor<1x2x3x2x3xf32>, tensor<2x3x3x3x2xf32>) -> tensor<1x3x5x3x4xf32>
  %sym = bufferization.to_buffer %sy : tensor<1x3x5x3x4xf32> to memref<1x3x5x3x4xf32>
  %syu = memref.cast %sym : memref<1x3x5x3x4xf32> to memref<*xf32>
  func.call @printMemrefF32(%syu) : (memref<*xf32>) -> ()
  return
}
