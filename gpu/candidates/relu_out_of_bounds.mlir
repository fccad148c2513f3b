// A faulting candidate for examples/problems/relu.mlir: one thread stores
// about 15 TB past the output buffer. The evaluator must report a runtime
// fault, and the next candidate must still evaluate.
module {
  func.func @relu_oob(%x: memref<4096x393216xf32>, %y: memref<4096x393216xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %far = arith.constant 10000000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      memref.store %zero, %y[%far, %c0] : memref<4096x393216xf32>
      gpu.terminator
    }
    return
  }
}
