// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/matmul.mlir: the tiles of A and B reach
// shared memory by asynchronous copies (nvgpu.device_async_copy, cp.async
// after lowering) and only from there the outputs: the dependence analysis
// follows the data through the copies.
module {
  func.func @matmul(%a: memref<96x96xf32>, %b: memref<96x96xf32>, %c: memref<96x96xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c6, %gy = %c6, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1)
               workgroup(%as : memref<16x16xf32, #gpu.address_space<workgroup>>,
                         %bs : memref<16x16xf32, #gpu.address_space<workgroup>>) {
      %rowBase = arith.muli %by, %c16 : index
      %colBase = arith.muli %bx, %c16 : index
      %row = arith.addi %rowBase, %ty : index
      %col = arith.addi %colBase, %tx : index
      %sum = scf.for %kt = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
        %kBase = arith.muli %kt, %c16 : index
        %ka = arith.addi %kBase, %tx : index
        %kb = arith.addi %kBase, %ty : index
        %ta = nvgpu.device_async_copy %a[%row, %ka], %as[%ty, %tx], 1 : memref<96x96xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
        %tb = nvgpu.device_async_copy %b[%kb, %col], %bs[%ty, %tx], 1 : memref<96x96xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
        %g = nvgpu.device_async_create_group %ta, %tb
        nvgpu.device_async_wait %g
        gpu.barrier
        %tile = scf.for %k = %c0 to %c16 step %c1 iter_args(%t = %acc) -> (f32) {
          %x = memref.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %w = memref.load %bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %w : f32
          %n = arith.addf %p, %t : f32
          scf.yield %n : f32
        }
        gpu.barrier
        scf.yield %tile : f32
      }
      memref.store %sum, %c[%row, %col] : memref<96x96xf32>
      gpu.terminator
    }
    return
  }
}
