// A candidate that never finishes: every thread spins on a value no one
// writes. The evaluator must report a timeout and recover.
module {
  func.func @relu_hang(%x: memref<4096x393216xf32>, %y: memref<4096x393216xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // x is in [-1, 1): the loop condition never becomes false.
      %r = scf.while (%v = %c0) : (index) -> index {
        %e = memref.load %x[%c0, %c0] : memref<4096x393216xf32>
        %cond = arith.cmpf olt, %e, %two : f32
        scf.condition(%cond) %v : index
      } do {
      ^bb0(%v: index):
        // An atomic is a side effect no compiler may remove.
        %one = arith.constant 1.0 : f32
        %old = memref.atomic_rmw addf %one, %y[%c0, %c0] : (f32, memref<4096x393216xf32>) -> f32
        %n = arith.addi %v, %c1 : index
        scf.yield %n : index
      }
      gpu.terminator
    }
    return
  }
}
