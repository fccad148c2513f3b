// RUN: kf-opt %s --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir, as kernels that call device functions
// of their module (as imported CUDA does): the checks follow each call with
// its arguments bound, so what a helper stores and calls is the kernel's.

// Recursion: what the calls store cannot be followed to the end, so the
// kernel is refused as not judged rather than passed.
module attributes {gpu.container_module} {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    gpu.launch_func @kernels::@relu blocks in (%c64, %c1, %c1) threads in (%c1000, %c1, %c1) args(%x : memref<64x1000xf32>, %y : memref<64x1000xf32>)
    return
  }
  gpu.module @kernels {
    llvm.func @walk(%from: !llvm.ptr, %to: !llvm.ptr, %i: i64) {
      %zero = llvm.mlir.constant(0.0 : f32) : f32
      %one = llvm.mlir.constant(1 : i64) : i64
      %p = llvm.getelementptr %from[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = llvm.intr.maximum(%v, %zero) : (f32, f32) -> f32
      %q = llvm.getelementptr %to[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %r, %q : f32, !llvm.ptr
      %next = llvm.add %i, %one : i64
      // expected-error @below {{rejected [recursive-call]: calls 'walk' recursively: kf's checks cannot follow what it stores, so the kernel is not judged}}
      llvm.call @walk(%from, %to, %next) : (!llvm.ptr, !llvm.ptr, i64) -> ()
      llvm.return
    }
    llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      llvm.call @walk(%x, %y, %c0) : (!llvm.ptr, !llvm.ptr, i64) -> ()
      llvm.return
    }
  }
}
