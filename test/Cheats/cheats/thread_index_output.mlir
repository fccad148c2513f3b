// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Outputs a function of the thread
// index only (a pattern that might match a fixed test input).
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %scale = arith.constant 0.001 : f32
    // expected-error @below {{rejected [output-independent-of-inputs]}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %i = arith.index_cast %tx : index to i32
      %f = arith.sitofp %i : i32 to f32
      %v = arith.mulf %f, %scale : f32
      memref.store %v, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
