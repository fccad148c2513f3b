// RUN: kf-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: kf-opt %s -split-input-file | kf-opt -split-input-file | FileCheck %s

// CHECK-LABEL: kf.problem @explicit_inputs
// CHECK-SAME: reference(@ref)
// CHECK-SAME: inputs([#kf.uniform<-1.000000e+00, 1.000000e+00>, #kf.normal<0.000000e+00, 2.500000e-01>, #kf.int_range<-3, 7>])
// CHECK-SAME: tolerance(<atol = 1.000000e-05, rtol = 1.000000e-04>)
kf.problem @explicit_inputs reference(@ref)
    inputs([#kf.uniform<-1.0, 1.0>, #kf.normal<0.0, 0.25>, #kf.int_range<-3, 7>])
    tolerance(<atol = 1.0e-05, rtol = 1.0e-04>)
func.func @ref(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4xi32>) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}

// -----

// Omitted inputs mean the documented defaults; the op prints without them.
// CHECK-LABEL: kf.problem @default_inputs
// CHECK-SAME: reference(@ref) tolerance(<atol = 0.000000e+00, rtol = 0.000000e+00>)
// CHECK-NOT: inputs
kf.problem @default_inputs reference(@ref) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @ref(%a: tensor<16xf16>, %b: tensor<16xbf16>, %c: tensor<16xi8>, %d: tensor<16xf64>) -> (tensor<16xf16>, tensor<16xi1>) {
  %false = arith.constant dense<false> : tensor<16xi1>
  return %a, %false : tensor<16xf16>, tensor<16xi1>
}

// -----

// Exponent notation parses; other attributes are kept.
// CHECK-LABEL: kf.problem @notation
// CHECK-SAME: inputs([#kf.uniform<-2.000000e+00, 1.000000e+03>])
// CHECK-SAME: {note = "kept"}
kf.problem @notation reference(@ref) inputs([#kf.uniform<-2.0, 1.0e3>])
    tolerance(<atol = 1.0e-8, rtol = 0.0>) {note = "kept"}
func.func @ref(%a: tensor<2xf32>) -> tensor<2xf32> {
  %y = math.exp %a : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Hex literals are an f32's bits (8 digits) or an f64's (16 digits), as
// docs/problem-format.md says: 0x3F800000 is 1.0, 0x3FE0000000000000 is 0.5.
// CHECK-LABEL: kf.problem @hex
// CHECK-SAME: inputs([#kf.uniform<-1.000000e+00, 5.000000e-01>])
// CHECK-SAME: tolerance(<atol = 1.000000e+00, rtol = 5.000000e-01>)
kf.problem @hex reference(@ref) inputs([#kf.uniform<-1.0, 0x3FE0000000000000>])
    tolerance(<atol = 0x3F800000, rtol = 0x3FE0000000000000>)
func.func @ref(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// A module may hold several problems sharing one reference.
// CHECK-LABEL: kf.problem @loose
// CHECK-LABEL: kf.problem @strict
kf.problem @loose reference(@ref) tolerance(<atol = 1.0e-02, rtol = 1.0e-02>)
kf.problem @strict reference(@ref) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @ref(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
