// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir on 64x1000. Reads the input, but every
// bit that came from it is shifted out before the store: the stored value
// is the constant 1.0 (0x3F800000), whatever the input holds.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %c31 = arith.constant 31 : i32
    %c1i = arith.constant 1 : i32
    %one = arith.constant 1065353216 : i32
    // expected-error @below {{rejected [output-independent-of-inputs]: output %arg1 never depends on any input}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %b = arith.bitcast %v : f32 to i32
      %s = arith.shli %b, %c31 : i32
      %t = arith.shli %s, %c1i : i32
      %o = arith.ori %t, %one : i32
      %f = arith.bitcast %o : i32 to f32
      memref.store %f, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
