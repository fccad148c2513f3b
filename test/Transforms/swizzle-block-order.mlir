// RUN: kf-opt %s --split-input-file --kf-swizzle-block-order --verify-diagnostics | FileCheck %s

// A 64 x 32 grid (x: 64 tile columns, y: 32 tile rows) in groups of 8 tile
// rows: pid = y * 64 + x; group = pid / 512; m = group * 8 + (pid mod 512)
// mod rows, n = (pid mod 512) / rows, rows = min(32 - group * 8, 8). Both
// the block id ops and the launch's block arguments read the new order;
// block id z is left alone, and the mark is gone.

// CHECK-LABEL: func.func @grouped
// CHECK: gpu.launch
// CHECK-NOT: kf.block_group
// CHECK-DAG: %[[X:.*]] = gpu.block_id x
// CHECK-DAG: %[[Y:.*]] = gpu.block_id y
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[Y]], %[[C64]]
// CHECK: %[[PID:.*]] = arith.addi %[[ROW]], %[[X]]
// CHECK: %[[GROUP:.*]] = arith.divui %[[PID]], %[[C512]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[C8]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[C32]], %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[C8]]
// CHECK: %[[LOCAL:.*]] = arith.remui %[[PID]], %[[C512]]
// CHECK: %[[IN:.*]] = arith.remui %[[LOCAL]], %[[ROWS]]
// CHECK: %[[M:.*]] = arith.addi %[[FIRST]], %[[IN]]
// CHECK: %[[N:.*]] = arith.divui %[[LOCAL]], %[[ROWS]]
// CHECK: %[[Z:.*]] = gpu.block_id z
// CHECK: memref.store %[[N]], %{{.*}}[%[[Z]], %[[M]], %[[N]]]
// CHECK: memref.store %[[N]], %{{.*}}[%{{.*}}, %[[M]], %[[N]]]
func.func @grouped(%out: memref<2x32x64xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c32, %gz = %c2)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    %y = gpu.block_id y
    %z = gpu.block_id z
    memref.store %x, %out[%z, %y, %x] : memref<2x32x64xindex>
    memref.store %bx, %out[%bz, %by, %bx] : memref<2x32x64xindex>
    gpu.terminator
  } {kf.block_group = 8 : i64}
  return
}

// -----

// One row of tiles: the order cannot change; only the mark goes.

// CHECK-LABEL: func.func @one_row
// CHECK: gpu.launch
// CHECK-NEXT: %[[X:.*]] = gpu.block_id x
// CHECK-NEXT: memref.store %[[X]]
// CHECK-NOT: kf.block_group
func.func @one_row(%out: memref<64xindex>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    memref.store %x, %out[%x] : memref<64xindex>
    gpu.terminator
  } {kf.block_group = 8 : i64}
  return
}

// -----

func.func @dynamic_grid(%out: memref<64x64xindex>, %n: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{kf.block_group needs a grid whose x and y sizes are constants}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %n, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    %y = gpu.block_id y
    memref.store %x, %out[%y, %x] : memref<64x64xindex>
    gpu.terminator
  } {kf.block_group = 8 : i64}
  return
}

// -----

func.func @bad_group(%out: memref<64x64xindex>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{kf.block_group must be an integer of at least 1}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c64, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = gpu.block_id x
    memref.store %x, %out[%x, %x] : memref<64x64xindex>
    gpu.terminator
  } {kf.block_group = 0 : i64}
  return
}
