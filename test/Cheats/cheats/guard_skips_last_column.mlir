// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir on 64x1000. Every thread stores its
// element, except that a bounds guard keeps column 999 out: the grid has as
// many threads as the output has elements, so counting stores alone would
// pass it; the guard's bound on the index does not.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c999 = arith.constant 999 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [output-partly-written]: output %arg1 has 64000 elements but no store can reach elements 63999 to 63999}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %in = arith.cmpi ult, %tx, %c999 : index
      scf.if %in {
        %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
        %r = arith.maximumf %v, %zero : f32
        memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
