// A kernel candidate for examples/small/relu.mlir that LLVM 22's NVPTX
// backend cannot compile for sm_90 (an f32 redux.sync): kf-evolve must
// report a compile error for it and go on, not abort.
module {
  func.func @relu_redux(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %mask = arith.constant -1 : i32
      %zero = arith.constant 0.0 : f32
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %m = nvvm.redux.sync fmax %v, %mask : f32 -> f32
      %r = arith.maximumf %m, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
