// RUN: kf-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'kf.problem' op reference @missing does not name a function in this module}}
kf.problem @p reference(@missing) tolerance(<atol = 0.0, rtol = 0.0>)

// -----

// expected-error @below {{'kf.problem' op reference @other names a 'kf.problem', expected a 'func.func'}}
kf.problem @p reference(@other) tolerance(<atol = 0.0, rtol = 0.0>)
kf.problem @other reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expected-error @below {{'kf.problem' op reference @decl is a declaration; the reference needs a body}}
kf.problem @p reference(@decl) tolerance(<atol = 0.0, rtol = 0.0>)
func.func private @decl(%a: tensor<2xf32>) -> tensor<2xf32>

// -----

// expected-error @below {{'kf.problem' op reference @f returns nothing; its results are the problem's outputs}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) {
  return
}

// -----

// expected-error @below {{'kf.problem' op states 2 input distributions but reference @f takes 1 arguments; give one per argument}}
kf.problem @p reference(@f) inputs([#kf.uniform<0.0, 1.0>, #kf.uniform<0.0, 1.0>])
    tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expected-error @below {{'kf.problem' op input 0 has distribution #kf.int_range<0, 4>, which cannot produce 'f32' values (use #kf.uniform or #kf.normal for floats, #kf.int_range for integers)}}
kf.problem @p reference(@f) inputs([#kf.int_range<0, 4>]) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expected-error @below {{'kf.problem' op input 0 has distribution #kf.normal<0.000000e+00, 1.000000e+00>, which cannot produce 'i32' values}}
kf.problem @p reference(@f) inputs([#kf.normal<0.0, 1.0>]) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {
  return %a : tensor<2xi32>
}

// -----

// expected-error @below {{'kf.problem' op reference argument 0 has dynamic shape 'tensor<?x4xf32>': problems need static shapes; write the sizes to optimize for}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

// expected-error @below {{'kf.problem' op reference result 0 has type 'tensor<*xf32>': problems take and return ranked tensors}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<*xf32> {
  %c = tensor.cast %a : tensor<2xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}

// -----

// expected-error @below {{'kf.problem' op reference argument 1 has element type 'complex<f32>', which is not supported (use f16, bf16, f32, f64, i1, i8, i16, i32 or i64)}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>, %b: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expected-error @below {{'kf.problem' op reference argument 0 has element type 'ui8', which is not supported}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xui8>) -> tensor<2xui8> {
  return %a : tensor<2xui8>
}

// -----

// expected-error @below {{'kf.problem' op reference argument 0 has type 'memref<2xf32>': problems take and return ranked tensors (use tensor<1xT> for a scalar)}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: memref<2xf32>) -> tensor<2xf32> {
  %t = arith.constant dense<0.0> : tensor<2xf32>
  return %t : tensor<2xf32>
}

// -----

// expected-note @below {{problem declared here}}
kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'scf.execute_region' op is not allowed in the reference of problem "p": a reference uses only func, linalg, tensor, arith and math operations}}
  %r = scf.execute_region -> tensor<2xf32> {
    scf.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

kf.problem @p reference(@f) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'func.call' op is not allowed in the reference of problem "p": inline the callee}}
  %r = func.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32>

// -----

// expected-error @below {{#kf.uniform<1.000000e+00, 1.000000e+00>: lo must be less than hi}}
kf.problem @p reference(@f) inputs([#kf.uniform<1.0, 1.0>]) tolerance(<atol = 0.0, rtol = 0.0>)

// -----

// expected-error @below {{#kf.normal<0.000000e+00, -1.000000e+00>: the standard deviation must be positive}}
kf.problem @p reference(@f) inputs([#kf.normal<0.0, -1.0>]) tolerance(<atol = 0.0, rtol = 0.0>)

// -----

// expected-error @below {{#kf.int_range<5, 5>: lo must be less than hi (the range is [lo, hi))}}
kf.problem @p reference(@f) inputs([#kf.int_range<5, 5>]) tolerance(<atol = 0.0, rtol = 0.0>)

// -----

// expected-error @below {{#kf.tolerance<atol = -1.000000e-03, rtol = 0.000000e+00>: tolerances must be non-negative}}
kf.problem @p reference(@f) tolerance(<atol = -1.0e-3, rtol = 0.0>)

// -----

// expected-error @below {{#kf.tolerance values must be finite}}
kf.problem @p reference(@f) tolerance(<atol = 0x7FF0000000000000, rtol = 0.0>)

// -----

// The documented 32-bit hex literal is an f32's bits: +inf, not a denormal.
// expected-error @below {{#kf.tolerance values must be finite, got atol = INF}}
kf.problem @p reference(@f) tolerance(<atol = 0x7F800000, rtol = 0.0>)

// -----

// A hex literal of another width is refused rather than guessed.
// expected-error @below {{a hexadecimal float literal gives the bits of an f32 (8 hex digits, e.g. 0x7F800000) or of an f64 (16 hex digits); this one has 4}}
// expected-error @below {{failed to parse KF_ToleranceAttr parameter 'atol'}}
kf.problem @p reference(@f) tolerance(<atol = 0x3C00, rtol = 0.0>)

// -----

// expected-error @below {{unknown attribute `poisson` in dialect `kf`}}
kf.problem @p reference(@f) inputs([#kf.poisson<1.0>]) tolerance(<atol = 0.0, rtol = 0.0>)

// -----

// expected-error @below {{'kf.problem' op attribute 'inputs' failed to satisfy constraint: array of input distributions}}
kf.problem @p reference(@f) inputs([1.0 : f32]) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// Floats are written as MLIR float literals: a decimal integer is refused.
// expected-error @below {{unexpected decimal integer literal for a floating point value}}
// expected-note @below {{add a trailing dot to make the literal a float}}
// expected-error @below {{failed to parse KF_UniformAttr parameter 'lo'}}
kf.problem @p reference(@f) inputs([#kf.uniform<0, 1.0>]) tolerance(<atol = 0.0, rtol = 0.0>)
