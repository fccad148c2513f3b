// RUN: kf-opt %s --split-input-file --kf-outline-kernels -verify-diagnostics | FileCheck %s

// The attributes a schedule put in kf.kernel_attrs land on the outlined
// kernel; a launch without them gets none.
// CHECK-LABEL: gpu.module @two_launches_kernel
// CHECK: gpu.func @two_launches_kernel({{.*}}) kernel attributes {{{.*}}nvvm.minctasm = 2 : i32
// CHECK-LABEL: gpu.module @two_launches_kernel_0
// CHECK-NOT: minctasm
// CHECK: gpu.return
func.func @two_launches(%m: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %v = memref.load %m[%tx] : memref<16xf32>
    memref.store %v, %m[%tx] : memref<16xf32>
    gpu.terminator
  } {kf.kernel_attrs = {nvvm.minctasm = 2 : i32}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %v = memref.load %m[%tx] : memref<16xf32>
    memref.store %v, %m[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @not_a_dictionary(%m: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'kf.kernel_attrs' must be a dictionary of kernel attributes}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  } {kf.kernel_attrs = 2 : i32}
  return
}
