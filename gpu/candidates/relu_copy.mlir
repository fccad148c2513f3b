// A wrong candidate for examples/problems/relu.mlir: it copies the input
// (ReLU is the identity only on non-negative inputs). The evaluator must
// report it incorrect.
module {
  func.func @relu_copy(%x: memref<4096x393216xf32>, %y: memref<4096x393216xf32>) {
    %c1 = arith.constant 1 : index
    %c384 = arith.constant 384 : index
    %c1024 = arith.constant 1024 : index
    %c4096 = arith.constant 4096 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c384, %gy = %c4096, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c1024 : index
      %col = arith.addi %base, %tx : index
      %v = memref.load %x[%by, %col] : memref<4096x393216xf32>
      memref.store %v, %y[%by, %col] : memref<4096x393216xf32>
      gpu.terminator
    }
    return
  }
}
