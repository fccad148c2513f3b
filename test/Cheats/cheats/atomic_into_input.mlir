// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/sum_reduction.mlir. Accumulates the column sums
// into row 0 of the input with atomics and copies them out.
module {
  func.func @sum(%x: memref<8x64x65xf32>, %y: memref<8x1x65xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c65 = arith.constant 65 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c65, %sy = %c64, %sz = %c1) {
      %v = memref.load %x[%bx, %ty, %tx] : memref<8x64x65xf32>
      %nonzero = arith.cmpi ne, %ty, %c0 : index
      scf.if %nonzero {
        // expected-error @below {{rejected [writes-input]: writes to input %arg0; inputs are read-only}}
        %old = memref.atomic_rmw addf %v, %x[%bx, %c0, %tx] : (f32, memref<8x64x65xf32>) -> f32
      }
      gpu.barrier
      %s = memref.load %x[%bx, %c0, %tx] : memref<8x64x65xf32>
      memref.store %s, %y[%bx, %c0, %tx] : memref<8x1x65xf32>
      gpu.terminator
    }
    return
  }
}
