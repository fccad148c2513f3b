// Vector ops in kernels, NVGPU's asynchronous copies and mma, and NVVM /
// LLVM-dialect kernels (as the CUDA import and hand-written kernels give).

func.func @vectors(%x: memref<64x64xf32>, %y: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %t = vector.transfer_read %x[%tx, %c0], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<1x8xf32>
    %b = vector.broadcast %pad : f32 to vector<1x8xf32>
    %s = arith.addf %t, %b : vector<1x8xf32>
    %acc = vector.broadcast %pad : f32 to vector<8xf32>
    %r = vector.multi_reduction <add>, %s, %acc [0] : vector<1x8xf32> to vector<8xf32>
    %sc = vector.shape_cast %r : vector<8xf32> to vector<2x4xf32>
    %tr = vector.transpose %sc, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
    %flat = vector.shape_cast %tr : vector<4x2xf32> to vector<8xf32>
    %sum = vector.reduction <add>, %flat : vector<8xf32> into f32
    %l = vector.load %x[%tx, %c0] : memref<64x64xf32>, vector<4xf32>
    %e = vector.extract %l[0] : f32 from vector<4xf32>
    %tot = arith.addf %sum, %e : f32
    memref.store %tot, %y[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @async_copies(%x: memref<128xf32>, %y: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<128xf32, #gpu.address_space<workgroup>>) {
    %c4 = arith.constant 4 : index
    %i = arith.muli %tx, %c4 : index
    %token = nvgpu.device_async_copy %x[%i], %tile[%i], 4 : memref<128xf32> to memref<128xf32, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %token
    nvgpu.device_async_wait %group
    gpu.barrier
    %v = memref.load %tile[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %y[%i] : memref<128xf32>
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %out: memref<2x2xf32>) kernel {
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %c0 = arith.constant 0 : index
      vector.store %d, %out[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
      gpu.return
    }
  }
}

// -----

// LLVM-dialect kernels with NVVM ops: a kernel by attribute, one by calling
// convention, a declaration marked as a kernel, globals in every space.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
    llvm.mlir.global internal @dyn() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global internal @state(0 : i32) {addr_space = 1 : i32} : i32
    llvm.func @by_attribute(%p: !llvm.ptr<1> {kf.role = "output"}, %q: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %g = llvm.getelementptr %t[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      %src = llvm.getelementptr %q[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %src : !llvm.ptr<1> -> f32
      llvm.store %v, %g : f32, !llvm.ptr<3>
      nvvm.barrier0
      %w = llvm.load %g : !llvm.ptr<3> -> f32
      %mask = llvm.mlir.constant(-1 : i32) : i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %clamp = llvm.mlir.constant(31 : i32) : i32
      %s = nvvm.shfl.sync bfly %mask, %w, %one, %clamp : f32 -> f32
      %dst = llvm.getelementptr %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %s, %dst : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func ptx_kernelcc @by_convention(%p: !llvm.ptr<1>) {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @declared_kernel(!llvm.ptr<1>) attributes {nvvm.kernel}
    llvm.func @__nv_expf(f32) -> f32
  }
}

// -----

// NVVM ops of newer chips in a gpu.func: cluster barriers, mapa, redux.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cluster(%p: !llvm.ptr<3>, %out: memref<32xi32>) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %remote = nvvm.mapa %p, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
      %v = llvm.load %remote : !llvm.ptr<7> -> i32
      %mask = arith.constant -1 : i32
      %m = nvvm.redux.sync max %v, %mask : i32 -> i32
      %tx = gpu.thread_id x
      memref.store %m, %out[%tx] : memref<32xi32>
      gpu.return
    }
  }
}
