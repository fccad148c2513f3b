// RUN: kf-opt %s -kf-merge-kernel-modules | FileCheck %s

// Outlined kernels named alike move into one module under their modules'
// names; launches follow.
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @kernels::@first_kernel
// CHECK: gpu.launch_func @kernels::@second_kernel
// CHECK: gpu.module @kernels
// CHECK-DAG: gpu.func @first_kernel
// CHECK-DAG: gpu.func @second_kernel
// CHECK-NOT: gpu.module @first_kernel
module attributes {gpu.container_module} {
  func.func @host(%p: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first_kernel::@host_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : memref<4xf32>)
    gpu.launch_func @second_kernel::@host_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : memref<4xf32>)
    return
  }
  gpu.module @first_kernel {
    gpu.func @host_kernel(%p: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @second_kernel {
    gpu.func @host_kernel(%p: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
