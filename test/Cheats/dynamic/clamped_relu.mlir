// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir (inputs on [-1, 1)). Clamps to [0, 2]:
// right for every input of the declared range, and for the negated one,
// wrong on the heavy-tailed trial's outliers (up to 8). Only the evaluator
// can tell.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      %c = arith.minimumf %r, %two : f32
      memref.store %c, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
