// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir on 64x1000. Stages the input in the
// lower half of a shared buffer and zeros in the upper half, then stores
// the upper half: the buffer holds input data, but not where it is read.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{rejected [output-independent-of-inputs]: output %arg1 never depends on any input}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1)
               workgroup(%s : memref<2000xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      memref.store %v, %s[%tx] : memref<2000xf32, #gpu.address_space<workgroup>>
      %hi = arith.addi %tx, %c1000 : index
      memref.store %zero, %s[%hi] : memref<2000xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %s[%hi] : memref<2000xf32, #gpu.address_space<workgroup>>
      memref.store %w, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
