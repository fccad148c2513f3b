// RUN: kf-opt %s -pass-pipeline='builtin.module(gpu.module(kf-lower-vector-ops))' | FileCheck %s

// A vectorized reduction step (8 loads reduced into a 1x1 accumulator)
// becomes one 1-D vector.reduction, without element-by-element unrolling.
// CHECK-LABEL: gpu.func @reduce_step
// CHECK-NOT: vector.multi_reduction
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
// CHECK-NOT: vector.multi_reduction
gpu.module @kernels {
  gpu.func @reduce_step(%v: vector<1x8x1xf32>, %acc: vector<1x1xf32>, %out: memref<1xf32>) kernel {
    %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x8x1xf32> to vector<1x1xf32>
    %e = vector.extract %r[0, 0] : f32 from vector<1x1xf32>
    %c0 = arith.constant 0 : index
    memref.store %e, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
