// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-hoist-accumulators))' | FileCheck %s

// A thread's accumulator tile, read and written on every iteration of the
// reduction loop, is read once before the loop and written once after it.
// The view computed inside the loop moves out first; barriers and the
// other buffers' accesses do not stop it.
// CHECK-LABEL: func.func @hoisted
// CHECK: gpu.launch
// CHECK: %[[INIT:.*]] = vector.transfer_read
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:   gpu.barrier
// CHECK:   %[[NEXT:.*]] = arith.addf %{{.*}}, %[[ACC]]
// CHECK:   scf.yield %[[NEXT]]
// CHECK: vector.transfer_write %[[SUM]]
func.func @hoisted(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c64 step %c4 {
      %tile = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1]>>
      gpu.barrier
      %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<4x4xf32>
      %acc = vector.transfer_read %tile[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x4xf32, strided<[64, 1]>>, vector<4x4xf32>
      %sum = arith.addf %x, %acc : vector<4x4xf32>
      vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32, strided<[64, 1]>>
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  return
}

// -----

// Another access to the same buffer in the loop (here through another
// view) keeps the pair in place; so does a launch the schedule did not mark.
// CHECK-LABEL: func.func @kept
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write
func.func @kept(%c: memref<64x64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c64 step %c4 {
      %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true]} : memref<64x64xf32>, vector<4xf32>
      %row = memref.subview %c[1, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[1], offset: 64>>
      %v = memref.load %row[%k] : memref<64xf32, strided<[1], offset: 64>>
      %b = vector.broadcast %v : f32 to vector<4xf32>
      %sum = arith.addf %b, %acc : vector<4xf32>
      vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<64x64xf32>
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c64 step %c4 {
      %acc = vector.transfer_read %out[%c0], %pad {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
      %sum = arith.addf %acc, %acc : vector<4xf32>
      vector.transfer_write %sum, %out[%c0] {in_bounds = [true]} : vector<4xf32>, memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A linalg op in the loop that writes the buffer (its effects are its own,
// not its body's), and a transfer that may read out of bounds, keep their
// pairs in place.
// CHECK-LABEL: func.func @kept_linalg_and_out_of_bounds
// CHECK-NOT: iter_args
// CHECK: return
func.func @kept_linalg_and_out_of_bounds(%c: memref<64x64xf32>, %d: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c64 step %c4 {
      %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true]} : memref<64x64xf32>, vector<4xf32>
      linalg.fill ins(%pad : f32) outs(%c : memref<64x64xf32>)
      %sum = arith.addf %acc, %acc : vector<4xf32>
      vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<64x64xf32>
    }
    scf.for %k = %c0 to %c64 step %c4 {
      %acc = vector.transfer_read %d[%c8], %pad {in_bounds = [false]} : memref<10xf32>, vector<4xf32>
      %sum = arith.addf %acc, %acc : vector<4xf32>
      vector.transfer_write %sum, %d[%c8] {in_bounds = [false]} : vector<4xf32>, memref<10xf32>
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  return
}

// -----

// The staged kernel's nest: the pair leaves the inner step loop, then the
// tile loop around it.
// CHECK-LABEL: func.func @nest
// CHECK: %[[INIT:.*]] = vector.transfer_read
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:   %[[INNER:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]])
// CHECK:   scf.yield %[[INNER]]
// CHECK: vector.transfer_write %[[OUTER]]
func.func @nest(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c64 step %c16 {
      gpu.barrier
      scf.for %s = %c0 to %c16 step %c4 {
        %i = arith.addi %k, %s : index
        %x = vector.transfer_read %a[%c0, %i], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<4x4xf32>
        %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<4x4xf32>
        %sum = arith.addf %x, %acc : vector<4x4xf32>
        vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<64x64xf32>
      }
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  return
}

// -----

// A naively mapped reduction after convert-linalg-to-loops: the thread's
// output element is a scalar load and store in each reduction loop. The
// pair leaves both loops (inner first), the input's loads stay.
// CHECK-LABEL: func.func @scalar_accumulator
// CHECK: gpu.launch
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%[[TX:.*]]] : memref<64xf32>
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]])
// CHECK:     memref.load %{{.*}} : memref<64x3x3xf32>
// CHECK-NOT: memref.store
// CHECK: memref.store %[[OUTER]], %{{.*}}[%[[TX]]] : memref<64xf32>
func.func @scalar_accumulator(%x: memref<64x3x3xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %v = memref.load %x[%tx, %i, %j] : memref<64x3x3xf32>
        %acc = memref.load %y[%tx] : memref<64xf32>
        %sum = arith.addf %v, %acc : f32
        memref.store %sum, %y[%tx] : memref<64xf32>
      }
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  return
}

// -----

// Scalar pairs stay where the loop has a barrier, or the location is in
// workgroup memory: another thread may read it between iterations.
// CHECK-LABEL: func.func @scalar_kept
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.load %{{.*}} : memref<64xf32>
// CHECK: memref.store
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store
func.func @scalar_kept(%x: memref<64x3xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c3 step %c1 {
      gpu.barrier
      %v = memref.load %x[%tx, %i] : memref<64x3xf32>
      %acc = memref.load %y[%tx] : memref<64xf32>
      %sum = arith.addf %v, %acc : f32
      memref.store %sum, %y[%tx] : memref<64xf32>
    }
    %shared = memref.alloca() : memref<64xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c3 step %c1 {
      %v = memref.load %x[%tx, %i] : memref<64x3xf32>
      %acc = memref.load %shared[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %sum = arith.addf %v, %acc : f32
      memref.store %sum, %shared[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  } {kf.hoist_accumulators}
  return
}
