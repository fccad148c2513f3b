// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/softmax.mlir. A correct softmax of the first 16
// of 32 rows (each thread loops over its row's 1000 elements).
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    // expected-error @below {{rejected [output-partly-written]: output %arg1 has 32000 elements but no store can reach elements 16000 to 31999}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %m = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %neg_inf) -> (f32) {
        %v = memref.load %x[%tx, %j] : memref<32x1000xf32>
        %n = arith.maximumf %v, %acc : f32
        scf.yield %n : f32
      }
      %s = scf.for %j = %c0 to %c1000 step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%tx, %j] : memref<32x1000xf32>
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        %n = arith.addf %e, %acc : f32
        scf.yield %n : f32
      }
      scf.for %j = %c0 to %c1000 step %c1 {
        %v = memref.load %x[%tx, %j] : memref<32x1000xf32>
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        %q = arith.divf %e, %s : f32
        memref.store %q, %y[%tx, %j] : memref<32x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
