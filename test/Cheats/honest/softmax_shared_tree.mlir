// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/softmax.mlir: a block per row; the row's
// maximum and sum go through a shared-memory tree reduction (8 halving
// steps between barriers); data reaches the output through shared memory.
module {
  func.func @softmax(%x: memref<32x1000xf32>, %y: memref<32x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
               workgroup(%sh : memref<256xf32, #gpu.address_space<workgroup>>) {
      // Row maximum: strided partial maxima, then the tree.
      %pm = scf.for %j = %tx to %c1000 step %c256 iter_args(%acc = %neg_inf) -> (f32) {
        %v = memref.load %x[%bx, %j] : memref<32x1000xf32>
        %n = arith.maximumf %v, %acc : f32
        scf.yield %n : f32
      }
      memref.store %pm, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %step = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %step : index
        %active = arith.cmpi ult, %tx, %half : index
        scf.if %active {
          %other = arith.addi %tx, %half : index
          %a = memref.load %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
          %b = memref.load %sh[%other] : memref<256xf32, #gpu.address_space<workgroup>>
          %m = arith.maximumf %a, %b : f32
          memref.store %m, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %max = memref.load %sh[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // Row sum of exp(x - max), the same way.
      %ps = scf.for %j = %tx to %c1000 step %c256 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%bx, %j] : memref<32x1000xf32>
        %d = arith.subf %v, %max : f32
        %e = math.exp %d : f32
        %n = arith.addf %e, %acc : f32
        scf.yield %n : f32
      }
      memref.store %ps, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %step = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %step : index
        %active = arith.cmpi ult, %tx, %half : index
        scf.if %active {
          %other = arith.addi %tx, %half : index
          %a = memref.load %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
          %b = memref.load %sh[%other] : memref<256xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %a, %b : f32
          memref.store %s, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %sum = memref.load %sh[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      scf.for %j = %tx to %c1000 step %c256 {
        %v = memref.load %x[%bx, %j] : memref<32x1000xf32>
        %d = arith.subf %v, %max : f32
        %e = math.exp %d : f32
        %q = arith.divf %e, %sum : f32
        memref.store %q, %y[%bx, %j] : memref<32x1000xf32>
      }
      gpu.terminator
    }
    return
  }
}
