// A transposed 2-D convolution with a bias, ConvTranspose2d(8, 64, 3,
// stride=2, padding=1, output_padding=1) on 2x8x8x8, written as
// bench/suite/nn.py writes it (conv-transpose-gemm.test): a gather
// inserting zeros, a flipped weight, and a stride-1 convolution. Its GEMM
// splits into 4 stride phases of M = 64 filters, K = 8 * 2 * 2 = 32 taps,
// N = 2 * 8 * 8 = 128 pixels.
kf.problem @conv_transpose2d_bias reference(@conv_transpose2d_bias_ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.uniform<-0.1, 0.1>, #kf.uniform<-0.1, 0.1>])
    tolerance(<atol = 0.0001, rtol = 0.0001>)

func.func @conv_transpose2d_bias_ref(%x: tensor<2x8x8x8xf32>, %w: tensor<8x64x3x3xf32>, %b: tensor<64xf32>) -> tensor<2x64x16x16xf32> {
  %v1 = tensor.empty() : tensor<2x8x18x18xf32>
  %v41 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%v1 : tensor<2x8x18x18xf32>) {
  ^bb0(%v2: f32):
    %v3 = linalg.index 0 : index
    %v4 = linalg.index 1 : index
    %v5 = linalg.index 2 : index
    %v6 = linalg.index 3 : index
    %v7 = arith.constant 1 : index
    %v8 = arith.subi %v5, %v7 : index
    %v9 = arith.constant 2 : index
    %v10 = arith.remsi %v8, %v9 : index
    %v11 = arith.constant 0 : index
    %v12 = arith.cmpi eq, %v10, %v11 : index
    %v13 = arith.divsi %v8, %v9 : index
    %v14 = arith.constant 0 : index
    %v15 = arith.constant 7 : index
    %v16 = arith.cmpi sge, %v13, %v14 : index
    %v17 = arith.cmpi sle, %v13, %v15 : index
    %v18 = arith.maxsi %v13, %v14 : index
    %v19 = arith.minsi %v18, %v15 : index
    %v20 = arith.constant 1 : index
    %v21 = arith.subi %v6, %v20 : index
    %v22 = arith.constant 2 : index
    %v23 = arith.remsi %v21, %v22 : index
    %v24 = arith.constant 0 : index
    %v25 = arith.cmpi eq, %v23, %v24 : index
    %v26 = arith.divsi %v21, %v22 : index
    %v27 = arith.constant 0 : index
    %v28 = arith.constant 7 : index
    %v29 = arith.cmpi sge, %v26, %v27 : index
    %v30 = arith.cmpi sle, %v26, %v28 : index
    %v31 = arith.maxsi %v26, %v27 : index
    %v32 = arith.minsi %v31, %v28 : index
    %v33 = tensor.extract %x[%v3, %v4, %v19, %v32] : tensor<2x8x8x8xf32>
    %v34 = arith.andi %v12, %v16 : i1
    %v35 = arith.andi %v34, %v17 : i1
    %v36 = arith.andi %v35, %v25 : i1
    %v37 = arith.andi %v36, %v29 : i1
    %v38 = arith.andi %v37, %v30 : i1
    %v39 = arith.constant 0.0 : f32
    %v40 = arith.select %v38, %v33, %v39 : f32
    linalg.yield %v40 : f32
  } -> tensor<2x8x18x18xf32>
  %v42 = tensor.empty() : tensor<64x8x3x3xf32>
  %v45 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (j, i, 2 - k, 2 - l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<8x64x3x3xf32>)
      outs(%v42 : tensor<64x8x3x3xf32>) {
  ^bb0(%v43: f32, %v44: f32):
    linalg.yield %v43 : f32
  } -> tensor<64x8x3x3xf32>
  %v46 = tensor.empty() : tensor<2x64x16x16xf32>
  %v49 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (j)>, affine_map<(i, j, k, l) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<64xf32>)
      outs(%v46 : tensor<2x64x16x16xf32>) {
  ^bb0(%v47: f32, %v48: f32):
    linalg.yield %v47 : f32
  } -> tensor<2x64x16x16xf32>
  %v50 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%v41, %v45 : tensor<2x8x18x18xf32>, tensor<64x8x3x3xf32>) outs(%v49 : tensor<2x64x16x16xf32>) -> tensor<2x64x16x16xf32>
  return %v50 : tensor<2x64x16x16xf32>
}

