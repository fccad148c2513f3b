// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=3 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/layernorm.mlir: a statistics kernel (a
// block per sample, shared-memory tree sums of x and of the squared
// deviations) writes mean and 1/std to scratch memory; a second kernel
// normalizes and applies the weight and bias.
module {
  func.func @layernorm(%x: memref<4x8x16x16xf32>, %w: memref<8x16x16xf32>, %b: memref<8x16x16xf32>,
                       %y: memref<4x8x16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c2048 = arith.constant 2048 : index
    %zero = arith.constant 0.0 : f32
    %count = arith.constant 2048.0 : f32
    %eps = arith.constant 1.0e-05 : f32
    %stats = memref.alloc() : memref<4x2xf32>
    %xf = memref.collapse_shape %x [[0], [1, 2, 3]] : memref<4x8x16x16xf32> into memref<4x2048xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
               workgroup(%sh : memref<256xf32, #gpu.address_space<workgroup>>) {
      %ps = scf.for %j = %tx to %c2048 step %c256 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %xf[%bx, %j] : memref<4x2048xf32>
        %n = arith.addf %v, %acc : f32
        scf.yield %n : f32
      }
      memref.store %ps, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %step = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %step : index
        %active = arith.cmpi ult, %tx, %half : index
        scf.if %active {
          %other = arith.addi %tx, %half : index
          %p = memref.load %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %sh[%other] : memref<256xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %p, %q : f32
          memref.store %s, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %total = memref.load %sh[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      %mean = arith.divf %total, %count : f32
      gpu.barrier
      %pq = scf.for %j = %tx to %c2048 step %c256 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %xf[%bx, %j] : memref<4x2048xf32>
        %d = arith.subf %v, %mean : f32
        %d2 = arith.mulf %d, %d : f32
        %n = arith.addf %d2, %acc : f32
        scf.yield %n : f32
      }
      memref.store %pq, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %step = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %step : index
        %active = arith.cmpi ult, %tx, %half : index
        scf.if %active {
          %other = arith.addi %tx, %half : index
          %p = memref.load %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
          %q = memref.load %sh[%other] : memref<256xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %p, %q : f32
          memref.store %s, %sh[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %sq = memref.load %sh[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      %var = arith.divf %sq, %count : f32
      %ve = arith.addf %var, %eps : f32
      %rstd = math.rsqrt %ve : f32
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %mean, %stats[%bx, %c0] : memref<4x2xf32>
        memref.store %rstd, %stats[%bx, %c1] : memref<4x2xf32>
      }
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c4, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
      %mean = memref.load %stats[%by, %c0] : memref<4x2xf32>
      %rstd = memref.load %stats[%by, %c1] : memref<4x2xf32>
      %v = memref.load %x[%by, %bx, %ty, %tx] : memref<4x8x16x16xf32>
      %wv = memref.load %w[%bx, %ty, %tx] : memref<8x16x16xf32>
      %bv = memref.load %b[%bx, %ty, %tx] : memref<8x16x16xf32>
      %d = arith.subf %v, %mean : f32
      %n = arith.mulf %d, %rstd : f32
      %s = arith.mulf %n, %wv : f32
      %o = arith.addf %s, %bv : f32
      memref.store %o, %y[%by, %bx, %ty, %tx] : memref<4x8x16x16xf32>
      gpu.terminator
    }
    memref.dealloc %stats : memref<4x2xf32>
    return
  }
}
