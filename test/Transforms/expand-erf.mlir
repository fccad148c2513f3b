// RUN: kf-opt %s -split-input-file -kf-expand-erf | FileCheck %s

// f32 erf, scalar or vector, becomes selects and polynomials: no call, no
// branch.
// CHECK-LABEL: func.func @erf_f32
// CHECK-NOT: math.erf
// CHECK: arith.select
// CHECK: arith.divf
// CHECK-NOT: math.erf
// CHECK-NOT: cf.cond_br
// CHECK: return
func.func @erf_f32(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>) {
  %0 = math.erf %x : f32
  %1 = math.erf %v : vector<8xf32>
  return %0, %1 : f32, vector<8xf32>
}

// -----

// f64 erf keeps libdevice's (the approximation is for f32 and f16).
// CHECK-LABEL: func.func @erf_f64
// CHECK: math.erf %{{.*}} : f64
func.func @erf_f64(%x: f64) -> f64 {
  %0 = math.erf %x : f64
  return %0 : f64
}
