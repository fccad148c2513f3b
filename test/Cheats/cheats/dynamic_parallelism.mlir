// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Launches the real work from the device,
// where it escapes the timer.
module {
  func.func private @cudaLaunchDevice(!llvm.ptr, !llvm.ptr, i64, i64, i32, !llvm.ptr) -> i32
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%bx, %tx] : memref<64x1000xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%bx, %tx] : memref<64x1000xf32>
      %null = llvm.mlir.zero : !llvm.ptr
      %g = arith.constant 1 : i64
      %s = arith.constant 0 : i32
      // expected-error @below {{rejected [dynamic-parallelism]: launches work from the device ('cudaLaunchDevice'): dynamic parallelism escapes kf's timing and checks}}
      %e = func.call @cudaLaunchDevice(%null, %null, %g, %g, %s, %null) : (!llvm.ptr, !llvm.ptr, i64, i64, i32, !llvm.ptr) -> i32
      gpu.terminator
    }
    return
  }
}
