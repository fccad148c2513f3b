// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-decompose-reductions{min-inner-range=64}))' | FileCheck %s

// Batch norm's sum over (n, h*w), loops ordered (c, n, hw): a partial sum
// per channel and sample over hw, then a sum over the samples into the
// original output (whose initial value still counts).
// CHECK-LABEL: func.func @batch_norm_sum
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x256xf32>, %[[INIT:.*]]: tensor<8xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<8x4xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<4x8x256xf32>) outs(%[[FILL]] : tensor<8x4xf32>)
// CHECK: arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[PARTIAL]] : tensor<8x4xf32>) outs(%[[INIT]] : tensor<8xf32>)
// CHECK: ^bb0(%[[P:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[ADD:.*]] = arith.addf %[[P]], %[[ACC]] : f32
// CHECK: linalg.yield %[[ADD]]
// CHECK: return %[[SUM]]
func.func @batch_norm_sum(%x: tensor<4x8x256xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(c, n, hw) -> (n, c, hw)>, affine_map<(c, n, hw) -> (c)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x256xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// A maximum with the elementwise work in its body kept in the partial op;
// the combining op only takes the maximum. Its neutral element is -inf.
// CHECK-LABEL: func.func @max_of_squares
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-NOT: arith.mulf
// CHECK: arith.maximumf
func.func @max_of_squares(%x: tensor<2x3x5x128xf32>, %init: tensor<5xf32>) -> tensor<5xf32> {
  %max = linalg.generic {
      indexing_maps = [affine_map<(c, a, b, k) -> (a, b, c, k)>, affine_map<(c, a, b, k) -> (c)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<2x3x5x128xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %m = arith.maximumf %sq, %acc : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  return %max : tensor<5xf32>
}

// -----

// Left alone: a short innermost reduction loop (a convolution's kw), whose
// partial results would be as large as the input.
// CHECK-LABEL: func.func @short_inner_loop
// CHECK-NOT: linalg.fill
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-NOT: linalg.generic
func.func @short_inner_loop(%x: tensor<8x128x3xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, c, k) -> (i, c, k)>, affine_map<(i, c, k) -> (i)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x128x3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// Left alone: the accumulator is used twice (not a single combiner).
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: linalg.fill
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
func.func @not_a_combiner(%x: tensor<8x4x128xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, a, k) -> (i, a, k)>, affine_map<(i, a, k) -> (i)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x4x128xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    %t = arith.mulf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Left alone: a single reduction loop needs no decomposition.
// CHECK-LABEL: func.func @one_reduction_loop
// CHECK-NOT: linalg.fill
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @one_reduction_loop(%x: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// Left alone: an integer sum (reassociating it could overflow where the
// original order did not).
// CHECK-LABEL: func.func @integer_sum
// CHECK-NOT: linalg.fill
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
func.func @integer_sum(%x: tensor<8x4x128xi32>, %init: tensor<8xi32>) -> tensor<8xi32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, a, k) -> (i, a, k)>, affine_map<(i, a, k) -> (i)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x4x128xi32>) outs(%init : tensor<8xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %s = arith.addi %in, %acc overflow<nsw> : i32
    linalg.yield %s : i32
  } -> tensor<8xi32>
  return %sum : tensor<8xi32>
}
