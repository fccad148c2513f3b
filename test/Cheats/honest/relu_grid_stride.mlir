// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/relu.mlir: 2048 threads walk the 64000
// elements with a grid-stride loop (its trip count depends on the thread,
// so the partial-write check must not claim anything).
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %c2048 = arith.constant 2048 : index
    %c64000 = arith.constant 64000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c256 : index
      %start = arith.addi %base, %tx : index
      scf.for %i = %start to %c64000 step %c2048 {
        %row = arith.divui %i, %c1000 : index
        %col = arith.remui %i, %c1000 : index
        %v = memref.load %x[%row, %col] : memref<64x1000xf32>
        %r = arith.maximumf %v, %zero : f32
        memref.store %r, %y[%row, %col] : memref<64x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
