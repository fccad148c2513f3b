// Writes zeros: every softmax output is about 1e-3 here, far outside the
// tolerance.
module {
  func.func @zeros(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      memref.store %zero, %y[%bx, %tx] : memref<32x1000xf32>
      gpu.terminator
    }
    return
  }
}
