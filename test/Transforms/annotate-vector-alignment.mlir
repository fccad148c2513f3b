// RUN: kf-opt %s -pass-pipeline='builtin.module(gpu.module(kf-annotate-vector-alignment))' | FileCheck %s

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @aligned
  gpu.func @aligned(%in: memref<64x1024xf32>, %out: memref<64x1024xf32>) kernel {
    %tid = gpu.thread_id x
    %row = gpu.block_id x
    %c4 = arith.constant 4 : index
    %col = arith.muli %tid, %c4 : index
    // Row stride 1024, column a multiple of 4: 16-byte aligned.
    // CHECK: vector.load {{.*}} {alignment = 16 : i64}
    %v = vector.load %in[%row, %col] : memref<64x1024xf32>, vector<4xf32>
    // CHECK: vector.store {{.*}} {alignment = 16 : i64}
    vector.store %v, %out[%row, %col] : memref<64x1024xf32>, vector<4xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @unknown
  gpu.func @unknown(%in: memref<64x1024xf32>, %out: memref<64x1024xf32>) kernel {
    %tid = gpu.thread_id x
    %row = gpu.block_id x
    // The column is any thread id: nothing above the element's alignment.
    // CHECK: vector.load
    // CHECK-NOT: alignment
    %v = vector.load %in[%row, %tid] : memref<64x1024xf32>, vector<4xf32>
    vector.store %v, %out[%row, %tid] : memref<64x1024xf32>, vector<4xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @odd_stride
  gpu.func @odd_stride(%in: memref<64x1023xf32>) kernel {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %col = arith.muli %tid, %c4 : index
    %row = gpu.block_id x
    // Rows of 1023 floats: a row start is only 4-byte aligned.
    // CHECK: vector.load
    // CHECK-NOT: alignment
    %v = vector.load %in[%row, %col] : memref<64x1023xf32>, vector<4xf32>
    vector.store %v, %in[%row, %col] : memref<64x1023xf32>, vector<4xf32>
    gpu.return
  }

  // A tile of the output as expand-strided-metadata leaves it: a
  // reinterpret_cast of the argument with an SSA offset. The offset is a
  // multiple of 4 elements: 16-byte aligned.
  // CHECK-LABEL: gpu.func @tile_view
  // CHECK: vector.store {{.*}} {alignment = 16 : i64}
  gpu.func @tile_view(%out: memref<64x1024xf32>) kernel {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %off = arith.muli %tid, %c4 : index
    %base, %o, %sizes:2, %strides:2 = memref.extract_strided_metadata %out : memref<64x1024xf32> -> memref<f32>, index, index, index, index, index
    %tile = memref.reinterpret_cast %base to offset: [%off], sizes: [1, 4], strides: [1024, 1] : memref<f32> to memref<1x4xf32, strided<[1024, 1], offset: ?>>
    %v = arith.constant dense<1.0> : vector<4xf32>
    vector.store %v, %tile[%c0, %c0] : memref<1x4xf32, strided<[1024, 1], offset: ?>>, vector<4xf32>
    gpu.return
  }

  // The same with an offset of 4 * tid + 1 elements: nothing known.
  // CHECK-LABEL: gpu.func @tile_view_odd
  // CHECK: vector.store
  // CHECK-NOT: alignment
  gpu.func @tile_view_odd(%out: memref<64x1024xf32>) kernel {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %mul = arith.muli %tid, %c4 : index
    %off = arith.addi %mul, %c1 : index
    %base, %o, %sizes:2, %strides:2 = memref.extract_strided_metadata %out : memref<64x1024xf32> -> memref<f32>, index, index, index, index, index
    %tile = memref.reinterpret_cast %base to offset: [%off], sizes: [1, 4], strides: [1024, 1] : memref<f32> to memref<1x4xf32, strided<[1024, 1], offset: ?>>
    %v = arith.constant dense<1.0> : vector<4xf32>
    vector.store %v, %tile[%c0, %c0] : memref<1x4xf32, strided<[1024, 1], offset: ?>>, vector<4xf32>
    gpu.return
  }
}
