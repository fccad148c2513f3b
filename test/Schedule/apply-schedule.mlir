// RUN: kf-opt %s -split-input-file -kf-apply-schedule -verify-diagnostics | FileCheck %s

// The default schedule maps each linalg op to its own launch: 64x4 elements
// per block, one per thread.
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: memref<64x1000xf32>) -> memref<64x1000xf32>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %{{.*}}, {{.*}}) threads
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// CHECK: arith.maximumf
// CHECK-NOT: gpu.launch
kf.problem @p reference(@relu) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @relu(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1000xf32>) outs(%init : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// -----

// A row reduction: the reduction loop stays sequential in each thread.
// CHECK-LABEL: func.func @row_sum
// CHECK: gpu.launch
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
kf.problem @p reference(@row_sum) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @row_sum(%x: tensor<8x512xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x512xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A full reduction to a 0-d tensor has no parallel loop to map.
kf.problem @p reference(@total) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @total(%x: tensor<512xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  // expected-error @below {{has no parallel loop: the default schedule maps parallel loops to threads and cannot place a full reduction; write the reduction with a unit parallel dimension}}
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<512xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
