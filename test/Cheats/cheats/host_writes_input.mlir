// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir on 64x1000. The kernel is an honest
// ReLU, but the host code first overwrites the input with what the output
// buffer holds (which a candidate could have filled on an earlier run): what
// the kernel reads is the candidate's, not the problem's.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [writes-input]: host code writes to input %arg0; inputs are read-only}}
    memref.copy %y, %x : memref<64x1000xf32> to memref<64x1000xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
