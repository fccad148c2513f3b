// RUN: kf-opt %s --split-input-file --kf-forward-vector-transfers | FileCheck %s

// A vector written and read back from the same place is forwarded, and the
// write that a later one overwrites before any read is dropped.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[M:.*]]: memref<64xf32>, %[[V:.*]]: vector<8xf32>)
// CHECK-NOT: vector.transfer_read
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[V]]
// CHECK-NEXT: vector.transfer_write %[[S]], %[[M]]
// CHECK-NOT: vector.transfer_write
func.func @forward(%m: memref<64xf32>, %v: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  vector.transfer_write %v, %m[%c0] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  %r = vector.transfer_read %m[%c0], %p {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
  %s = arith.addf %r, %v : vector<8xf32>
  vector.transfer_write %s, %m[%c0] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  return
}

// -----

// A read of another place is left alone, and so is the write it may read.
// CHECK-LABEL: func.func @other_place
// CHECK: vector.transfer_write
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write
func.func @other_place(%m: memref<64xf32>, %v: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %p = arith.constant 0.0 : f32
  vector.transfer_write %v, %m[%c0] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  %r = vector.transfer_read %m[%c4], %p {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
  vector.transfer_write %r, %m[%c0] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  return
}
