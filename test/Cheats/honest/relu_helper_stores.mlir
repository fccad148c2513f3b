// RUN: kf-opt %s --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/relu.mlir on 64x1000: the kernel leaves
// the load and the store to a device function (as CUDA's helpers do); the
// helper's stores are the kernel's, bound to the buffers the call passes.
// An earlier kf saw only the kernel's own body and rejected this as
// output-not-written.
module attributes {gpu.container_module} {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    gpu.launch_func @kernels::@relu blocks in (%c64, %c1, %c1) threads in (%c1000, %c1, %c1) args(%x : memref<64x1000xf32>, %y : memref<64x1000xf32>)
    return
  }
  gpu.module @kernels {
    llvm.func @load_at(%from: !llvm.ptr, %i: i64) -> f32 {
      %p = llvm.getelementptr %from[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      llvm.return %v : f32
    }
    llvm.func @store_relu(%value: f32, %to: !llvm.ptr, %i: i64) {
      %zero = llvm.mlir.constant(0.0 : f32) : f32
      %r = llvm.intr.maximum(%value, %zero) : (f32, f32) -> f32
      %q = llvm.getelementptr %to[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %r, %q : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c1000 = llvm.mlir.constant(1000 : i64) : i64
      %b = nvvm.read.ptx.sreg.ctaid.x : i32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %b64 = llvm.sext %b : i32 to i64
      %t64 = llvm.sext %t : i32 to i64
      %row = llvm.mul %b64, %c1000 : i64
      %i = llvm.add %row, %t64 : i64
      %v = llvm.call @load_at(%x, %i) : (!llvm.ptr, i64) -> f32
      llvm.call @store_relu(%v, %y, %i) : (f32, !llvm.ptr, i64) -> ()
      llvm.return
    }
  }
}
