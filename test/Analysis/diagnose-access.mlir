// RUN: kf-opt %s -split-input-file -kf-diagnose -verify-diagnostics

// Coalesced (stride 1) against strided (a column walk) global accesses.
gpu.module @m {
  // expected-remark @below {{kernel @row_copy: block 256x1x1, grid 1x512x1, 0 bytes of shared memory, 0 barriers, 0 loops, 2 global accesses}}
  gpu.func @row_copy(%in: memref<512x256xf32>, %out: memref<512x256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 512, 1>} {
    %tx = gpu.thread_id x
    %by = gpu.block_id y
    // expected-remark @below {{coalesced global load: consecutive threads read consecutive f32 (stride 1)}}
    // expected-remark @below {{[narrow-access] coalesced 4-byte global loads}}
    %v = memref.load %in[%by, %tx] : memref<512x256xf32>
    // expected-remark @below {{coalesced global store: consecutive threads write consecutive f32 (stride 1)}}
    // expected-remark @below {{[narrow-access] coalesced 4-byte global stores}}
    memref.store %v, %out[%by, %tx] : memref<512x256xf32>
    gpu.return
  }
  // expected-remark @below {{kernel @column_copy: block 256x1x1, grid 1x512x1}}
  gpu.func @column_copy(%in: memref<256x512xf32>, %out: memref<256x512xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 512, 1>} {
    %tx = gpu.thread_id x
    %by = gpu.block_id y
    // expected-remark @below {{strided global load: consecutive threads read f32 512 elements apart}}
    // expected-warning @below {{[uncoalesced-access] uncoalesced global load: consecutive threads are 512 elements apart, about 13% of the bytes moved are used}}
    %v = memref.load %in[%tx, %by] : memref<256x512xf32>
    // expected-remark @below {{strided global store: consecutive threads write f32 512 elements apart}}
    // expected-warning @below {{[uncoalesced-access] uncoalesced global store}}
    memref.store %v, %out[%tx, %by] : memref<256x512xf32>
    gpu.return
  }
}

// -----

// Vector accesses: four floats per thread, contiguous across threads.
gpu.module @m {
  // expected-remark @below {{kernel @vec4: block 128x1x1, grid 64x1x1}}
  // expected-warning @below {{[low-parallelism] the grid has 8192 threads, 3% of the H200's 270336 resident-thread slots}}
  gpu.func @vec4(%in: memref<32768xf32>, %out: memref<32768xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %base = arith.muli %bx, %c512 : index
    %t4 = arith.muli %tx, %c4 : index
    %i = arith.addi %base, %t4 : index
    // expected-remark @below {{coalesced global load: consecutive threads read consecutive vector<4xf32> (stride 4)}}
    %v = vector.load %in[%i] : memref<32768xf32>, vector<4xf32>
    // expected-remark @below {{coalesced global store: consecutive threads write consecutive vector<4xf32> (stride 4)}}
    vector.store %v, %out[%i] : memref<32768xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Broadcast (every thread reads the same element), and an index the
// analysis cannot follow.
gpu.module @m {
  // expected-remark @below {{kernel @scale: block 1024x1x1, grid 1024x1x1}}
  gpu.func @scale(%x: memref<1048576xf32>, %s: memref<1xf32>, %perm: memref<1048576xindex>, %y: memref<1048576xf32>) kernel
      attributes {known_block_size = array<i32: 1024, 1, 1>, known_grid_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %c1024 = arith.constant 1024 : index
    %base = arith.muli %bx, %c1024 : index
    %i = arith.addi %base, %tx : index
    // expected-remark @below {{broadcast global load: every thread reads the same f32}}
    %scale = memref.load %s[%c0] : memref<1xf32>
    // expected-remark @below {{coalesced global load: consecutive threads read consecutive index (stride 1)}}
    // expected-remark @below {{[narrow-access]}}
    %j = memref.load %perm[%i] : memref<1048576xindex>
    // expected-remark @below {{global load of f32: the pattern across threads is unknown}}
    %v = memref.load %x[%j] : memref<1048576xf32>
    %r = arith.mulf %v, %scale : f32
    // expected-remark @below {{coalesced global store}}
    // expected-remark @below {{[narrow-access]}}
    memref.store %r, %y[%i] : memref<1048576xf32>
    gpu.return
  }
}
