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

// -----

// A named pooling op reading its input's padded copy (an all-parallel
// gather) is generalized so that the padding fuses into its window: the
// window reads x through the bounds checks, and the padded copy is gone.
// CHECK-LABEL: func.func @padded_max_pool
// CHECK-NOT: linalg.pooling_ncw_max
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: tensor.extract %{{.*}} : tensor<2x3x16xf32>
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
func.func @padded_max_pool(%x: tensor<2x3x16xf32>) -> tensor<2x3x17xf32> {
  %e = tensor.empty() : tensor<2x3x20xf32>
  %padded = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<2x3x20xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %c15 = arith.constant 15 : index
    %w = arith.subi %k, %c2 : index
    %ge = arith.cmpi sge, %w, %c0 : index
    %le = arith.cmpi sle, %w, %c15 : index
    %lo = arith.maxsi %w, %c0 : index
    %at = arith.minsi %lo, %c15 : index
    %v = tensor.extract %x[%i, %j, %at] : tensor<2x3x16xf32>
    %in = arith.andi %ge, %le : i1
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %in, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x3x20xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2x3x17xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x3x17xf32>) -> tensor<2x3x17xf32>
  %window = tensor.empty() : tensor<4xf32>
  %y = linalg.pooling_ncw_max {dilations = dense<[1]> : tensor<1xi64>, strides = dense<[1]> : tensor<1xi64>}
      ins(%padded, %window : tensor<2x3x20xf32>, tensor<4xf32>) outs(%init : tensor<2x3x17xf32>) -> tensor<2x3x17xf32>
  return %y : tensor<2x3x17xf32>
}

// -----

// A pooling op reading a function argument stays named.
// CHECK-LABEL: func.func @plain_max_pool
// CHECK: linalg.pooling_ncw_max
func.func @plain_max_pool(%x: tensor<2x3x20xf32>) -> tensor<2x3x17xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2x3x17xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x3x17xf32>) -> tensor<2x3x17xf32>
  %window = tensor.empty() : tensor<4xf32>
  %y = linalg.pooling_ncw_max {dilations = dense<[1]> : tensor<1xi64>, strides = dense<[1]> : tensor<1xi64>}
      ins(%x, %window : tensor<2x3x20xf32>, tensor<4xf32>) outs(%init : tensor<2x3x17xf32>) -> tensor<2x3x17xf32>
  return %y : tensor<2x3x17xf32>
}
