// RUN: kf-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(kf-distribute-reductions,canonicalize,cse))' | FileCheck %s

// A warp per row (32 lanes), a block of four rows and two groups of lanes
// along y: group g takes rows g and g + 2. Lane t folds elements t, t + 32,
// ... in four chains of loads (a round of 128 elements per iteration), the
// rest one per lane; a butterfly of five xor shuffles gives every lane the
// row's total, and lane 0 adds it to the output.
// CHECK-LABEL: func.func @warp_row_sum
// CHECK: gpu.launch
// CHECK-DAG: %[[LANE:.*]] = gpu.thread_id x
// CHECK-DAG: %[[GROUP:.*]] = gpu.thread_id y
// CHECK: scf.for %[[ROW:.*]] = %[[GROUP]] to %c4 step %c2 {
// CHECK: %[[MAIN:.*]]:4 = scf.for %[[I:.*]] = %c0 to %c2048 step %c128 iter_args(
// CHECK-COUNT-4: math.absf
// CHECK: scf.yield
// CHECK: %[[TAIL:.*]] = scf.for %{{.*}} = %{{.*}} to %c2100 step %c32 iter_args(%{{.*}} = %[[MAIN]]#0)
// CHECK: math.absf
// CHECK: arith.addf %[[TAIL]], %[[MAIN]]#1
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: %[[S:.*]], %{{.*}} = gpu.shuffle xor %[[V:.*]], %c1_i32, %c32_i32 : f32
// CHECK: %[[TOTAL:.*]] = arith.addf %[[V]], %[[S]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[OLD:.*]] = memref.load
// CHECK:   %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]] : f32
// CHECK:   memref.store %[[NEW]]
// CHECK-NOT: linalg.generic
func.func @warp_row_sum(%x: memref<8x2100xf32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1) {
    %r = arith.muli %bx, %c4 : index
    %xs = memref.subview %x[%r, 0] [4, 2100] [1, 1] : memref<8x2100xf32> to memref<4x2100xf32, strided<[2100, 1], offset: ?>>
    %ys = memref.subview %y[%r] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<4x2100xf32, strided<[2100, 1], offset: ?>>) outs(%ys : memref<4xf32, strided<[1], offset: ?>>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %a = math.absf %v : f32
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// 256 lanes, a block per row: the lanes' partials meet in gpu.all_reduce
// (shuffles and shared memory after convert-gpu-to-nvvm), then a barrier
// before any later all_reduce reuses its shared slots. An input indexed
// only by the row (the mean of a variance) is read once, not per element.
// CHECK-LABEL: func.func @block_row_variance
// CHECK: %[[MEAN:.*]] = memref.load %{{.*}}[%c0] : memref<1xf32
// CHECK: scf.for
// CHECK: arith.subf %{{.*}}, %[[MEAN]] : f32
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %{{.*}} uniform {
// CHECK-NEXT: } : (f32) -> f32
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: arith.addf %[[TOTAL]], %{{.*}} : f32
func.func @block_row_variance(%x: memref<4x5000xf32>, %mean: memref<4xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %xs = memref.subview %x[%bx, 0] [1, 5000] [1, 1] : memref<4x5000xf32> to memref<1x5000xf32, strided<[5000, 1], offset: ?>>
    %ms = memref.subview %mean[%bx] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%bx] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%xs, %ms : memref<1x5000xf32, strided<[5000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>)
        outs(%ys : memref<1xf32, strided<[1], offset: ?>>)
        attrs = {kf.reduction_lanes = 256 : i64} {
    ^bb0(%v: f32, %m: f32, %acc: f32):
      %d = arith.subf %v, %m : f32
      %sq = arith.mulf %d, %d : f32
      %s = arith.addf %sq, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// The element's index along the reduction (linalg.index) is the lane's.
// CHECK-LABEL: func.func @indexed_max
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c100 step %c8
// CHECK: arith.index_cast %[[K]] : index to i32
// CHECK: arith.maxsi
func.func @indexed_max(%x: memref<2x100xi32>, %y: memref<2xi32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c2, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<2x100xi32>) outs(%y : memref<2xi32>)
        attrs = {kf.reduction_lanes = 8 : i64} {
    ^bb0(%v: i32, %acc: i32):
      %k = linalg.index 1 : index
      %k32 = arith.index_cast %k : index to i32
      %p = arith.muli %v, %k32 : i32
      %s = arith.maxsi %p, %acc : i32
      linalg.yield %s : i32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @block_too_narrow(%x: memref<4x1000xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %xs = memref.subview %x[%bx, 0] [1, 1000] [1, 1] : memref<4x1000xf32> to memref<1x1000xf32, strided<[1000, 1], offset: ?>>
    %ys = memref.subview %y[%bx] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    // expected-error @+1 {{the launch's block must have 128 threads along x, one per lane}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<1x1000xf32, strided<[1000, 1], offset: ?>>) outs(%ys : memref<1xf32, strided<[1], offset: ?>>)
        attrs = {kf.reduction_lanes = 128 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

// Argmax carries a value and an index: two outputs, no single fold.
func.func @two_outputs(%x: memref<4x64xf32>, %v: memref<4xf32>, %i: memref<4xi32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{a distributed reduction needs one output and one reduction loop}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x64xf32>) outs(%v, %i : memref<4xf32>, memref<4xi32>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%e: f32, %best: f32, %at: i32):
      %k = linalg.index 1 : index
      %k32 = arith.index_cast %k : index to i32
      %gt = arith.cmpf ogt, %e, %best : f32
      %nv = arith.select %gt, %e, %best : f32
      %ni = arith.select %gt, %k32, %at : i32
      linalg.yield %nv, %ni : f32, i32
    }
    gpu.terminator
  }
  return
}

// -----

// The output is used beyond the fold (a running value that also scales
// the element): no combiner to share among lanes.
func.func @not_a_fold(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{a distributed reduction's body must fold each element into the output with one add, mul, max or min}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%e: f32, %acc: f32):
      %p = arith.mulf %e, %acc : f32
      %s = arith.addf %p, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @groups_along_z(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c2) {
    // expected-error @+1 {{groups of lanes go along y: the block's z size must be 1}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>)
        attrs = {kf.reduction_lanes = 32 : i64} {
    ^bb0(%e: f32, %acc: f32):
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @odd_lanes(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{48 lanes per output: a power of two below 32 or a multiple of 32 up to 1024}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>)
        attrs = {kf.reduction_lanes = 48 : i64} {
    ^bb0(%e: f32, %acc: f32):
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @outside_a_launch(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{a distributed reduction must be inside a gpu.launch}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>)
      attrs = {kf.reduction_lanes = 32 : i64} {
  ^bb0(%e: f32, %acc: f32):
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row group's kernel: the row sum's lane 0 stores its total, and a barrier
// makes it visible before the consumer's lanes read it; the consumer (marked
// with row lanes) reads its invariant input (the sum) once per row, and
// each lane computes elements t, t + 64, ... from the row's end, four
// loads ahead of four stores per round, the rest one per lane.
// CHECK-LABEL: func.func @row_group
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK:   memref.store
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: %[[SUM:.*]] = memref.load %{{.*}}[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[I:.*]] = %c0 to %c512 step %c256 {
// CHECK-COUNT-4: memref.load %{{.*}} : memref<1x600xf32
// CHECK-COUNT-4: arith.divf %{{.*}}, %[[SUM]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c600 step %c64 {
// CHECK:   arith.subi %c599
// CHECK:   arith.divf
// CHECK:   memref.store
// CHECK-NOT: linalg.generic
func.func @row_group(%x: memref<8x600xf32>, %y: memref<8x600xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %sum = memref.alloca() : memref<1xf32, #gpu.address_space<workgroup>>
    %xs = memref.subview %x[%bx, 0] [1, 600] [1, 1] : memref<8x600xf32> to memref<1x600xf32, strided<[600, 1], offset: ?>>
    %ys = memref.subview %y[%bx, 0] [1, 600] [1, 1] : memref<8x600xf32> to memref<1x600xf32, strided<[600, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<1x600xf32, strided<[600, 1], offset: ?>>) outs(%sum : memref<1xf32, #gpu.address_space<workgroup>>)
        attrs = {kf.reduction_lanes = 64 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%xs, %sum : memref<1x600xf32, strided<[600, 1], offset: ?>>, memref<1xf32, #gpu.address_space<workgroup>>)
        outs(%ys : memref<1x600xf32, strided<[600, 1], offset: ?>>)
        attrs = {kf.row_lanes = 64 : i64} {
    ^bb0(%v: f32, %s: f32, %out: f32):
      %d = arith.divf %v, %s : f32
      linalg.yield %d : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @row_lanes_not_parallel(%x: memref<8x300xf32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{a distributed row needs one output and parallel loops only}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<8x300xf32>) outs(%y : memref<8xf32>)
        attrs = {kf.row_lanes = 64 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}
