// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-transpose-contraction-products))' | FileCheck %s
// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-transpose-contraction-products{max-m=1024}))' | FileCheck %s --check-prefix=LONG

// x @ W.T with a short M: the product is computed as W x^T into [N, M],
// zeroed by its own fill, W read as the first operand (the GEMM kernel's
// A), and transposed back; the body keeps x * w.
// CHECK-DAG: #[[$NK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$NM:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<128x16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: %[[TE:.*]] = tensor.empty() : tensor<128x8xf32>
// CHECK: %[[TF:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[TE]] : tensor<128x8xf32>)
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[$NK]], #[[$MK]], #[[$NM]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[W]], %[[X]] : tensor<128x16xf32>, tensor<8x16xf32>) outs(%[[TF]] : tensor<128x8xf32>)
// CHECK-NEXT: ^bb0(%[[WE:.*]]: f32, %[[XE:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[CE:.*]] = tensor.empty() : tensor<8x128xf32>
// CHECK: %[[C:.*]] = linalg.transpose ins(%[[T]] : tensor<128x8xf32>) outs(%[[CE]] : tensor<8x128xf32>) permutation = [1, 0]
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK: return %[[C]]
func.func @linear(%x: tensor<8x16xf32>, %w: tensor<128x16xf32>) -> tensor<8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x16xf32>, tensor<128x16xf32>) outs(%fill : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %c : tensor<8x128xf32>
}

// -----

// The product's readers (an epilogue) read the transposed copy.
// CHECK-LABEL: func.func @linear_bias
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: %[[C:.*]] = linalg.transpose ins(%[[T]]
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<8x128xf32>, tensor<128xf32>)
func.func @linear_bias(%x: tensor<8x16xf32>, %w: tensor<128x16xf32>, %b: tensor<128xf32>) -> tensor<8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x16xf32>, tensor<128x16xf32>) outs(%fill : tensor<8x128xf32>) -> tensor<8x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %b : tensor<8x128xf32>, tensor<128xf32>) outs(%empty : tensor<8x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// M = 512: above max-m (256) the weight's K-outer copy is the cheaper
// way; with max-m = 1024 it is rewritten (N = 8192 is 16 M).
// CHECK-LABEL: func.func @long_m
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
// LONG-LABEL: func.func @long_m
// LONG: linalg.generic
// LONG-SAME: ins(%{{.*}}, %{{.*}} : tensor<8192x16xf32>, tensor<512x16xf32>) outs(%{{.*}} : tensor<8192x512xf32>)
// LONG: linalg.transpose
func.func @long_m(%x: tensor<512x16xf32>, %w: tensor<8192x16xf32>) -> tensor<512x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x8192xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x8192xf32>) -> tensor<512x8192xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<512x16xf32>, tensor<8192x16xf32>) outs(%fill : tensor<512x8192xf32>) -> tensor<512x8192xf32>
  return %c : tensor<512x8192xf32>
}

// -----

// B as [K, N]: the kernel reads it without a copy already.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
func.func @plain(%x: tensor<8x16xf32>, %w: tensor<16x128xf32>) -> tensor<8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x128xf32>) outs(%fill : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %c : tensor<8x128xf32>
}

// -----

// A batch loop: not rewritten (the kernel's grid z takes it; the transposed
// copy would be of every batch).
// CHECK-LABEL: func.func @batched
// CHECK-NOT: linalg.transpose
func.func @batched(%x: tensor<4x8x16xf32>, %w: tensor<4x128x16xf32>) -> tensor<4x8x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8x128xf32>) -> tensor<4x8x128xf32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x8x16xf32>, tensor<4x128x16xf32>) outs(%fill : tensor<4x8x128xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %p = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8x128xf32>
  return %c : tensor<4x8x128xf32>
}

// -----

// The fill is shared with another op: the contraction is no GEMM-kernel
// contraction (kf::analyzeContraction) and stays.
// CHECK-LABEL: func.func @shared_fill
// CHECK-NOT: linalg.transpose
func.func @shared_fill(%x: tensor<8x16xf32>, %w: tensor<128x16xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x16xf32>, tensor<128x16xf32>) outs(%fill : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %c, %fill : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

// N = 64 is less than 16 M: the weight is no larger than what the rewrite
// would copy instead.
// CHECK-LABEL: func.func @square
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
func.func @square(%x: tensor<8x16xf32>, %w: tensor<64x16xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x64xf32>) -> tensor<8x64xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x16xf32>, tensor<64x16xf32>) outs(%fill : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %c : tensor<8x64xf32>
}
