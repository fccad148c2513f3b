// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-widen-accumulators))' | FileCheck %s

// A sum: the initial value is extended, the add runs in f64, the result is
// truncated for its users.
// CHECK-LABEL: func.func @sum
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<8xf64>)
// CHECK: %[[IN:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %[[IN]], %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: return %{{.*}} : tensor<8xf32>
func.func @sum(%x: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// The accumulator used twice (not a plain combiner): left alone.
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: f64
func.func @not_a_combiner(%x: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %acc, %acc : f32
    %s = arith.addf %in, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A reduction on memrefs has no result to narrow back: left alone (this
// crashed on the missing result type).
// CHECK-LABEL: func.func @on_memrefs
// CHECK-NOT: f64
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<8xf32>)
func.func @on_memrefs(%x: memref<8x1024xf32>, %acc: memref<8xf32>) {
  linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1024xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%in: f32, %a: f32):
    %s = arith.addf %in, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A dynamically shaped accumulator: the conversions would need the sizes;
// left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: f64
func.func @dynamic(%x: tensor<?x1024xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x1024xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %sum : tensor<?xf32>
}
