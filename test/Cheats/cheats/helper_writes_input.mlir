// RUN: kf-opt %s --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir, as kernels that call device functions
// of their module (as imported CUDA does): the checks follow each call with
// its arguments bound, so what a helper stores and calls is the kernel's.

// The helper's `to` is the kernel's input: it writes into x, and y is never
// written.
module attributes {gpu.container_module} {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    gpu.launch_func @kernels::@relu blocks in (%c64, %c1, %c1) threads in (%c1000, %c1, %c1) args(%x : memref<64x1000xf32>, %y : memref<64x1000xf32>)
    return
  }
  gpu.module @kernels {
    llvm.func @store_relu(%from: !llvm.ptr, %to: !llvm.ptr, %i: i64) {
      %zero = llvm.mlir.constant(0.0 : f32) : f32
      %p = llvm.getelementptr %from[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = llvm.intr.maximum(%v, %zero) : (f32, f32) -> f32
      %q = llvm.getelementptr %to[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      // expected-error @below {{rejected [writes-input]: writes to input %arg0 (in 'store_relu', called from the kernel); inputs are read-only}}
      llvm.store %r, %q : f32, !llvm.ptr
      llvm.return
    }
    // expected-error @below {{rejected [output-not-written]: output %arg1 is never written}}
    llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c1000 = llvm.mlir.constant(1000 : i64) : i64
      %b = nvvm.read.ptx.sreg.ctaid.x : i32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %b64 = llvm.sext %b : i32 to i64
      %t64 = llvm.sext %t : i32 to i64
      %row = llvm.mul %b64, %c1000 : i64
      %i = llvm.add %row, %t64 : i64
      llvm.call @store_relu(%y, %x, %i) : (!llvm.ptr, !llvm.ptr, i64) -> ()
      llvm.return
    }
  }
}
