// GPU kernels as users write them: gpu.func with argument attributes
// (kf.role and others), workgroup and private attributions, known sizes,
// shuffles, reductions, barriers, dynamic shared memory, external
// declarations; launched from the host or not at all.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @staged(%in: memref<256xf32> {kf.role = "input"},
                     %out: memref<256xf32> {kf.role = "output", llvm.noalias})
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        private(%slot: memref<2xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<256xf32>
      memref.store %v, %tile[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %slot[%c0] : memref<2xf32, #gpu.address_space<private>>
      %x = memref.load %slot[%c0] : memref<2xf32, #gpu.address_space<private>>
      %sum = gpu.all_reduce add %x uniform {} : (f32) -> f32
      memref.store %sum, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
  func.func @host(%a: memref<256xf32>, %b: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@staged blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>, %b : memref<256xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp(%x: memref<32xf32>, %n: i32) kernel {
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %tx = gpu.thread_id x
      %lane = gpu.lane_id
      %v = memref.load %x[%tx] : memref<32xf32>
      %s, %valid = gpu.shuffle xor %v, %c1_i32, %c32_i32 : f32
      %r = gpu.subgroup_reduce add %s : (f32) -> f32
      %m = gpu.subgroup_reduce maxnumf %r uniform : (f32) -> f32
      memref.store %m, %x[%lane] : memref<32xf32>
      gpu.return
    }
    gpu.func @helper(%v: f32) -> f32 {
      %w = math.exp %v : f32
      gpu.return %w : f32
    }
  }
}

// -----

// Dynamic shared memory with a static buffer beside it.
func.func @dynamic_shared(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bytes = arith.constant 65536 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes
             workgroup(%static : memref<128xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
    %v = memref.load %x[%bx, %tx] : memref<64x128xf32>
    memref.store %v, %view[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %static[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %view[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.load %static[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f32
    memref.store %s, %y[%bx, %tx] : memref<64x128xf32>
    gpu.terminator
  }
  return
}

// -----

// A launch with a dynamic grid and one with clusters.
func.func @odd_launches(%x: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx] : memref<?xf32>
    memref.store %v, %x[%bx] : memref<?xf32>
    gpu.terminator
  }
  gpu.launch clusters(%cx, %cy, %cz) in (%csx = %c2, %csy = %c1, %csz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %r = gpu.cluster_block_id x
    %v = memref.load %x[%r] : memref<?xf32>
    memref.store %v, %x[%bx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// wmma through gpu.subgroup_mma, in a launch.
func.func @wmma(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %C = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    %D = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %D, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}

// -----

// An empty gpu.module, a kernel with no arguments, a gpu.module with a
// target of its own.
module attributes {gpu.container_module} {
  gpu.module @empty {
  }
  gpu.module @targeted [#nvvm.target<chip = "sm_80">] {
    gpu.func @nothing() kernel {
      gpu.return
    }
  }
}
