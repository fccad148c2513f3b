// RUN: kf-opt %s -split-input-file --kf-detect-cheats -verify-diagnostics

// Inline assembly in an untrusted module (an imported CUDA candidate) is a
// static reason, wherever it is: here in a device function the kernel calls.
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {kf.untrusted} {
    llvm.func @helper(%x: f32) -> f32 {
      // expected-error @below {{rejected [inline-assembly]: uses inline assembly (llvm.inline_asm), which untrusted candidates may not}}
      %y = llvm.inline_asm "mov.f32 $0, $1;", "=f,f" %x : (f32) -> f32
      llvm.return %y : f32
    }
    llvm.func @relu(%in: !llvm.ptr {kf.role = "input"}, %out: !llvm.ptr {kf.role = "output"}) attributes {gpu.kernel, nvvm.kernel} {
      %tx = nvvm.read.ptx.sreg.tid.x : i32
      %p = llvm.getelementptr %in[%tx] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %w = llvm.call @helper(%v) : (f32) -> f32
      %q = llvm.getelementptr %out[%tx] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      llvm.store %w, %q : f32, !llvm.ptr
      llvm.return
    }
  }
}

// -----

// Trusted kernel IR (kf's own lowering, a kernel author's module) may use it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @relu(%in: !llvm.ptr {kf.role = "input"}, %out: !llvm.ptr {kf.role = "output"}) attributes {gpu.kernel, nvvm.kernel} {
      %tx = nvvm.read.ptx.sreg.tid.x : i32
      %p = llvm.getelementptr %in[%tx] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %w = llvm.inline_asm "mov.f32 $0, $1;", "=f,f" %v : (f32) -> f32
      %q = llvm.getelementptr %out[%tx] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      llvm.store %w, %q : f32, !llvm.ptr
      llvm.return
    }
  }
}
