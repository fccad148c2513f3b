// RUN: kf-opt %s -split-input-file -kf-check-host-code -verify-diagnostics

// Host code may allocate, copy, reshape and launch.
module attributes {gpu.container_module} {
  func.func @ok(%a: memref<4x8xf32>, %b: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %tmp = memref.alloc() : memref<4x8xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4x8xf32>, %tmp : memref<4x8xf32>)
    %flat = memref.collapse_shape %tmp [[0, 1]] : memref<4x8xf32> into memref<32xf32>
    memref.copy %flat, %b : memref<32xf32> to memref<32xf32>
    memref.dealloc %tmp : memref<4x8xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%a: memref<4x8xf32>, %b: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Computation left on the host is reported where it is.
func.func @loop(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @below {{'scf.for' cannot run on the host: kf executes only buffer allocation, copies, reshapes and kernel launches there; the schedule must map this computation to the GPU}}
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// The host function takes buffers only: sizes are static.
// expected-error @below {{argument 1 has type 'index'; the runtime binds statically shaped contiguous memrefs}}
func.func @dynamic(%a: memref<8xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Outputs are out-parameters, not results.
// expected-error @below {{the host function still returns 1 values: outputs must be out-parameters (run buffer-results-to-out-params, as kf-lower-to-ptx does)}}
func.func @returns(%a: memref<8xf32>) -> memref<8xf32> {
  return %a : memref<8xf32>
}

// -----

// A scalar result: buffer-results-to-out-params converts memref results
// only, so the advice is to store the value into an output buffer.
// expected-error @below {{the host function returns a value of type 'i32', which kf's runtime cannot return: host functions return nothing, and every output is a buffer among the arguments; compute the value in a kernel and store it into a memref argument of type 'memref<1xi32>'}}
func.func @returns_scalar(%a: memref<8xf32>) -> i32 {
  %c0 = arith.constant 0 : i32
  return %c0 : i32
}

// -----

// A memref and a scalar: the scalar is what buffer-results-to-out-params
// would leave behind.
// expected-error @below {{the host function returns a value of type 'f32'}}
func.func @returns_both(%a: memref<8xf32>) -> (memref<8xf32>, f32) {
  %c0 = arith.constant 0.0 : f32
  return %a, %c0 : memref<8xf32>, f32
}

// -----

// An f16 constant that only initializes a host buffer never reaches a
// kernel: the host loop is the error, not the constant.
func.func @f16_init(%a: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f16
  // expected-error @below {{'scf.for' cannot run on the host}}
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %a[%i, %c0] : memref<16x16xf16>
  }
  return
}

// -----

// An f16 constant used inside a launch is sunk into the kernel by
// outlining: no error.
func.func @f16_in_launch(%a: memref<16xf16>) {
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f16
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %half, %a[%tx] : memref<16xf16>
    gpu.terminator
  }
  return
}

// -----

// Passed to a kernel, it is refused where it is passed.
module attributes {gpu.container_module} {
  func.func @f16_argument(%a: memref<16xf16>) {
    %c1 = arith.constant 1 : index
    // expected-note @below {{the operand is defined here}}
    %half = arith.constant 0.5 : f16
    // expected-error @below {{kernel operand 1 has type 'f16'; the runtime passes buffers, integers of up to 64 bits and f32 or f64 scalars to kernels}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf16>, %half : f16)
    return
  }
  gpu.module @k {
    gpu.func @k(%a: memref<16xf16>, %h: f16) kernel {
      gpu.return
    }
  }
}

