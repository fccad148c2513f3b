// RUN: kf-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(kf-lower-scans,canonicalize,cse))' | FileCheck %s

// A cumulative sum over rows of 600, a warp per row (32 lanes), a block of
// four rows and two groups of lanes along y. Two whole chunks of 32 lanes x
// 8 elements (each lane's 8 read and written as two 16-byte vectors), then
// 88 elements one per lane in three guarded chunks. Each lane folds its
// elements, five shuffles up scan the lanes' totals, one more shifts them by
// a lane, and the last lane's total (shuffle idx) is the carry into the
// next chunk. The fill of the output before the scan is dropped: the scan
// writes every element and never reads the output.
// CHECK-LABEL: func.func @warp_cumsum
// CHECK: gpu.launch
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[LANE:.*]] = gpu.thread_id x
// CHECK-DAG: %[[GROUP:.*]] = gpu.thread_id y
// CHECK: scf.for %[[ROW:.*]] = %[[GROUP]] to %c4 step %c2 {
// CHECK: %[[WHOLE:.*]] = scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%[[CARRY:.*]] = %cst{{.*}}) -> (f32) {
// CHECK-COUNT-2: vector.load %{{.*}} : memref<4x600xf32, strided<[600, 1], offset: ?>>, vector<4xf32>
// CHECK: gpu.shuffle up %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx
// CHECK-COUNT-2: vector.store %{{.*}} : memref<4x600xf32, strided<[600, 1], offset: ?>>, vector<4xf32>
// CHECK: scf.yield
// CHECK-COUNT-3: scf.if
// CHECK-NOT: linalg.generic
func.func @warp_cumsum(%x: memref<8x600xf32>, %y: memref<8x600xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1) {
    %r = arith.muli %bx, %c4 : index
    %xs = memref.subview %x[%r, 0] [4, 600] [1, 1] : memref<8x600xf32> to memref<4x600xf32, strided<[600, 1], offset: ?>>
    %ys = memref.subview %y[%r, 0] [4, 600] [1, 1] : memref<8x600xf32> to memref<4x600xf32, strided<[600, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%ys : memref<4x600xf32, strided<[600, 1], offset: ?>>)
    linalg.generic {indexing_maps = [affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, l) -> (i, k)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%xs : memref<4x600xf32, strided<[600, 1], offset: ?>>) outs(%ys : memref<4x600xf32, strided<[600, 1], offset: ?>>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %l = linalg.index 2 : index
      %k = linalg.index 1 : index
      %in = arith.cmpi ule, %l, %k : index
      %m = arith.select %in, %v, %zero : f32
      %s = arith.addf %m, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A masked sum from the end of the row, each position leaving out its own
// element (l > k), 8 lanes per row in four groups: the lanes scan with
// shuffles down (the last lane of the group first), the chunk's total is the
// group's first lane's, and the i1 mask is read one byte at a time. The
// output starts with values of its own (no fill): the scan adds them.
// CHECK-LABEL: func.func @reverse_exclusive_masked
// CHECK: gpu.lane_id
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(
// CHECK-COUNT-2: vector.load %{{.*}} : memref<4x128xf32, strided<[128, 1], offset: ?>>, vector<4xf32>
// CHECK-COUNT-8: memref.load %{{.*}} : memref<4x128xi1, strided<[128, 1], offset: ?>>
// CHECK: gpu.shuffle down %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle down %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle down %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle down %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx
// CHECK: vector.load %{{.*}} : memref<4x128xf32, strided<[128, 1], offset: ?>>, vector<4xf32>
// CHECK: vector.store
// CHECK-NOT: linalg.generic
func.func @reverse_exclusive_masked(%x: memref<8x128xf32>, %mask: memref<8x128xi1>, %y: memref<8x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c4, %sz = %c1) {
    %r = arith.muli %bx, %c4 : index
    %xs = memref.subview %x[%r, 0] [4, 128] [1, 1] : memref<8x128xf32> to memref<4x128xf32, strided<[128, 1], offset: ?>>
    %ms = memref.subview %mask[%r, 0] [4, 128] [1, 1] : memref<8x128xi1> to memref<4x128xi1, strided<[128, 1], offset: ?>>
    %ys = memref.subview %y[%r, 0] [4, 128] [1, 1] : memref<8x128xf32> to memref<4x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, l) -> (i, k)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%xs, %ms : memref<4x128xf32, strided<[128, 1], offset: ?>>, memref<4x128xi1, strided<[128, 1], offset: ?>>)
        outs(%ys : memref<4x128xf32, strided<[128, 1], offset: ?>>)
        attrs = {kf.reduction_lanes = 8 : i64} {
    ^bb0(%v: f32, %keep: i1, %acc: f32):
      %kept = arith.select %keep, %v, %zero : f32
      %l = linalg.index 2 : index
      %k = linalg.index 1 : index
      %in = arith.cmpi ugt, %l, %k : index
      %m = arith.select %in, %kept, %zero : f32
      %s = arith.addf %m, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A scan's lanes are at most a warp.
func.func @too_many_lanes(%x: memref<4x256xf32>, %y: memref<4x256xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{64 lanes per scan: a power of two up to 32}}
    linalg.generic {indexing_maps = [affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, l) -> (i, k)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<4x256xf32>) outs(%y : memref<4x256xf32>)
        attrs = {kf.reduction_lanes = 64 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %l = linalg.index 2 : index
      %k = linalg.index 1 : index
      %in = arith.cmpi ule, %l, %k : index
      %m = arith.select %in, %v, %zero : f32
      %s = arith.addf %m, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// The lanes are the block's x.
func.func @lanes_not_the_block(%x: memref<4x256xf32>, %y: memref<4x256xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{the launch's block must have 32 threads along x, one per lane, and 1 along z}}
    linalg.generic {indexing_maps = [affine_map<(i, k, l) -> (i, l)>, affine_map<(i, k, l) -> (i, k)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<4x256xf32>) outs(%y : memref<4x256xf32>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %l = linalg.index 2 : index
      %k = linalg.index 1 : index
      %in = arith.cmpi ule, %l, %k : index
      %m = arith.select %in, %v, %zero : f32
      %s = arith.addf %m, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}
