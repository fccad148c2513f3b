// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=3 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/gemm_bias_relu.mlir: matmul, bias and ReLU
// fused in one kernel, a thread per output.
module {
  func.func @gemm(%x: memref<32x256xf32>, %w: memref<192x256xf32>, %bias: memref<192xf32>,
                  %y: memref<32x192xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c192 = arith.constant 192 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c192, %sy = %c1, %sz = %c1) {
      %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %x[%bx, %k] : memref<32x256xf32>
        %b = memref.load %w[%tx, %k] : memref<192x256xf32>
        %p = arith.mulf %a, %b : f32
        %n = arith.addf %p, %acc : f32
        scf.yield %n : f32
      }
      %bv = memref.load %bias[%tx] : memref<192xf32>
      %t = arith.addf %s, %bv : f32
      %r = arith.maximumf %t, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<32x192xf32>
      gpu.terminator
    }
    return
  }
}
