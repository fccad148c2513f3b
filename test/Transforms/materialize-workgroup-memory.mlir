// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-materialize-workgroup-memory))' -verify-diagnostics | FileCheck %s

// A promoted buffer becomes a padded workgroup attribution; the copy into it
// becomes a loop over all threads of the block between two barriers.
// CHECK-LABEL: func.func @stage
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch {{.*}} workgroup(%[[WG:.*]] : memref<16x17xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[WG]][0, 0] [16, 16] [1, 1] : memref<16x17xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK:   memref.load %{{.*}} : memref<16x16xf32, strided<[64, 1], offset: ?>>
// CHECK:   memref.store %{{.*}}, %[[VIEW]]
// CHECK: gpu.barrier
// CHECK-NOT: memref.copy
// CHECK: memref.load %[[VIEW]]
func.func @stage(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %shared = memref.alloc() {kf.workgroup_padding = 1 : i64} : memref<16x16xf32, #gpu.address_space<workgroup>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %r = arith.muli %by, %c16 : index
    %c = arith.muli %bx, %c16 : index
    %tile = memref.subview %in[%r, %c] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
    memref.copy %tile, %shared : memref<16x16xf32, strided<[64, 1], offset: ?>> to memref<16x16xf32, #gpu.address_space<workgroup>>
    %v = memref.load %shared[%tx, %ty] : memref<16x16xf32, #gpu.address_space<workgroup>>
    %i = arith.addi %r, %ty : index
    %j = arith.addi %c, %tx : index
    memref.store %v, %out[%i, %j] : memref<64x64xf32>
    gpu.terminator
  }
  memref.dealloc %shared : memref<16x16xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// Without padding the attribution keeps the buffer's shape.
// CHECK-LABEL: func.func @unpadded
// CHECK: workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: memref.subview
func.func @unpadded(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %shared = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %shared[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// Shared memory used on the host has no launch to belong to.
func.func @host_use(%out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{workgroup (shared) memory must be used by exactly one gpu.launch; map the computation that uses it to the GPU}}
  %shared = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
  %v = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%c0] : memref<32xf32>
  return
}

// -----

// A branch on the block id is taken by the whole block: the copy there is
// still spread over the block's threads between barriers.
// CHECK-LABEL: func.func @uniform_branch
// CHECK: scf.if
// CHECK:   gpu.barrier
// CHECK:   scf.for
// CHECK:   gpu.barrier
func.func @uniform_branch(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %shared = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %r = arith.muli %by, %c16 : index
    %first_block = arith.cmpi eq, %bx, %c0 : index
    scf.if %first_block {
      %tile = memref.subview %in[%r, %c0] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      memref.copy %tile, %shared : memref<16x16xf32, strided<[64, 1], offset: ?>> to memref<16x16xf32, #gpu.address_space<workgroup>>
      %v = memref.load %shared[%tx, %ty] : memref<16x16xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%r, %tx] : memref<64x64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A loop whose bounds depend on the thread id is divergent too: the copy in
// it is not spread over the block.
// CHECK-LABEL: func.func @divergent_loop
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @divergent_loop(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %shared = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %tx step %c1 {
      %tile = memref.subview %in[%i, %c0] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      memref.copy %tile, %shared : memref<16x16xf32, strided<[64, 1], offset: ?>> to memref<16x16xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}
