// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/softmax.mlir. Every output 1/1000: the average
// softmax value, close to the truth for inputs of small spread.
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %one = arith.constant 1.0 : f32
    %n = arith.constant 1000.0 : f32
    // expected-error @below {{rejected [output-independent-of-inputs]}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = arith.divf %one, %n : f32
      memref.store %v, %y[%bx, %tx] : memref<32x1000xf32>
      gpu.terminator
    }
    return
  }
}
