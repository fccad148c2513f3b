// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/sum_reduction.mlir: partial sums of 16
// rows each into a scratch buffer, then a second kernel adds the 4
// partials (the output's data passes through scratch memory).
module {
  func.func @sum(%x: memref<8x64x65xf32>, %y: memref<8x1x65xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c65 = arith.constant 65 : index
    %zero = arith.constant 0.0 : f32
    %partial = memref.alloc() : memref<8x4x65xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c8, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c65, %sy = %c1, %sz = %c1) {
      %start = arith.muli %bx, %c16 : index
      %end = arith.addi %start, %c16 : index
      %s = scf.for %k = %start to %end step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%by, %k, %tx] : memref<8x64x65xf32>
        %n = arith.addf %v, %acc : f32
        scf.yield %n : f32
      }
      memref.store %s, %partial[%by, %bx, %tx] : memref<8x4x65xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c65, %sy = %c1, %sz = %c1) {
      %s = scf.for %p = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %partial[%bx, %p, %tx] : memref<8x4x65xf32>
        %n = arith.addf %v, %acc : f32
        scf.yield %n : f32
      }
      memref.store %s, %y[%bx, %c0, %tx] : memref<8x1x65xf32>
      gpu.terminator
    }
    memref.dealloc %partial : memref<8x4x65xf32>
    return
  }
}
