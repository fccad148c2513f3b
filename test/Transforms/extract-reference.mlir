// RUN: kf-opt %s -split-input-file -kf-extract-reference -verify-diagnostics | FileCheck %s

// CHECK-LABEL: module
// CHECK-NOT: kf.problem
// CHECK-NOT: @helper
// CHECK: func.func @ref(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: kf.problem
kf.problem @p reference(@ref) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @ref(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @helper()

// -----

// expected-error @below {{this module holds no kf.problem op: a problem file needs one naming the reference function (see docs/problem-format.md)}}
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @below {{this module holds 2 kf.problem ops; name the one to use}}
module {
  // expected-note @below {{problem @a}}
  kf.problem @a reference(@r) tolerance(<atol = 0.0, rtol = 0.0>)
  // expected-note @below {{problem @b}}
  kf.problem @b reference(@r) tolerance(<atol = 0.0, rtol = 0.0>)
  func.func @r(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
