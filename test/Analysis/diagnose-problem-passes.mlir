// RUN: kf-opt %s -split-input-file -kf-diagnose -verify-diagnostics

// A row reduction whose rows (1 MiB) do not fit in one block's shared memory,
// on an input larger than L2 (64 MiB): the row maximum must be complete
// before x is read again, so the computation as written reads x twice.
// expected-remark @below {{problem @shift: 33554432 FLOPs, 134217728 compulsory bytes, 201326592 bytes as written, 0.250 FLOP/byte}}
// expected-remark @below {{input #0 (67108864 bytes, more than L2 holds) is read 2 times: reductions too large for one block's shared memory must finish before later uses of it; a one-pass formulation (online softmax, one-pass variance) would save 67108864 bytes}}
kf.problem @shift reference(@ref) tolerance(<atol = 0.0, rtol = 1.0e-06>)
func.func @ref(%x: tensor<64x262144xf32>) -> tensor<64x262144xf32> {
  %neg_inf = arith.constant 0xFF800000 : f32
  %rows = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%neg_inf : f32) outs(%rows : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @below {{fusion opportunity}}
  %max = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x262144xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %empty = tensor.empty() : tensor<64x262144xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<64x262144xf32>, tensor<64xf32>)
      outs(%empty : tensor<64x262144xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<64x262144xf32>
  return %y : tensor<64x262144xf32>
}

// -----

// The same with rows of 4 KiB: a block can keep a row on chip and finish
// the maximum before subtracting, so one pass over x is enough (no remark).
// expected-remark @below {{problem @shift_short_rows: 67108864 FLOPs, 268435456 compulsory bytes, 268435456 bytes as written}}
kf.problem @shift_short_rows reference(@ref) tolerance(<atol = 0.0, rtol = 1.0e-06>)
func.func @ref(%x: tensor<32768x1024xf32>) -> tensor<32768x1024xf32> {
  %neg_inf = arith.constant 0xFF800000 : f32
  %rows = tensor.empty() : tensor<32768xf32>
  %init = linalg.fill ins(%neg_inf : f32) outs(%rows : tensor<32768xf32>) -> tensor<32768xf32>
  // expected-remark @below {{fusion opportunity}}
  %max = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32768x1024xf32>) outs(%init : tensor<32768xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<32768xf32>
  %empty = tensor.empty() : tensor<32768x1024xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<32768x1024xf32>, tensor<32768xf32>)
      outs(%empty : tensor<32768x1024xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<32768x1024xf32>
  return %y : tensor<32768x1024xf32>
}
