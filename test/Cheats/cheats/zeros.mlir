// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/softmax.mlir. Softmax outputs are about 1e-3
// here: an all-zero output would fit an absolute tolerance of 1e-2.
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [output-independent-of-inputs]: output %arg1 never depends on any input: every value stored to it is computed without reading the inputs}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      memref.store %zero, %y[%bx, %tx] : memref<32x1000xf32>
      gpu.terminator
    }
    return
  }
}
