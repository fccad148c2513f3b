// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/softmax.mlir (inputs uniform on [-5, 5]).
// Replaces each row's sum of exp(x - 5) by its expectation for that
// distribution, 1000 * (1 - e^-10) / 10, skipping the reduction: close on
// average, wrong row by row. Only the evaluator can tell.
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %five = arith.constant 5.0 : f32
    %expected = arith.constant 99.9954604 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<32x1000xf32>
      %d = arith.subf %v, %five : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %expected : f32
      memref.store %q, %y[%bx, %tx] : memref<32x1000xf32>
      gpu.terminator
    }
    return
  }
}
