// RUN: kf-opt %s -split-input-file -kf-diagnose -verify-diagnostics

// Shared memory: a transposed read of a 32x32 tile conflicts 32 ways; the
// same read of a tile padded to 33 columns does not.
gpu.module @m {
  // expected-remark @below {{kernel @transpose_conflict: block 32x32x1, grid unknown, 4096 bytes of shared memory, 1 barriers, 0 loops, 0 global accesses}}
  gpu.func @transpose_conflict() workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 32, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{coalesced shared store: consecutive threads write consecutive f32 (stride 1)}}
    memref.store %zero, %tile[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    // expected-remark @below {{strided shared load: consecutive threads read f32 32 elements apart}}
    // expected-warning @below {{[bank-conflict] 32-way shared-memory bank conflict: a warp's f32 load takes 32 wavefronts where 1 would do (threads 32 elements apart along x, 1 along y)}}
    %v = memref.load %tile[%tx, %ty] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
  // expected-remark @below {{kernel @transpose_padded: block 32x32x1, grid unknown, 4224 bytes of shared memory, 1 barriers}}
  gpu.func @transpose_padded() workgroup(%tile : memref<32x33xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 32, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{coalesced shared store}}
    memref.store %zero, %tile[%ty, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    // expected-remark @below {{strided shared load: consecutive threads read f32 33 elements apart, 1 wavefront(s) per warp}}
    %v = memref.load %tile[%tx, %ty] : memref<32x33xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// A register-tiled GEMM step on 16x16 threads: each thread multiplies 8 rows
// of A (row-major, K = 4) by 8 contiguous columns of B. A warp holds two
// thread rows; 16-byte loads are served per quarter-warp. B's 8 contiguous
// columns per thread put lanes 32 bytes apart: 2-way conflicts. 64 FMAs per
// thread (16 cycles of the FMA pipes per warp) against 4 + 16 wavefronts:
// the loop is capped by shared memory.
gpu.module @m {
  // expected-remark @below {{kernel @gemm_step: block 16x16x1}}
  gpu.func @gemm_step(%out: memref<16x16x8x8xf32>) workgroup(%a : memref<128x4xf32, #gpu.address_space<workgroup>>, %b : memref<4x128xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 16, 16, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant dense<0.0> : vector<8xf32>
    %row = affine.apply affine_map<(d0) -> (d0 * 8)>(%ty)
    %col = affine.apply affine_map<(d0) -> (d0 * 8)>(%tx)
    // expected-warning @below {{[shared-memory-bound] each iteration of this loop does 64 FMAs per thread (16 cycles of the SM's FMA pipes per warp) but its shared-memory loads take 20 wavefronts per warp: at most 80% of the FMA peak}}
    %acc = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc0 = %zero) -> vector<8xf32> {
      // Row 8 * ty of A: every lane of a quarter-warp reads it (broadcast),
      // the warp's two thread rows 32 words apart.
      // expected-remark @below {{broadcast shared load: every thread reads the same vector<4xf32>, 4 wavefront(s) per warp}}
      %ar = vector.load %a[%row, %c0] : memref<128x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      // expected-remark @below {{coalesced shared load: consecutive threads read consecutive vector<8xf32> (stride 8), 16 wavefront(s) per warp}}
      // expected-warning @below {{[bank-conflict] 2-way shared-memory bank conflict: a warp's vector<8xf32> load takes 16 wavefronts where 8 would do (threads 8 elements apart along x, 0 along y)}}
      %br = vector.load %b[%c0, %col] : memref<4x128xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      %a0 = vector.extract %ar[0] : f32 from vector<4xf32>
      %as = vector.broadcast %a0 : f32 to vector<8xf32>
      %f0 = vector.fma %as, %br, %acc0 : vector<8xf32>
      %f1 = vector.fma %as, %br, %f0 : vector<8xf32>
      %f2 = vector.fma %as, %br, %f1 : vector<8xf32>
      %f3 = vector.fma %as, %br, %f2 : vector<8xf32>
      %f4 = vector.fma %as, %br, %f3 : vector<8xf32>
      %f5 = vector.fma %as, %br, %f4 : vector<8xf32>
      %f6 = vector.fma %as, %br, %f5 : vector<8xf32>
      %f7 = vector.fma %as, %br, %f6 : vector<8xf32>
      scf.yield %f7 : vector<8xf32>
    }
    // expected-remark @below {{strided global store}}
    // expected-warning @below {{[uncoalesced-access]}}
    vector.store %acc, %out[%ty, %tx, %c0, %c0] : memref<16x16x8x8xf32>, vector<8xf32>
    gpu.return
  }
}

// -----

// A bounds check on the thread id diverges; a branch on the block id does
// not.
gpu.module @m {
  // expected-remark @below {{kernel @branches: block unknown, grid unknown, 0 bytes of shared memory, 2 barriers, 0 loops, 2 global accesses}}
  gpu.func @branches(%out: memref<100xf32>, %flag: memref<4xi1>) kernel {
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %c100 = arith.constant 100 : index
    %one = arith.constant 1.0 : f32
    %inside = arith.cmpi ult, %tx, %c100 : index
    // expected-remark @below {{[divergent-branch] the branch condition depends on the thread id}}
    scf.if %inside {
      // expected-remark @below {{coalesced global store}}
      // expected-remark @below {{[narrow-access]}}
      memref.store %one, %out[%tx] : memref<100xf32>
      // expected-warning @below {{[barrier-in-divergent-branch] a barrier that only some threads of the block reach: the block can deadlock or read unsynchronized data}}
      gpu.barrier
    }
    // expected-remark @below {{broadcast global load}}
    %f = memref.load %flag[%bx] : memref<4xi1>
    scf.if %f {
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Loops: a load of the same address in every iteration (hoistable), a load
// every thread shares in each iteration (stage it in shared memory), and a
// per-thread array in local memory.
gpu.module @m {
  // expected-remark @below {{kernel @dot_rows: block 256x1x1, grid 16x1x1, 0 bytes of shared memory, 0 barriers, 1 loops, 4 global accesses}}
  // expected-warning @below {{[low-parallelism] the grid has 4096 threads}}
  gpu.func @dot_rows(%a: memref<4096x1024xf32>, %b: memref<1024xf32>, %s: memref<1xf32>, %out: memref<4096xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %c256 = arith.constant 256 : index
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %row0 = arith.muli %bx, %c256 : index
    %row = arith.addi %row0, %tx : index
    // expected-warning @below {{[local-memory] allocates per-thread memory that lives in local (off-chip) memory}}
    %scratch = memref.alloca() : memref<8xf32, #gpu.address_space<private>>
    %zero = arith.constant 0.0 : f32
    // expected-warning @below {{[few-loads-in-flight] each iteration of this loop of 1024 trips issues 2 global load(s): 64 resident warps per SM keep about 8448 bytes in flight, under the 22600 the H200 needs to reach its bandwidth; unroll the loop or give each thread more independent loads}}
    %sum = scf.for %k = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      // expected-remark @below {{strided global load: consecutive threads read f32 1024 elements apart}}
      // expected-warning @below {{[uncoalesced-access]}}
      %x = memref.load %a[%row, %k] : memref<4096x1024xf32>
      // expected-remark @below {{broadcast global load: every thread reads the same f32}}
      // expected-warning @below {{[broadcast-reload] every thread loads the same value in each iteration of a loop of 1024 trips: the block re-reads data it could stage once in shared memory}}
      %y = memref.load %b[%k] : memref<1024xf32>
      // expected-remark @below {{broadcast global load}}
      // expected-warning @below {{[loop-invariant-load] global load of the same address in every iteration of a loop of 1024 trips: hoist it out of the loop}}
      %scale = memref.load %s[%c0] : memref<1xf32>
      %p = arith.mulf %x, %y : f32
      %q = arith.mulf %p, %scale : f32
      %next = arith.addf %acc, %q : f32
      scf.yield %next : f32
    }
    // expected-remark @below {{coalesced global store}}
    // expected-remark @below {{[narrow-access]}}
    memref.store %sum, %out[%row] : memref<4096xf32>
    gpu.return
  }
}

// -----

// Four independent loads per iteration (an unrolled loop) keep enough bytes
// in flight: no few-loads-in-flight finding.
gpu.module @m {
  // expected-remark @below {{kernel @unrolled: block 256x1x1, grid 1024x1x1, 0 bytes of shared memory, 0 barriers, 1 loops, 5 global accesses}}
  gpu.func @unrolled(%a: memref<64x1048576xf32>, %out: memref<1048576xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %base = arith.muli %bx, %c256 : index
    %col = arith.addi %base, %tx : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c64 step %c4 iter_args(%acc = %zero) -> (f32) {
      %k1 = arith.addi %k, %c1 : index
      %k2 = arith.addi %k, %c2 : index
      %k3 = arith.addi %k, %c3 : index
      // expected-remark @below {{coalesced global load}}
      // expected-remark @below {{[narrow-access]}}
      %x0 = memref.load %a[%k, %col] : memref<64x1048576xf32>
      // expected-remark @below {{coalesced global load}}
      // expected-remark @below {{[narrow-access]}}
      %x1 = memref.load %a[%k1, %col] : memref<64x1048576xf32>
      // expected-remark @below {{coalesced global load}}
      // expected-remark @below {{[narrow-access]}}
      %x2 = memref.load %a[%k2, %col] : memref<64x1048576xf32>
      // expected-remark @below {{coalesced global load}}
      // expected-remark @below {{[narrow-access]}}
      %x3 = memref.load %a[%k3, %col] : memref<64x1048576xf32>
      %s0 = arith.addf %x0, %x1 : f32
      %s1 = arith.addf %x2, %x3 : f32
      %s2 = arith.addf %s0, %s1 : f32
      %next = arith.addf %acc, %s2 : f32
      scf.yield %next : f32
    }
    // expected-remark @below {{coalesced global store}}
    // expected-remark @below {{[narrow-access]}}
    memref.store %sum, %out[%col] : memref<1048576xf32>
    gpu.return
  }
}
