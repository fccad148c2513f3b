// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kf-number-address-spaces))' | FileCheck %s

// Shared memory types get NVVM's number 3.
// CHECK-LABEL: gpu.func @attribution
// CHECK-SAME: workgroup(%{{.*}} : memref<64xf32, 3>)
// CHECK: memref.load %{{.*}} : memref<64xf32, 3>
gpu.module @kernels {
  gpu.func @attribution(%out: memref<64xf32>)
      workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tx = gpu.thread_id x
    %v = memref.load %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<64xf32>
    gpu.return
  }
}

// -----

// gpu.dynamic_shared_memory keeps its workgroup type, which its verifier
// requires (renumbered, it failed with "address space must be
// address_space<workgroup>"); its users see the numbered type through a
// cast that reconcile-unrealized-casts removes after convert-gpu-to-nvvm.
// CHECK-LABEL: gpu.func @dynamic
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[NUM:.*]] = builtin.unrealized_conversion_cast %[[DYN]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, 3>
// CHECK: memref.view %[[NUM]][%{{.*}}][] : memref<?xi8, 3> to memref<64xf32, 3>
gpu.module @kernels {
  gpu.func @dynamic(%out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %view[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<64xf32>
    gpu.return
  }
}
