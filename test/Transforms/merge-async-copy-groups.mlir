// RUN: kf-opt %s --split-input-file --kf-merge-async-copy-groups | FileCheck %s

// The GEMM kernel's K loop before pipelining: A's and B's tiles are copied
// by two thread mappings, each ending in a group, a wait and a barrier. The
// barrier between them orders nothing (only copies are issued on either
// side of it, up to the barrier after the compute of the last iteration and
// the one before the loop), so it goes, and the copies become one group;
// the wait for A is left to the wait for all groups after B.

// CHECK-LABEL: func.func @two_groups_per_stage
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: %[[A:.*]] = nvgpu.device_async_copy %{{.*}}, %{{.*}}, 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvgpu.device_async_wait
// CHECK-NOT: nvgpu.device_async_create_group
// CHECK: %[[B:.*]] = nvgpu.device_async_copy
// CHECK-NEXT: %[[G:.*]] = nvgpu.device_async_create_group %[[A]], %[[B]]
// CHECK-NEXT: nvgpu.device_async_wait %[[G]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @two_groups_per_stage(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %sa = memref.alloc() : memref<16x16xf32, 3>
    %sb = memref.alloc() : memref<16x16xf32, 3>
    gpu.barrier
    %r = scf.for %k = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> (f32) {
      %ta = nvgpu.device_async_copy %a[%tx, %k], %sa[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %ga = nvgpu.device_async_create_group %ta
      nvgpu.device_async_wait %ga
      gpu.barrier
      %row = arith.addi %k, %tx : index
      %tb = nvgpu.device_async_copy %b[%row, %c0], %sb[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %gb = nvgpu.device_async_create_group %tb
      nvgpu.device_async_wait %gb
      gpu.barrier
      %va = memref.load %sa[%tx, %c0] : memref<16x16xf32, 3>
      %vb = memref.load %sb[%c0, %tx] : memref<16x16xf32, 3>
      %s = arith.mulf %va, %vb : f32
      %n = arith.addf %acc, %s : f32
      gpu.barrier
      scf.yield %n : f32
    }
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// A thread reads B's tile between the copies: the barrier orders that read
// before the copy that overwrites the tile, and stays, and so do both
// groups.

// CHECK-LABEL: func.func @read_before_the_barrier
// CHECK: scf.for
// CHECK: nvgpu.device_async_create_group
// CHECK: memref.load
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_create_group
func.func @read_before_the_barrier(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %sa = memref.alloc() : memref<16x16xf32, 3>
    %sb = memref.alloc() : memref<16x16xf32, 3>
    gpu.barrier
    %r = scf.for %k = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> (f32) {
      %ta = nvgpu.device_async_copy %a[%tx, %k], %sa[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %ga = nvgpu.device_async_create_group %ta
      %old = memref.load %sb[%c0, %tx] : memref<16x16xf32, 3>
      gpu.barrier
      %tb = nvgpu.device_async_copy %b[%k, %c0], %sb[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %gb = nvgpu.device_async_create_group %tb
      nvgpu.device_async_wait %gb
      gpu.barrier
      %va = memref.load %sa[%tx, %c0] : memref<16x16xf32, 3>
      %s = arith.mulf %va, %old : f32
      %n = arith.addf %acc, %s : f32
      gpu.barrier
      scf.yield %n : f32
    }
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Before the loop, a thread stores to shared memory with no barrier after
// it: in the first iteration the barrier between the copies is the one that
// orders that store, and stays.

// CHECK-LABEL: func.func @store_before_the_loop
// CHECK: scf.for
// CHECK: nvgpu.device_async_create_group
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
func.func @store_before_the_loop(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %sa = memref.alloc() : memref<16x16xf32, 3>
    %sb = memref.alloc() : memref<16x16xf32, 3>
    gpu.barrier
    memref.store %zero, %sb[%tx, %tx] : memref<16x16xf32, 3>
    %r = scf.for %k = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> (f32) {
      %ta = nvgpu.device_async_copy %a[%tx, %k], %sa[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %ga = nvgpu.device_async_create_group %ta
      nvgpu.device_async_wait %ga
      gpu.barrier
      %tb = nvgpu.device_async_copy %b[%k, %c0], %sb[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %gb = nvgpu.device_async_create_group %tb
      nvgpu.device_async_wait %gb
      gpu.barrier
      %va = memref.load %sa[%tx, %c0] : memref<16x16xf32, 3>
      %n = arith.addf %acc, %va : f32
      gpu.barrier
      scf.yield %n : f32
    }
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// A wait that leaves groups pending (as the pipeliner sets them) counts
// groups: merging would change what it waits for, so the groups stay.

// CHECK-LABEL: func.func @counted_wait_between
// CHECK: %[[GA:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[GA]] {numGroups = 1 : i32}
// CHECK: nvgpu.device_async_create_group
func.func @counted_wait_between(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %sa = memref.alloc() : memref<2x16x16xf32, 3>
    gpu.barrier
    %ta = nvgpu.device_async_copy %a[%tx, %c0], %sa[%c0, %tx, %c0], 4 : memref<1024x1024xf32> to memref<2x16x16xf32, 3>
    %ga = nvgpu.device_async_create_group %ta
    nvgpu.device_async_wait %ga {numGroups = 1 : i32}
    %tb = nvgpu.device_async_copy %a[%tx, %c16], %sa[%c1, %tx, %c0], 4 : memref<1024x1024xf32> to memref<2x16x16xf32, 3>
    %gb = nvgpu.device_async_create_group %tb
    nvgpu.device_async_wait %gb
    gpu.barrier
    %v = memref.load %sa[%c0, %tx, %c0] : memref<2x16x16xf32, 3>
    memref.store %v, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// No barrier before the loop: the kernel's start orders like one (no thread
// runs anything before it), so the barrier between the groups still goes
// (the GEMM kernel with a fused epilogue has no fill, and so no barrier,
// before its K loop).

// CHECK-LABEL: func.func @loop_at_kernel_start
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
func.func @loop_at_kernel_start(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %sa = memref.alloc() : memref<16x16xf32, 3>
    %sb = memref.alloc() : memref<16x16xf32, 3>
    %r = scf.for %k = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> (f32) {
      %ta = nvgpu.device_async_copy %a[%tx, %k], %sa[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %ga = nvgpu.device_async_create_group %ta
      nvgpu.device_async_wait %ga
      gpu.barrier
      %tb = nvgpu.device_async_copy %b[%k, %c0], %sb[%tx, %c0], 4 : memref<1024x1024xf32> to memref<16x16xf32, 3>
      %gb = nvgpu.device_async_create_group %tb
      nvgpu.device_async_wait %gb
      gpu.barrier
      %va = memref.load %sa[%tx, %c0] : memref<16x16xf32, 3>
      %vb = memref.load %sb[%c0, %tx] : memref<16x16xf32, 3>
      %s = arith.mulf %va, %vb : f32
      %n = arith.addf %acc, %s : f32
      gpu.barrier
      scf.yield %n : f32
    }
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}
