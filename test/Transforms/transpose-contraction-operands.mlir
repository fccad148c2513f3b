// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-transpose-contraction-operands))' | FileCheck %s
// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-transpose-contraction-operands{a=true}))' | FileCheck %s --check-prefix=BOTH

// A @ B.T (B as [N, K]): B gets a [K, N] copy and the matmul reads it.
// CHECK-LABEL: func.func @matmul_transposed_b
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<128x32xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<32x128xf32>
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<128x32xf32>) outs(%[[EMPTY]] : tensor<32x128xf32>) permutation = [1, 0]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KN:.*]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[BT]] : tensor<64x32xf32>, tensor<32x128xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// A is [M, K] too: with a=true it gets its copy as well.
// BOTH-LABEL: func.func @matmul_transposed_b
// BOTH-DAG: linalg.transpose ins(%{{.*}} : tensor<64x32xf32>) outs(%{{.*}} : tensor<32x64xf32>) permutation = [1, 0]
// BOTH-DAG: linalg.transpose ins(%{{.*}} : tensor<128x32xf32>) outs(%{{.*}} : tensor<32x128xf32>) permutation = [1, 0]
// BOTH: linalg.generic
// BOTH-SAME: tensor<32x64xf32>, tensor<32x128xf32>
func.func @matmul_transposed_b(%a: tensor<64x32xf32>, %b: tensor<128x32xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x32xf32>, tensor<128x32xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// B as [K, N] already: nothing to do.
// CHECK-LABEL: func.func @matmul_plain
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
func.func @matmul_plain(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// A batch matmul with B as [batch, N, K]: the last two dimensions swap,
// the batch stays outermost.
// CHECK-LABEL: func.func @batch_matmul_transposed_b
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x128x32xf32>) outs(%{{.*}} : tensor<4x32x128xf32>) permutation = [0, 2, 1]
// CHECK: linalg.generic
// CHECK-SAME: tensor<4x64x32xf32>, tensor<4x32x128xf32>
func.func @batch_matmul_transposed_b(%a: tensor<4x64x32xf32>, %b: tensor<4x128x32xf32>) -> tensor<4x64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64x32xf32>, tensor<4x128x32xf32>) outs(%fill : tensor<4x64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x64x128xf32>
  return %c : tensor<4x64x128xf32>
}

// -----

// B's rows run along K but a batch loop is just outside K ([N, batch, K]):
// swapping would make the batch contiguous, which the kernel cannot copy.
// CHECK-LABEL: func.func @batch_outside_k
// CHECK-NOT: linalg.transpose
func.func @batch_outside_k(%a: tensor<4x64x32xf32>, %b: tensor<128x4x32xf32>) -> tensor<4x64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, b, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64x32xf32>, tensor<128x4x32xf32>) outs(%fill : tensor<4x64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x64x128xf32>
  return %c : tensor<4x64x128xf32>
}

// -----

// Not a contraction the GEMM kernel takes (its output is not zeroed by a
// fill of its own): left alone.
// CHECK-LABEL: func.func @accumulating_matmul
// CHECK-NOT: linalg.transpose
func.func @accumulating_matmul(%a: tensor<64x32xf32>, %b: tensor<128x32xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x32xf32>, tensor<128x32xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
