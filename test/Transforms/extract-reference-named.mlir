// RUN: kf-opt %s -kf-extract-reference=problem=second | FileCheck %s
// RUN: not kf-opt %s -kf-extract-reference=problem=third 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-LABEL: module
// CHECK-NOT: kf.problem
// CHECK: func.func @second_ref
// CHECK-NOT: @first_ref
// MISSING: error: no kf.problem named @third in this module
kf.problem @first reference(@first_ref) tolerance(<atol = 0.0, rtol = 0.0>)
kf.problem @second reference(@second_ref) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @first_ref(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @second_ref(%a: tensor<8xf32>) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
