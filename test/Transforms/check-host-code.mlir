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
