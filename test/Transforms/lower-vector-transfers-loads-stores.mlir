// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kf-lower-vector-transfers{loads-and-stores-only=true}))' | FileCheck %s
// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kf-lower-vector-transfers{loads-and-stores-only=true},kf-annotate-vector-alignment))' | FileCheck %s --check-prefix=ALIGN

// What convert-vector-to-scf leaves of a transposing copy's 4 x 4 tile
// (two of its four rows): in-bounds rank-1 transfers. As loads and stores
// they take the alignment kf-annotate-vector-alignment proves (16 bytes:
// columns a multiple of 4, rows 1024 floats).
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @tile_rows
  // CHECK-COUNT-2: vector.load
  // CHECK: vector.transpose
  // CHECK-COUNT-2: vector.store
  // CHECK-NOT: vector.transfer
  // ALIGN-LABEL: gpu.func @tile_rows
  // ALIGN-COUNT-2: vector.load {{.*}} {alignment = 16 : i64}
  // ALIGN-COUNT-2: vector.store {{.*}} {alignment = 16 : i64}
  gpu.func @tile_rows(%in: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) kernel {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %pad = ub.poison : f32
    %init = ub.poison : vector<2x4xf32>
    %row = arith.muli %tid, %c4 : index
    %row1 = arith.addi %row, %c1 : index
    %r0 = vector.transfer_read %in[%row, %row], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<4xf32>
    %r1 = vector.transfer_read %in[%row1, %row], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<4xf32>
    %t0 = vector.insert %r0, %init [0] : vector<4xf32> into vector<2x4xf32>
    %t1 = vector.insert %r1, %t0 [1] : vector<4xf32> into vector<2x4xf32>
    %t = vector.transpose %t1, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
    %w = vector.shape_cast %t : vector<4x2xf32> to vector<8xf32>
    %w0 = vector.extract_strided_slice %w {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
    %w1 = vector.extract_strided_slice %w {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
    vector.transfer_write %w0, %out[%row, %row] {in_bounds = [true]} : vector<4xf32>, memref<1024x1024xf32>
    vector.transfer_write %w1, %out[%row1, %row] {in_bounds = [true]} : vector<4xf32>, memref<1024x1024xf32>
    gpu.return
  }
}

// -----

// Only in-bounds transfers become loads and stores: one that may run out
// of bounds stays (it needs a mask); a broadcasting one is loaded once and
// broadcast.
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @out_of_bounds_stays
  // CHECK: vector.transfer_read {{.*}} : memref<1000xf32>, vector<4xf32>
  // CHECK: vector.load {{.*}} : memref<16xf32>, vector<1xf32>
  // CHECK: vector.broadcast
  gpu.func @out_of_bounds_stays(%in: memref<1000xf32>, %b: memref<16xf32>, %out: memref<1000xf32>) kernel {
    %tid = gpu.thread_id x
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %in[%tid], %pad : memref<1000xf32>, vector<4xf32>
    %s = vector.transfer_read %b[%tid], %pad {in_bounds = [true], permutation_map = affine_map<(d0) -> (0)>} : memref<16xf32>, vector<4xf32>
    %a = arith.addf %v, %s : vector<4xf32>
    vector.store %a, %out[%tid] : memref<1000xf32>, vector<4xf32>
    gpu.return
  }
}
