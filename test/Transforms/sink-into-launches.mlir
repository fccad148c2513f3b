// RUN: kf-opt %s -split-input-file -kf-sink-into-launches | FileCheck %s

// A poison padding value and a vector constant are recomputed in the launch
// (upstream's sinking leaves both on the host, where they would become
// kernel arguments) and their dead host copies are erased.
// CHECK-LABEL: func.func @sink_constants
// CHECK-NOT: ub.poison
// CHECK-NOT: vector<4xf32>
// CHECK: gpu.launch
// CHECK-DAG: ub.poison : f32
// CHECK-DAG: arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK-DAG: arith.constant 0 : index
// CHECK: vector.transfer_read %[[A:.*]][
func.func @sink_constants(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  %ones = arith.constant dense<1.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %r = vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
    %s = arith.addf %r, %ones : vector<4xf32>
    vector.transfer_write %s, %a[%c0] {in_bounds = [true]} : vector<4xf32>, memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A value computed on the host from a load is not sunk: it is not cheap to
// recompute per thread, and kf-check-host-code reports the load.
// CHECK-LABEL: func.func @keep_loads
// CHECK: %[[V:.*]] = memref.load
// CHECK: gpu.launch
// CHECK: memref.store %[[V]]
func.func @keep_loads(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v1 = %c1, %w = %c1) {
    memref.store %v, %a[%c1] : memref<64xf32>
    gpu.terminator
  }
  return
}
