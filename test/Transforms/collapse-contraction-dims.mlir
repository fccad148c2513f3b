// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-collapse-contraction-dims))' | FileCheck %s

// A 4-D tensor times a matrix (Level 1 problem 11, smaller): the three M
// loops become one; the fill follows the reshape, so that the contraction
// is still zeroed by a fill of its own.
// CHECK-LABEL: func.func @tensor_times_matrix
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8x16xf32>, %[[B:.*]]: tensor<16x32xf32>)
// The output is a tensor.empty of the collapsed shape, not a view of a 4-D
// one: the GEMM kernel then writes its own buffer, and its accumulators
// are hoisted out of the K loop.
// CHECK-DAG: %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2], [3]] : tensor<2x4x8x16xf32> into tensor<64x16xf32>
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<64x32xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<64x32xf32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[A2]], %[[B]] : tensor<64x16xf32>, tensor<16x32xf32>) outs(%[[FILL]] : tensor<64x32xf32>)
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0, 1, 2], [3]] output_shape [2, 4, 8, 32] : tensor<64x32xf32> into tensor<2x4x8x32xf32>
func.func @tensor_times_matrix(%a: tensor<2x4x8x16xf32>, %b: tensor<16x32xf32>) -> tensor<2x4x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x4x8x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x4x8x32xf32>) -> tensor<2x4x8x32xf32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l, m) -> (i, j, k, m)>, affine_map<(i, j, k, l, m) -> (m, l)>, affine_map<(i, j, k, l, m) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x4x8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<2x4x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x32xf32>
  return %c : tensor<2x4x8x32xf32>
}

// -----

// A batch matmul: the batch loop is in every operand, not an M loop, and
// M and N are one loop each: nothing to collapse.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.batch_matmul
func.func @batch_matmul(%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>) -> tensor<4x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%fill : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %c : tensor<4x8x32xf32>
}

// -----

// Two M loops that the output keeps apart in the other order: no single
// M loop reads both operands and writes the output contiguously.
// CHECK-LABEL: func.func @m_loops_permuted_in_output
// CHECK-NOT: tensor.collapse_shape
func.func @m_loops_permuted_in_output(%a: tensor<4x8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4x32xf32>) -> tensor<8x4x32xf32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(i, j, l, m) -> (i, j, m)>, affine_map<(i, j, l, m) -> (m, l)>, affine_map<(i, j, l, m) -> (j, i, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4x32xf32>
  return %c : tensor<8x4x32xf32>
}

// -----

// Not a contraction (an elementwise op with several parallel loops): left
// alone.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: tensor.collapse_shape
func.func @elementwise(%a: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Attention's scores (Level 1 problem 97, smaller): Q K^T with a batch and a
// head loop, adjacent and in order in Q, K and the output: one batch loop,
// which the GEMM kernel maps over the grid's z (it takes at most one).
// CHECK-LABEL: func.func @two_batch_loops
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3x8x16xf32>, %[[K:.*]]: tensor<2x3x8x16xf32>)
// CHECK-DAG: %[[Q2:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK-DAG: %[[K2:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[Q2]], %[[K2]] : tensor<6x8x16xf32>, tensor<6x8x16xf32>) outs(%{{.*}} : tensor<6x8x8xf32>)
// CHECK: tensor.expand_shape %[[S]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 8, 8] : tensor<6x8x8xf32> into tensor<2x3x8x8xf32>
func.func @two_batch_loops(%q: tensor<2x3x8x16xf32>, %k: tensor<2x3x8x16xf32>) -> tensor<2x3x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x3x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %s = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l, m) -> (i, j, k, m)>, affine_map<(i, j, k, l, m) -> (i, j, l, m)>, affine_map<(i, j, k, l, m) -> (i, j, k, l)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x8x16xf32>, tensor<2x3x8x16xf32>) outs(%fill : tensor<2x3x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %a = arith.addf %acc, %p : f32
    linalg.yield %a : f32
  } -> tensor<2x3x8x8xf32>
  return %s : tensor<2x3x8x8xf32>
}
