// A faulting candidate for examples/problems/relu.mlir: a correct ReLU,
// except that the first thread also stores about 15 TB past the output
// buffer (it passes the static cheat checks: the fault is found at run
// time). The evaluator must report a runtime fault, and the next candidate
// must still evaluate.
module {
  func.func @relu_oob(%x: memref<4096x393216xf32>, %y: memref<4096x393216xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c384 = arith.constant 384 : index
    %c1024 = arith.constant 1024 : index
    %c4096 = arith.constant 4096 : index
    %far = arith.constant 10000000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c384, %gy = %c4096, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c1024 : index
      %col = arith.addi %base, %tx : index
      %v = memref.load %x[%by, %col] : memref<4096x393216xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%by, %col] : memref<4096x393216xf32>
      %first = arith.cmpi eq, %col, %c0 : index
      scf.if %first {
        memref.store %r, %y[%far, %c0] : memref<4096x393216xf32>
      }
      gpu.terminator
    }
    return
  }
}
