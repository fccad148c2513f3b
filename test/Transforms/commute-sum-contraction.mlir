// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-commute-sum-contraction))' | FileCheck %s

// L2-14: sum_j (x W^T / 2)[i, j] = sum_k x[i, k] * (sum_j W[j, k] / 2).
// The slope of the epilogue (1 / 2) scales W's column sums; no offset.
// CHECK-LABEL: func.func @divide_then_sum
// CHECK-SAME: (%[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<128x32xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[WS:.*]] = linalg.generic {indexing_maps = [#[[KJ:.*]], #[[K:.*]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[W]] : tensor<128x32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[SLOPE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[P:.*]] = arith.mulf %[[SLOPE]], %{{.*}} : f32
// CHECK: arith.addf %[[P]], %{{.*}} : f32
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[WS]] : tensor<64x32xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @divide_then_sum(%x: tensor<64x32xf32>, %w: tensor<128x32xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%x, %w : tensor<64x32xf32>, tensor<128x32xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %div = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%c: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %d = arith.divf %c, %two : f32
    linalg.yield %d : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%div : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// L2-51 after epilogue fusion: (c + b) - s computed in place on the
// matmul's result, then summed over N. Slope 1, offset b_j - s_j: the
// offsets are summed by an op of their own (a unit parallel loop) and
// added to every row.
// CHECK-LABEL: func.func @bias_subtract_in_place
// CHECK-SAME: (%[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<128x32xf32>, %[[B:.*]]: tensor<128xf32>, %[[S:.*]]: tensor<128xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[WS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[W]], %[[B]], %[[S]] : tensor<128x32xf32>, tensor<128xf32>, tensor<128xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[WS]] : tensor<64x32xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[J:.*]], #[[J]], #[[P:.*]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[B]], %[[S]] : tensor<128xf32>, tensor<128xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK: %[[OFF:.*]] = arith.addf %[[ZERO:.*]], %{{.*}} : f32
// CHECK: arith.subf %[[OFF]], %{{.*}} : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[FIRST:.*]], #{{.*}}], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[Y]], %[[T]] : tensor<64xf32>, tensor<1xf32>)
// CHECK: return %[[R]]
func.func @bias_subtract_in_place(%x: tensor<64x32xf32>, %w: tensor<128x32xf32>, %b: tensor<128xf32>, %s: tensor<128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%x, %w : tensor<64x32xf32>, tensor<128x32xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %epi = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%b, %s : tensor<128xf32>, tensor<128xf32>) outs(%mm : tensor<64x128xf32>) {
  ^bb0(%bias: f32, %sub: f32, %c: f32):
    %t = arith.addf %c, %bias : f32
    %u = arith.subf %t, %sub : f32
    linalg.yield %u : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%epi : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// A sigmoid is not affine (L2-56): left alone.
// CHECK-LABEL: func.func @sigmoid_then_sum
// CHECK: linalg.matmul
// CHECK: math.exp
func.func @sigmoid_then_sum(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %sig = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%c: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %c : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%sig : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// A product of the GEMM's value with itself is not affine: left alone.
// CHECK-LABEL: func.func @square_then_sum
// CHECK: linalg.matmul
func.func @square_then_sum(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %sq = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%c: f32, %out: f32):
    %r = arith.mulf %c, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// A sum over M (the other dimension) is not this rewrite's: left alone.
// CHECK-LABEL: func.func @sum_over_m
// CHECK: linalg.matmul
func.func @sum_over_m(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<64x128xf32>) outs(%z : tensor<128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %sum : tensor<128xf32>
}

// -----

// The GEMM's output is also returned: it must be formed, left alone.
// CHECK-LABEL: func.func @gemm_also_returned
// CHECK: linalg.matmul
func.func @gemm_also_returned(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> (tensor<64x128xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %mm, %sum : tensor<64x128xf32>, tensor<64xf32>
}
