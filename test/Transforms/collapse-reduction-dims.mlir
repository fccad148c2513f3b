// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-collapse-reduction-dims))' | FileCheck %s

// Three adjacent reduction dimensions become one.
// CHECK-LABEL: func.func @three_reduction_dims
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<4x8x16x16xf32> into tensor<4x2048xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
func.func @three_reduction_dims(%x: tensor<4x8x16x16xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// Reduction dimensions that an operand does not keep adjacent (a
// transposed read) are left alone.
// CHECK-LABEL: func.func @transposed_reduction_dims
// CHECK-NOT: tensor.collapse_shape
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
func.func @transposed_reduction_dims(%x: tensor<4x8x16xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(n, a, b) -> (n, b, a)>, affine_map<(n, a, b) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// Batch norm's sum over (n, h, w) with the loops ordered (c, n, h, w): the
// input keeps h and w adjacent but not n, so only [h, w] collapses.
// CHECK-LABEL: func.func @partly_adjacent_reduction_dims
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<4x8x16x16xf32> into tensor<4x8x256xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
func.func @partly_adjacent_reduction_dims(%x: tensor<4x8x16x16xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(c, n, h, w) -> (n, c, h, w)>, affine_map<(c, n, h, w) -> (c)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// Regression: a pooling window (h * 2 + kh) is not a projected permutation;
// collapsing its window loops gave an op that failed to verify.
// CHECK-LABEL: func.func @pooling_window
// CHECK-NOT: tensor.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @pooling_window(%x: tensor<8x8xf32>, %window: tensor<2x2xf32>, %init: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j, kh, kw) -> (i * 2 + kh, j * 2 + kw)>, affine_map<(i, j, kh, kw) -> (kh, kw)>, affine_map<(i, j, kh, kw) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : tensor<8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<4x4xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %sum : tensor<4x4xf32>
}
