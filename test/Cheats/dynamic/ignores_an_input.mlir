// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Problem: examples/small/matmul.mlir. Computes A x A instead of A x B:
// the output depends on an input, so only the evaluator can tell.
module {
  func.func @matmul(%a: memref<96x96xf32>, %b: memref<96x96xf32>, %c: memref<96x96xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c96, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
      %s = scf.for %k = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> (f32) {
        %av = memref.load %a[%bx, %k] : memref<96x96xf32>
        %bv = memref.load %a[%k, %tx] : memref<96x96xf32>
        %p = arith.mulf %av, %bv : f32
        %n = arith.addf %p, %acc : f32
        scf.yield %n : f32
      }
      memref.store %s, %c[%bx, %tx] : memref<96x96xf32>
      gpu.terminator
    }
    return
  }
}
