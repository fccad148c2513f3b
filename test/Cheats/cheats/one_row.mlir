// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Computes row 0 only and relies on the
// rest of the output buffer still holding the reference's result.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [output-partly-written]: output %arg1 has 64000 elements but no store can reach elements 1000 to 63999}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%c0, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%c0, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
