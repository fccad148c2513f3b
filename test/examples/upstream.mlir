// kf-opt accepts any valid MLIR of the registered dialects, as mlir-opt does,
// and runs upstream passes on it.
// RUN: kf-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @fold
// CHECK: %[[C:.*]] = arith.constant 5 : i32
// CHECK: return %[[C]]
func.func @fold() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  gpu.func @k(%p: memref<4xf32>) kernel {
    %tid = gpu.thread_id x
    %v = memref.load %p[%tid] : memref<4xf32>
    memref.store %v, %p[%tid] : memref<4xf32>
    gpu.return
  }
}
