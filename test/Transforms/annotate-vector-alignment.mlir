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
}
