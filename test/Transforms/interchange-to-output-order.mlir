// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-interchange-to-output-order))' | FileCheck %s

// A depthwise convolution iterates (n, oh, ow, c, kh, kw) over NCHW
// tensors: it becomes a generic over (n, c, oh, ow, kh, kw).
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>
// CHECK-DAG: #[[$Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.generic {indexing_maps = [#[[$X]], #[[$W]], #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @depthwise(%x: tensor<2x8x10x12xf32>, %w: tensor<8x3x3xf32>, %y: tensor<2x8x8x10xf32>) -> tensor<2x8x8x10xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x10x12xf32>, tensor<8x3x3xf32>) outs(%y : tensor<2x8x8x10xf32>) -> tensor<2x8x8x10xf32>
  return %r : tensor<2x8x8x10xf32>
}

// -----

// Ops in their output's order stay as they are (a named convolution is not
// even generalized); so does a transpose, whose input and output are
// contiguous along different loops.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]}
func.func @kept(%x: tensor<2x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %y: tensor<2x8x8x8xf32>,
                %a: tensor<16x32xf32>, %t: tensor<32x16xf32>, %s: tensor<16xf32>) -> (tensor<2x8x8x8xf32>, tensor<32x16xf32>, tensor<16xf32>) {
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%y : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %transposed = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x32xf32>) outs(%t : tensor<32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x16xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x32xf32>) outs(%s : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %out : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %conv, %transposed, %sum : tensor<2x8x8x8xf32>, tensor<32x16xf32>, tensor<16xf32>
}

// -----

// A reduction written with its reduction loop first: its parallel loop
// moves in front.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduction_first
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @reduction_first(%a: tensor<32x16xf32>, %s: tensor<16xf32>) -> tensor<16xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(k, i) -> (k, i)>, affine_map<(k, i) -> (i)>],
      iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<32x16xf32>) outs(%s : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %out : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %sum : tensor<16xf32>
}
