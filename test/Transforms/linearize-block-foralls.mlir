// RUN: kf-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(kf-linearize-block-foralls))' | FileCheck %s

// Five tiled loops (batch, channels, depth, row tiles, columns): one forall
// over the grid's x, linear_dim_0 fastest; a tiled loop keeps its lower
// bound and step.
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0) -> (d0 * 4 + 2)>
// CHECK-LABEL: func.func @five_loops
// CHECK: scf.forall (%[[I:.*]]) in (7168) {
// CHECK:   %[[IDX:.*]]:5 = affine.delinearize_index %[[I]] into (8, 16, 14, 4, 1) : index, index, index, index, index
// CHECK:   %[[H:.*]] = affine.apply #[[$ROWS]](%[[IDX]]#3)
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[IDX]]#0, %[[IDX]]#1, %[[IDX]]#2, %[[H]], %[[IDX]]#0]
// CHECK: } {mapping = [#gpu.block<x>]}
func.func @five_loops(%o: memref<8x16x14x30x30xf32>, %v: f32) {
  scf.forall (%n, %c, %d, %h, %w) = (0, 0, 0, 2, 0) to (8, 16, 14, 18, 1) step (1, 1, 1, 4, 1) {
    memref.store %v, %o[%n, %c, %d, %h, %n] : memref<8x16x14x30x30xf32>
  } {mapping = [#gpu.block<linear_dim_4>, #gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return
}

// -----

// The linear dimensions, not the loop order, say which index varies
// fastest.
// CHECK-LABEL: func.func @permuted
// CHECK: scf.forall (%[[I:.*]]) in (6) {
// CHECK:   %[[IDX:.*]]:2 = affine.delinearize_index %[[I]] into (3, 2) : index, index
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[IDX]]#1, %[[IDX]]#0]
// CHECK: } {mapping = [#gpu.block<x>]}
func.func @permuted(%o: memref<2x3xf32>, %v: f32) {
  scf.forall (%i, %j) in (2, 3) {
    memref.store %v, %o[%i, %j] : memref<2x3xf32>
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  return
}

// -----

// Foralls on the grid's x, y and z, and thread foralls, are left alone.
// CHECK-LABEL: func.func @xyz
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 3, 4)
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @xyz(%o: memref<2x3x4xf32>, %v: f32) {
  scf.forall (%i, %j, %k) in (2, 3, 4) {
    scf.forall (%t) in (1) {
      memref.store %v, %o[%i, %j, %k] : memref<2x3x4xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
  return
}

// -----

// Before bufferization the forall still has tensor results: an error, not
// a rewrite that would drop them.
func.func @tensor_results(%t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{a forall of linear block dimensions is linearized after bufferization; this one still has tensor results}}
  %r = scf.forall (%i, %j) in (4, 4) shared_outs(%out = %t) -> tensor<4x4xf32> {
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return %r : tensor<4x4xf32>
}

// -----

// The grid is sized when the kernel is compiled.
func.func @dynamic(%o: memref<?xf32>, %n: index, %v: f32) {
  // expected-error @below {{a forall of linear block dimensions needs static bounds and steps (the grid is sized when the kernel is compiled)}}
  scf.forall (%i) in (%n) {
    memref.store %v, %o[%i] : memref<?xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// More tiles than the grid's x holds.
func.func @too_many(%o: memref<1xf32>, %v: f32) {
  // expected-error @below {{the forall's tiles do not fit the grid's x dimension (2147483647 blocks)}}
  scf.forall (%i, %j) in (65536, 65536) {
    memref.store %v, %o[%i] : memref<1xf32>
  } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return
}
