// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/sum_reduction.mlir: one warp per output;
// each lane adds two of the 64 rows, then a butterfly of warp shuffles
// adds the 32 lanes' sums; lane 0 stores.
module {
  func.func @sum(%x: memref<8x64x65xf32>, %y: memref<8x1x65xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c65 = arith.constant 65 : index
    %width = arith.constant 32 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c65, %gy = %c8, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %k2 = arith.addi %tx, %c32 : index
      %a = memref.load %x[%by, %tx, %bx] : memref<8x64x65xf32>
      %b = memref.load %x[%by, %k2, %bx] : memref<8x64x65xf32>
      %s0 = arith.addf %a, %b : f32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %p16, %v16 = gpu.shuffle xor %s0, %o16, %width : f32
      %s1 = arith.addf %s0, %p16 : f32
      %p8, %v8 = gpu.shuffle xor %s1, %o8, %width : f32
      %s2 = arith.addf %s1, %p8 : f32
      %p4, %v4 = gpu.shuffle xor %s2, %o4, %width : f32
      %s3 = arith.addf %s2, %p4 : f32
      %p2, %v2 = gpu.shuffle xor %s3, %o2, %width : f32
      %s4 = arith.addf %s3, %p2 : f32
      %p1, %v1 = gpu.shuffle xor %s4, %o1, %width : f32
      %s5 = arith.addf %s4, %p1 : f32
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %s5, %y[%by, %c0, %bx] : memref<8x1x65xf32>
      }
      gpu.terminator
    }
    return
  }
}
