// RUN: kf-opt %s -split-input-file -kf-unroll-elementwise-rows | FileCheck %s

// An epilogue on a 2 x 4 accumulator tile, stored row by row: each row's
// chain (bias add, scale, tanh) comes right before that row's store.
// CHECK-LABEL: func.func @epilogue_rows
// CHECK-SAME: (%[[ACC:.*]]: vector<2x4xf32>, %[[BIAS:.*]]: vector<4xf32>, %[[OUT:.*]]: memref<2x4xf32>)
// CHECK: %[[A0:.*]] = vector.extract %[[ACC]][0] : vector<4xf32> from vector<2x4xf32>
// CHECK: %[[B0:.*]] = arith.addf %[[A0]], %[[BIAS]] : vector<4xf32>
// CHECK: %[[S0:.*]] = arith.mulf %[[B0]], %{{.*}} : vector<4xf32>
// CHECK: %[[T0:.*]] = math.tanh %[[S0]] : vector<4xf32>
// CHECK: vector.store %[[T0]], %[[OUT]]
// CHECK: %[[A1:.*]] = vector.extract %[[ACC]][1] : vector<4xf32> from vector<2x4xf32>
// CHECK: %[[B1:.*]] = arith.addf %[[A1]], %[[BIAS]] : vector<4xf32>
// CHECK: %[[S1:.*]] = arith.mulf %[[B1]], %{{.*}} : vector<4xf32>
// CHECK: %[[T1:.*]] = math.tanh %[[S1]] : vector<4xf32>
// CHECK: vector.store %[[T1]], %[[OUT]]
// CHECK-NOT: vector<2x4xf32>
// CHECK: return
func.func @epilogue_rows(%acc: vector<2x4xf32>, %bias: vector<4xf32>, %out: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scale = arith.constant dense<0.5> : vector<2x4xf32>
  %b = vector.broadcast %bias : vector<4xf32> to vector<2x4xf32>
  %0 = arith.addf %acc, %b : vector<2x4xf32>
  %1 = arith.mulf %0, %scale : vector<2x4xf32>
  %2 = math.tanh %1 : vector<2x4xf32>
  %r0 = vector.extract %2[0] : vector<4xf32> from vector<2x4xf32>
  vector.store %r0, %out[%c0, %c0] : memref<2x4xf32>, vector<4xf32>
  %r1 = vector.extract %2[1] : vector<4xf32> from vector<2x4xf32>
  vector.store %r1, %out[%c1, %c0] : memref<2x4xf32>, vector<4xf32>
  return
}

// -----

// Element extracts read the row's element; rows of a rank-3 vector are
// along its last dimension, in row-major order.
// CHECK-LABEL: func.func @element_extracts
// CHECK: %[[R:.*]] = vector.extract %{{.*}}[1, 0] : vector<2xf32> from vector<2x2x2xf32>
// CHECK: %[[E:.*]] = math.exp %[[R]] : vector<2xf32>
// CHECK: %[[N:.*]] = arith.negf %[[E]] : vector<2xf32>
// CHECK: %[[X:.*]] = vector.extract %[[N]][1] : f32 from vector<2xf32>
// CHECK: return %[[X]]
func.func @element_extracts(%v: vector<2x2x2xf32>) -> f32 {
  %0 = math.exp %v : vector<2x2x2xf32>
  %1 = arith.negf %0 : vector<2x2x2xf32>
  %x = vector.extract %1[1, 0, 1] : f32 from vector<2x2x2xf32>
  return %x : f32
}

// -----

// A result stored whole keeps its op; the row extract of the other result
// still reads a row.
// CHECK-LABEL: func.func @whole_use
// CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<2x4xf32>
// CHECK: vector.transfer_write %[[M]]
// CHECK: %[[R:.*]] = vector.extract %[[M]][1] : vector<4xf32> from vector<2x4xf32>
// CHECK: %[[E:.*]] = math.exp %[[R]] : vector<4xf32>
// CHECK: return %[[E]]
func.func @whole_use(%a: vector<2x4xf32>, %out: memref<2x4xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = arith.mulf %a, %a : vector<2x4xf32>
  vector.transfer_write %0, %out[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<2x4xf32>
  %1 = math.exp %0 : vector<2x4xf32>
  %r = vector.extract %1[1] : vector<4xf32> from vector<2x4xf32>
  return %r : vector<4xf32>
}

// -----

// One row, 1-D vectors and a lone op are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: arith.addf %{{.*}} : vector<1x4xf32>
// CHECK: math.exp %{{.*}} : vector<1x4xf32>
// CHECK: arith.mulf %{{.*}} : vector<4xf32>
// CHECK: math.exp %{{.*}} : vector<4xf32>
// CHECK: math.exp %{{.*}} : vector<2x4xf32>
func.func @left_alone(%a: vector<1x4xf32>, %b: vector<4xf32>, %c: vector<2x4xf32>) -> (vector<1x4xf32>, vector<4xf32>, vector<2x4xf32>) {
  %0 = arith.addf %a, %a : vector<1x4xf32>
  %1 = math.exp %0 : vector<1x4xf32>
  %2 = arith.mulf %b, %b : vector<4xf32>
  %3 = math.exp %2 : vector<4xf32>
  %4 = math.exp %c : vector<2x4xf32>
  return %1, %3, %4 : vector<1x4xf32>, vector<4xf32>, vector<2x4xf32>
}
