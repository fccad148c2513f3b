// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Problem: examples/small/matmul.mlir. The inputs are copied into shared
// memory asynchronously, but the outputs are computed from another shared
// buffer that no copy reaches: following the data through cp.async must
// not make every shared buffer input-derived.
module {
  func.func @matmul(%a: memref<96x96xf32>, %b: memref<96x96xf32>, %c: memref<96x96xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    // expected-error @below {{rejected [output-independent-of-inputs]: output %arg2 never depends on any input}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c6, %gy = %c6, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1)
               workgroup(%as : memref<16x16xf32, #gpu.address_space<workgroup>>,
                         %ones : memref<16x16xf32, #gpu.address_space<workgroup>>) {
      %rowBase = arith.muli %by, %c16 : index
      %colBase = arith.muli %bx, %c16 : index
      %row = arith.addi %rowBase, %ty : index
      %col = arith.addi %colBase, %tx : index
      memref.store %one, %ones[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      %ta = nvgpu.device_async_copy %a[%row, %col], %as[%ty, %tx], 1 : memref<96x96xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %ta
      nvgpu.device_async_wait %g
      gpu.barrier
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%t = %zero) -> (f32) {
        %x = memref.load %ones[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %n = arith.addf %x, %t : f32
        scf.yield %n : f32
      }
      memref.store %sum, %c[%row, %col] : memref<96x96xf32>
      gpu.terminator
    }
    return
  }
}
