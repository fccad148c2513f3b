// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/relu.mlir: a constant store followed by a
// conditional one (the constant store alone must not make the output look
// input-independent).
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      memref.store %zero, %y[%bx, %tx] : memref<64x1000xf32>
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %positive = arith.cmpf ogt, %v, %zero : f32
      scf.if %positive {
        memref.store %v, %y[%bx, %tx] : memref<64x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
