// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/sum_reduction.mlir (f32). Accumulates in half
// precision.
module {
  func.func @sum(%x: memref<8x64x65xf32>, %y: memref<8x1x65xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c65 = arith.constant 65 : index
    // expected-error @below {{rejected [lower-precision]: computes in f16}}
    %zero = arith.constant 0.0 : f16
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c65, %sy = %c1, %sz = %c1) {
      %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f16) {
        %v = memref.load %x[%bx, %k, %tx] : memref<8x64x65xf32>
        %h = arith.truncf %v : f32 to f16
        %n = arith.addf %h, %acc : f16
        scf.yield %n : f16
      }
      %f = arith.extf %s : f16 to f32
      memref.store %f, %y[%bx, %c0, %tx] : memref<8x1x65xf32>
      gpu.terminator
    }
    return
  }
}
