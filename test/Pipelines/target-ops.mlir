// Operations the chip lacks are refused at the operation, before lowering
// (LLVM's NVPTX backend aborted in instruction selection: "LLVM ERROR:
// Cannot select: intrinsic %llvm.nvvm.wmma...").
// RUN: kf-opt %s -split-input-file --kf-lower-to-ptx=chip=sm_61 -verify-diagnostics -o /dev/null

// wmma (gpu.subgroup_mma_*) needs sm_70.
module {
  func.func @wmma(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer; the kernels are compiled for sm_61}}
      %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer}}
      %B = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer}}
      %C = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer}}
      %D = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer}}
      gpu.subgroup_mma_store_matrix %D, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// cp.async (nvgpu.device_async_copy) needs sm_80.
module {
  func.func @cp_async(%x: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%tile : memref<128xf32, #gpu.address_space<workgroup>>) {
      %c4 = arith.constant 4 : index
      %i = arith.muli %tx, %c4 : index
      // expected-error @below {{uses cp.async, which needs sm_80 or newer; the kernels are compiled for sm_61}}
      %token = nvgpu.device_async_copy %x[%i], %tile[%i], 4 : memref<128xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      // expected-error @below {{uses cp.async, which needs sm_80 or newer}}
      %group = nvgpu.device_async_create_group %token
      // expected-error @below {{uses cp.async, which needs sm_80 or newer}}
      nvgpu.device_async_wait %group
      gpu.terminator
    }
    return
  }
}

// -----

// Thread block clusters need sm_90, at the launch and in the kernel.
module {
  func.func @clusters(%x: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    // expected-error @below {{uses thread block clusters, which needs sm_90 or newer; the kernels are compiled for sm_61}}
    gpu.launch clusters(%cx, %cy, %cz) in (%csx = %c2, %csy = %c1, %csz = %c1)
               blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      // expected-error @below {{uses thread block clusters, which needs sm_90 or newer}}
      %rank = gpu.cluster_block_id x
      %f = arith.index_cast %rank : index to i32
      %v = arith.sitofp %f : i32 to f32
      memref.store %v, %x[%tx] : memref<256xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// NVVM ops: upstream's requirement (NVVMRequiresSM traits) where they carry one, which
// the gpu.module verifier checks only after lowering: cp.async.bulk needs
// sm_90, wgmma sm_90a.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bulk(%dst: !llvm.ptr<7>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>, %n: i32) kernel {
      // expected-error @below {{uses cp.async.bulk, which needs sm_90 or newer; the kernels are compiled for sm_61}}
      nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %n : !llvm.ptr<7>, !llvm.ptr<1>
      // expected-error @below {{uses nvvm.wgmma.fence.aligned, which needs sm_90a; the kernels are compiled for sm_61}}
      nvvm.wgmma.fence.aligned
      gpu.return
    }
  }
}
