// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir on 64x1000. Two launches of 32 rows
// each, as in honest/relu_two_launches.mlir, but the second one writes the
// same rows as the first: together they store 64000 times, and rows 32 to
// 63 are never written.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [output-partly-written]: output %arg1 has 64000 elements but no store can reach elements 32000 to 63999}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
