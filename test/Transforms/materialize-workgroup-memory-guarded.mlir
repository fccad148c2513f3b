// RUN: kf-opt %s -pass-pipeline='builtin.module(func.func(kf-materialize-workgroup-memory,canonicalize,cse))' | FileCheck %s

// A copy out of workgroup memory that only thread 0 reaches stays a copy by
// that one thread: every element (256 of a 16x16 tile), in a loop of step
// 1, and no barrier in the divergent branch (a block-wide loop there would
// copy one element per row). Canonicalized, so that the loop's bounds read
// as constants.
// CHECK-LABEL: func.func @guarded_copy
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ALL:.*]] = arith.constant 256 : index
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[ZERO]] to %[[ALL]] step %[[ONE]]
// CHECK:   memref.load %{{.*}} : memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
// CHECK:   memref.store %{{.*}} : memref<16x16xf32, strided<[64, 1], offset: ?>>
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK-NOT: memref.copy
func.func @guarded_copy(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %shared = memref.alloc() {kf.workgroup_padding = 1 : i64} : memref<16x16xf32, #gpu.address_space<workgroup>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %r = arith.muli %by, %c16 : index
    %c = arith.muli %bx, %c16 : index
    %v = memref.load %in[%r, %c] : memref<64x64xf32>
    memref.store %v, %shared[%tx, %ty] : memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %first = arith.cmpi eq, %tx, %c0 : index
    %first_y = arith.cmpi eq, %ty, %c0 : index
    %leader = arith.andi %first, %first_y : i1
    scf.if %leader {
      %tile = memref.subview %out[%r, %c] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      memref.copy %shared, %tile : memref<16x16xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[64, 1], offset: ?>>
    }
    gpu.terminator
  }
  return
}

