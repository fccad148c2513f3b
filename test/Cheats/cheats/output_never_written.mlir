// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Computes into a scratch buffer and
// never writes the output: what is in the output buffer (the reference's
// result, left in reused memory) is reported.
module {
  // expected-error @below {{rejected [output-not-written]: output %arg1 is never written}}
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    %tmp = memref.alloc() : memref<64x1000xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %tmp[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    memref.dealloc %tmp : memref<64x1000xf32>
    return
  }
}
