// RUN: kf-opt %s -pass-pipeline='builtin.module(gpu.module(kf-contract-float-ops))' | FileCheck %s

// Float arithmetic in kernels gets the contract flag; flags already there
// stay, integer arithmetic has none to get.
// CHECK-LABEL: gpu.func @multiply_add
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<contract> : vector<4xf32> into f32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
gpu.module @kernels {
  gpu.func @multiply_add(%a: f32, %b: f32, %v: vector<4xf32>, %i: i32, %out: memref<2xf32>, %iout: memref<1xi32>) kernel {
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %a fastmath<nnan> : f32
    %r = vector.reduction <add>, %v, %s : vector<4xf32> into f32
    %k = arith.addi %i, %i : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %s, %out[%c0] : memref<2xf32>
    memref.store %r, %out[%c1] : memref<2xf32>
    memref.store %k, %iout[%c0] : memref<1xi32>
    gpu.return
  }
}
