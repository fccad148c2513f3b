// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-fuse-elementwise))' | FileCheck %s

// exp(x - m) feeds two consumers; upstream fuses single-use producers only.
// Both consumers recompute it and the producer disappears.
// CHECK-LABEL: func.func @two_consumers
// CHECK-COUNT-2: math.exp
// CHECK-NOT: math.exp
// CHECK: return
func.func @two_consumers(%x: tensor<8x16xf32>, %m: tensor<8xf32>, %init: tensor<8xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
  %empty = tensor.empty() : tensor<8x16xf32>
  %e = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x16xf32>, tensor<8xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%in: f32, %mv: f32, %out: f32):
    %d = arith.subf %in, %mv : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %neg = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  return %sum, %neg : tensor<8xf32>, tensor<8x16xf32>
}

// -----

// A reduction is not elementwise: it stays a separate op.
// CHECK-LABEL: func.func @reduction_producer
// CHECK: linalg.generic {{.*}}"reduction"
// CHECK: linalg.generic {{.*}}["parallel"]
func.func @reduction_producer(%x: tensor<8x16xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %empty = tensor.empty() : tensor<8xf32>
  %half = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%sum : tensor<8xf32>) outs(%empty : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %h = arith.mulf %in, %c : f32
    linalg.yield %h : f32
  } -> tensor<8xf32>
  return %half : tensor<8xf32>
}

// -----

// A contraction keeps its multiply-add body: the elementwise producer of
// its operand (here a scaling; an im2col gather in kf-convolution-to-gemm)
// stays an op of its own, so that the GEMM kernel can still take it.
// CHECK-LABEL: func.func @contraction_consumer
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%[[SCALED]], %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>)
func.func @contraction_consumer(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %empty = tensor.empty() : tensor<8x16xf32>
  %scaled = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %s = arith.mulf %in, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %mm = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scaled, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}
