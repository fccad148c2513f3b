// What the target checks do not catch and LLVM's NVPTX backend cannot
// compile ends in a located error, not in an abort of kf-opt: an f32
// redux.sync verifies (it is sm_80's instruction for i32) but LLVM 22
// cannot select it for sm_90 ("LLVM ERROR: Cannot select: intrinsic
// %llvm.nvvm.redux.sync.fmax").
// RUN: kf-opt %s --kf-lower-to-ptx -verify-diagnostics -o /dev/null

// expected-error @below {{LLVM's NVPTX backend could not compile the kernels: Cannot select}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp_max(%x: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %mask = arith.constant -1 : i32
      %v = memref.load %x[%tx] : memref<32xf32>
      %m = nvvm.redux.sync fmax %v, %mask : f32 -> f32
      memref.store %m, %x[%tx] : memref<32xf32>
      gpu.return
    }
  }
}
