// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/sum_reduction.mlir. Sums every other row and
// doubles the result: a statistical shortcut that halves the reads. Only
// the evaluator can tell (incorrect).
module {
  func.func @sum(%x: memref<8x64x65xf32>, %y: memref<8x1x65xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c65 = arith.constant 65 : index
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c65, %sy = %c1, %sz = %c1) {
      %s = scf.for %k = %c0 to %c64 step %c2 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%bx, %k, %tx] : memref<8x64x65xf32>
        %n = arith.addf %v, %acc : f32
        scf.yield %n : f32
      }
      %d = arith.mulf %s, %two : f32
      memref.store %d, %y[%bx, %c0, %tx] : memref<8x1x65xf32>
      gpu.terminator
    }
    return
  }
}
