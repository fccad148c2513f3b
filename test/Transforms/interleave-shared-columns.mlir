// RUN: kf-opt %s --split-input-file --kf-interleave-shared-columns --verify-diagnostics | FileCheck %s

// B's tile as the GEMM kernel stages it (8 x 128 floats), written in
// 16-byte pieces and read as 8 contiguous columns per thread (2 chunks,
// T = 2, G = 16 groups per row). Chunk q = 2g + j goes to j * 16 + g:
// thread x's two chunks are read at columns 4x and 4x + 64, where the lanes
// of a quarter-warp pass are 16 bytes apart (no bank conflict); the write
// of chunk x goes to (x mod 2) * 64 + (x / 2) * 4 (which affine
// simplification writes 64x - (x / 2) * 124).

// CHECK-DAG: #[[$WRITE:.*]] = affine_map<()[s0] -> (s0 * 64 - (s0 floordiv 2) * 124)>
// CHECK-DAG: #[[$LOW:.*]] = affine_map<()[s0] -> (s0 * 4)>
// CHECK-DAG: #[[$HIGH:.*]] = affine_map<()[s0] -> (s0 * 4 + 64)>
// CHECK-LABEL: func.func @gemm_operand
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[B:.*]] = memref.alloc() : memref<8x128xf32, 3>
// CHECK: %[[W:.*]] = affine.apply #[[$WRITE]]()[%[[TX]]]
// CHECK: vector.transfer_write %{{.*}}, %[[B]][%{{.*}}, %[[W]]] {in_bounds = [true, true]} : vector<1x4xf32>, memref<8x128xf32, 3>
// CHECK: %[[R0:.*]] = affine.apply #[[$LOW]]()[%[[TX]]]
// CHECK: %[[P0:.*]] = vector.transfer_read %[[B]][%{{.*}}, %[[R0]]], %{{.*}} {in_bounds = [true, true]} : memref<8x128xf32, 3>, vector<8x4xf32>
// CHECK: %[[S0:.*]] = vector.insert_strided_slice %[[P0]], %{{.*}} {offsets = [0, 0], strides = [1, 1]} : vector<8x4xf32> into vector<8x8xf32>
// CHECK: %[[R1:.*]] = affine.apply #[[$HIGH]]()[%[[TX]]]
// CHECK: %[[P1:.*]] = vector.transfer_read %[[B]][%{{.*}}, %[[R1]]], %{{.*}} {in_bounds = [true, true]} : memref<8x128xf32, 3>, vector<8x4xf32>
// CHECK: %[[S1:.*]] = vector.insert_strided_slice %[[P1]], %[[S0]] {offsets = [0, 4], strides = [1, 1]} : vector<8x4xf32> into vector<8x8xf32>
// CHECK: return %[[S1]]
// CHECK-NOT: kf.interleave_columns
func.func @gemm_operand(%value: vector<1x4xf32>) -> vector<8x8xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %tx = gpu.thread_id x
  %b = memref.alloc() {kf.interleave_columns = 2 : i64} : memref<8x128xf32, 3>
  %wcol = affine.apply affine_map<(d0) -> (d0 * 4)>(%tx)
  vector.transfer_write %value, %b[%c0, %wcol] {in_bounds = [true, true]} : vector<1x4xf32>, memref<8x128xf32, 3>
  %rcol = affine.apply affine_map<(d0) -> (d0 * 8)>(%tx)
  %tile = vector.transfer_read %b[%c0, %rcol], %pad {in_bounds = [true, true]} : memref<8x128xf32, 3>, vector<8x8xf32>
  return %tile : vector<8x8xf32>
}

// -----

// After the ring buffer: cp.async copies into the buffer and 1-D loads.
// CHECK-LABEL: func.func @async_copies
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %[[COL:.*]]], 4
// CHECK: %[[L0:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x128xf32, 3>, vector<4xf32>
// CHECK: vector.insert_strided_slice %[[L0]]
// CHECK: %[[L1:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x128xf32, 3>, vector<4xf32>
// CHECK: vector.insert_strided_slice %[[L1]]
func.func @async_copies(%src: memref<4096xf32>, %stage: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %tx = gpu.thread_id x
  %b = memref.alloc() {kf.interleave_columns = 2 : i64} : memref<2x8x128xf32, 3>
  %wcol = affine.apply affine_map<(d0) -> ((d0 mod 32) * 4)>(%tx)
  %token = nvgpu.device_async_copy %src[%c0], %b[%stage, %c0, %wcol], 4 : memref<4096xf32> to memref<2x8x128xf32, 3>
  %rcol = affine.apply affine_map<(d0) -> (d0 * 8)>(%tx)
  %row = vector.load %b[%stage, %c0, %rcol] : memref<2x8x128xf32, 3>, vector<8xf32>
  return %row : vector<8xf32>
}

// -----

// All or nothing: a use the pass cannot rewrite (a view of the buffer), or
// a read not provably within one chunk (columns 2x: a 4-wide read may cross
// into the next chunk), leaves the buffer in place.
// CHECK-LABEL: func.func @view
// CHECK-NOT: kf.interleave_columns
// CHECK: %[[ROW:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x128xf32, 3>, vector<8xf32>
// CHECK-NEXT: memref.subview
// CHECK-NEXT: return %[[ROW]]
func.func @view(%i: index) -> (vector<8xf32>, memref<4x128xf32, strided<[128, 1], offset: ?>, 3>) {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() {kf.interleave_columns = 2 : i64} : memref<8x128xf32, 3>
  %row = vector.load %b[%c0, %c0] : memref<8x128xf32, 3>, vector<8xf32>
  %view = memref.subview %b[%i, 0] [4, 128] [1, 1] : memref<8x128xf32, 3> to memref<4x128xf32, strided<[128, 1], offset: ?>, 3>
  return %row, %view : vector<8xf32>, memref<4x128xf32, strided<[128, 1], offset: ?>, 3>
}

// CHECK-LABEL: func.func @unaligned
// CHECK: %[[COL:.*]] = affine.apply #{{.*}}(%{{.*}})
// CHECK-NEXT: vector.load %{{.*}}[%{{.*}}, %[[COL]]] : memref<8x128xf32, 3>, vector<4xf32>
func.func @unaligned() -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %tx = gpu.thread_id x
  %b = memref.alloc() {kf.interleave_columns = 2 : i64} : memref<8x128xf32, 3>
  %col = affine.apply affine_map<(d0) -> (d0 * 2)>(%tx)
  %row = vector.load %b[%c0, %col] : memref<8x128xf32, 3>, vector<4xf32>
  return %row : vector<4xf32>
}

// -----

func.func @bad_mark() {
  // expected-error @below {{kf.interleave_columns needs a positive chunk count}}
  %b = memref.alloc() {kf.interleave_columns = 0 : i64} : memref<8x128xf32, 3>
  return
}
