// A candidate that never finishes: a correct ReLU, except that the first
// thread spins on a condition that stays true (it passes the static cheat
// checks: the loop's trip count is unknown). The evaluator must report a
// timeout and recover.
module {
  func.func @relu_hang(%x: memref<4096x393216xf32>, %y: memref<4096x393216xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c384 = arith.constant 384 : index
    %c1024 = arith.constant 1024 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c384, %gy = %c4096, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c1024 : index
      %col = arith.addi %base, %tx : index
      %v = memref.load %x[%by, %col] : memref<4096x393216xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%by, %col] : memref<4096x393216xf32>
      %first = arith.cmpi eq, %col, %c0 : index
      scf.if %first {
        // x is in [-1, 1): the loop condition never becomes false.
        %n = scf.while (%i = %c0) : (index) -> index {
          %e = memref.load %x[%by, %c0] : memref<4096x393216xf32>
          %cond = arith.cmpf olt, %e, %two : f32
          scf.condition(%cond) %i : index
        } do {
        ^bb0(%i: index):
          // An atomic is a side effect no compiler may remove.
          %one = arith.constant 1.0 : f32
          %old = memref.atomic_rmw addf %one, %y[%by, %c0] : (f32, memref<4096x393216xf32>) -> f32
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }
      }
      gpu.terminator
    }
    return
  }
}
