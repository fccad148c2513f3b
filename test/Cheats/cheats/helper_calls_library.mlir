// RUN: kf-opt %s --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir, as kernels that call device functions
// of their module (as imported CUDA does): the checks follow each call with
// its arguments bound, so what a helper stores and calls is the kernel's.

// A helper that hands the work to a library routine: the call is judged
// where it is, in the helper.
module attributes {gpu.container_module} {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    gpu.launch_func @kernels::@relu blocks in (%c64, %c1, %c1) threads in (%c1000, %c1, %c1) args(%x : memref<64x1000xf32>, %y : memref<64x1000xf32>)
    return
  }
  gpu.module @kernels {
    llvm.func @library_relu(!llvm.ptr, !llvm.ptr, i64)
    llvm.func @helper(%from: !llvm.ptr, %to: !llvm.ptr, %i: i64) {
      // expected-error @below {{rejected [disallowed-call]: calls 'library_relu'}}
      llvm.call @library_relu(%from, %to, %i) : (!llvm.ptr, !llvm.ptr, i64) -> ()
      llvm.return
    }
    // expected-error @below {{rejected [output-not-written]: output %arg1 is never written}}
    llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %b = nvvm.read.ptx.sreg.ctaid.x : i32
      %b64 = llvm.sext %b : i32 to i64
      llvm.call @helper(%x, %y, %b64) : (!llvm.ptr, !llvm.ptr, i64) -> ()
      llvm.return
    }
  }
}
