// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Problem: examples/small/matmul.mlir (f32). Multiplies in bfloat16.
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
        %bv = memref.load %b[%k, %tx] : memref<96x96xf32>
        // expected-error @below {{rejected [lower-precision]: computes in bf16}}
        %ah = arith.truncf %av : f32 to bf16
        %bh = arith.truncf %bv : f32 to bf16
        %p = arith.mulf %ah, %bh : bf16
        %pf = arith.extf %p : bf16 to f32
        %n = arith.addf %pf, %acc : f32
        scf.yield %n : f32
      }
      memref.store %s, %c[%bx, %tx] : memref<96x96xf32>
      gpu.terminator
    }
    return
  }
}
