// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Keeps results in a device global that
// survives between launches, so later calls can replay them.
module {
  // expected-error @below {{rejected [persistent-global]: device global 'cache' keeps its contents across launches, where a kernel can cache results}}
  memref.global "private" @cache : memref<64x1000xf32> = uninitialized
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %cache = memref.get_global @cache : memref<64x1000xf32>
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %cache[%bx, %tx] : memref<64x1000xf32>
      %w = memref.load %cache[%bx, %tx] : memref<64x1000xf32>
      memref.store %w, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
