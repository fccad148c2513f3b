// A tiny kernel for checking that a kf-opt build lowers to PTX (used by
// gpu/run-gpu-tests.sh on the GPU host, and by tiny-kernel.test here).
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80", O = 3>] {
    gpu.func @scale(%p: memref<1024xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %v = memref.load %p[%i] : memref<1024xf32>
      %two = arith.constant 2.0 : f32
      %w = arith.mulf %v, %two : f32
      memref.store %w, %p[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
