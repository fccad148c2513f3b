// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/softmax.mlir (f32). Computes the exponentials in
// half precision.
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %s = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%tx, %j] : memref<32x1000xf32>
        // expected-error @below {{rejected [lower-precision]: computes in f16, narrower than the 32-bit floating point the problem requires}}
        %h = arith.truncf %v : f32 to f16
        %e = math.exp %h : f16
        %w = arith.extf %e : f16 to f32
        %n = arith.addf %w, %acc : f32
        scf.yield %n : f32
      }
      scf.for %j = %c0 to %c1000 step %c1 {
        %v = memref.load %x[%tx, %j] : memref<32x1000xf32>
        %e = math.exp %v : f32
        %q = arith.divf %e, %s : f32
        memref.store %q, %y[%tx, %j] : memref<32x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
