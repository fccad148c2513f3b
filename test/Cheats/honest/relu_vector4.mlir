// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/relu.mlir: 4 elements per thread as one
// vector load and store.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c250 = arith.constant 250 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c250, %sy = %c1, %sz = %c1) {
      %col = arith.muli %tx, %c4 : index
      %v = vector.load %x[%bx, %col] : memref<64x1000xf32>, vector<4xf32>
      %r = arith.maximumf %v, %zero : vector<4xf32>
      vector.store %r, %y[%bx, %col] : memref<64x1000xf32>, vector<4xf32>
      gpu.terminator
    }
    return
  }
}
