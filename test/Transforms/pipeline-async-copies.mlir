// RUN: kf-opt %s --split-input-file --kf-pipeline-async-copies --verify-diagnostics | FileCheck %s

// A K loop as the GEMM kernel has it before pipelining: copies into the
// iteration's slot of a 3-slot ring buffer, one group, its wait, a barrier,
// reads of the slot, and a barrier that ends the body. Pipelined with two
// stages in flight, the copies of step i + 2 are issued right after the
// barrier that follows the wait for step i (into the slot read at step
// i - 1), and the trailing barrier is gone. The prologue issues two steps;
// the peeled epilogue waits for one group, then for none.

// CHECK-LABEL: func.func @copies_first
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.load
// CHECK: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: nvgpu.device_async
// CHECK-NOT: kf.pipeline_copies
// CHECK: gpu.terminator
func.func @copies_first(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<3x16x16xf32, 3>
    gpu.barrier
    %r = scf.for %k = %c0 to %c128 step %c16 iter_args(%acc = %zero) -> (f32) {
      %slot = affine.apply affine_map<(d0) -> ((d0 floordiv 16) mod 3)>(%k)
      %t = nvgpu.device_async_copy %a[%tx, %k], %buf[%slot, %tx, %c0], 4 : memref<1024x1024xf32> to memref<3x16x16xf32, 3>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      %v = memref.load %buf[%slot, %c0, %tx] : memref<3x16x16xf32, 3>
      %n = arith.addf %acc, %v : f32
      gpu.barrier
      scf.yield %n : f32
    } {kf.pipeline_copies}
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// The loop reads slot 0 whatever the step: a copy issued right after the
// barrier could overwrite what a slower thread still reads, so the loop is
// pipelined in upstream's order, all three slots in flight, the copies
// after the compute and the trailing barrier kept.

// CHECK-LABEL: func.func @other_slot
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: scf.yield
func.func @other_slot(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<3x16x16xf32, 3>
    gpu.barrier
    %r = scf.for %k = %c0 to %c128 step %c16 iter_args(%acc = %zero) -> (f32) {
      %slot = affine.apply affine_map<(d0) -> ((d0 floordiv 16) mod 3)>(%k)
      %t = nvgpu.device_async_copy %a[%tx, %k], %buf[%slot, %tx, %c0], 4 : memref<1024x1024xf32> to memref<3x16x16xf32, 3>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      %v = memref.load %buf[%c0, %c0, %tx] : memref<3x16x16xf32, 3>
      %n = arith.addf %acc, %v : f32
      gpu.barrier
      scf.yield %n : f32
    } {kf.pipeline_copies}
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// A store between the barriers: the trailing barrier may order it, so it
// stays, and so does upstream's order.

// CHECK-LABEL: func.func @store_in_compute
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
func.func @store_in_compute(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<3x16x16xf32, 3>
    %scratch = memref.alloc() : memref<16xf32, 3>
    gpu.barrier
    %r = scf.for %k = %c0 to %c128 step %c16 iter_args(%acc = %zero) -> (f32) {
      %slot = affine.apply affine_map<(d0) -> ((d0 floordiv 16) mod 3)>(%k)
      %t = nvgpu.device_async_copy %a[%tx, %k], %buf[%slot, %tx, %c0], 4 : memref<1024x1024xf32> to memref<3x16x16xf32, 3>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      %v = memref.load %buf[%slot, %c0, %tx] : memref<3x16x16xf32, 3>
      memref.store %v, %scratch[%tx] : memref<16xf32, 3>
      %n = arith.addf %acc, %v : f32
      gpu.barrier
      scf.yield %n : f32
    } {kf.pipeline_copies}
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// The loop follows a store with no barrier between: the prologue's copies
// overwrite the first slots, so a barrier comes before them.

// CHECK-LABEL: func.func @barrier_before_prologue
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<16x16xf32, 3>
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
func.func @barrier_before_prologue(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<3x16x16xf32, 3>
    %view = memref.subview %buf[0, 0, 0] [1, 16, 16] [1, 1, 1] : memref<3x16x16xf32, 3> to memref<16x16xf32, 3>
    memref.store %zero, %view[%tx, %c0] : memref<16x16xf32, 3>
    %r = scf.for %k = %c0 to %c128 step %c16 iter_args(%acc = %zero) -> (f32) {
      %slot = affine.apply affine_map<(d0) -> ((d0 floordiv 16) mod 3)>(%k)
      %t = nvgpu.device_async_copy %a[%tx, %k], %buf[%slot, %tx, %c0], 4 : memref<1024x1024xf32> to memref<3x16x16xf32, 3>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      %v = memref.load %buf[%slot, %c0, %tx] : memref<3x16x16xf32, 3>
      %n = arith.addf %acc, %v : f32
      gpu.barrier
      scf.yield %n : f32
    } {kf.pipeline_copies}
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// A marked loop with nothing to pipeline is an error, not a silent no-op.

func.func @no_copies(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{kf-pipeline-async-copies: not a K loop of asynchronous copies into a ring buffer, a wait and a barrier}}
  %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %n = arith.addf %acc, %zero : f32
    scf.yield %n : f32
  } {kf.pipeline_copies}
  memref.store %r, %out[%c0] : memref<16xf32>
  return
}

// -----

// Two steps cannot fill a pipeline with two steps in flight.

func.func @too_short(%a: memref<1024x1024xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<3x16x16xf32, 3>
    gpu.barrier
    // expected-error @+1 {{kf-pipeline-async-copies: the loop needs a static trip count above 2, the stages in flight}}
    %r = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc = %zero) -> (f32) {
      %slot = affine.apply affine_map<(d0) -> ((d0 floordiv 16) mod 3)>(%k)
      %t = nvgpu.device_async_copy %a[%tx, %k], %buf[%slot, %tx, %c0], 4 : memref<1024x1024xf32> to memref<3x16x16xf32, 3>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      %v = memref.load %buf[%slot, %c0, %tx] : memref<3x16x16xf32, 3>
      %n = arith.addf %acc, %v : f32
      gpu.barrier
      scf.yield %n : f32
    } {kf.pipeline_copies}
    memref.store %r, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}
