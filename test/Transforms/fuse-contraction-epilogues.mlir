// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-fuse-contraction-epilogues))' | FileCheck %s

// Bias then ReLU (L2-76): one generic, computing in place on the matmul's
// result, which it reads through its init.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%{{.*}}: tensor<64x32xf32>, %{{.*}}: tensor<32x128xf32>, %[[BIAS:.*]]: tensor<128xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[EPI:.*]] = linalg.generic {indexing_maps = [#[[ROW:.*]], #[[ID:.*]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[BIAS]] : tensor<128xf32>) outs(%[[MM]] : tensor<64x128xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[RELU]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[EPI]]
func.func @bias_relu(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %biased = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x128xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %relu : tensor<64x128xf32>
}

// -----

// A residual add of the matmul's own result (L2-40: x * s + x): the matmul
// is read twice, by the scaling and by the add; both reads become the init.
// CHECK-LABEL: func.func @scale_residual
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: outs(%[[MM]] : tensor<64x128xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32):
// CHECK: %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}} : f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[SCALED]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]]
func.func @scale_residual(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %scaled = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%scaled, %mm : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// The elementwise stage before a reduction (L2-14: divide, then a row sum)
// runs in place; the reduction stays a consumer of its own.
// CHECK-LABEL: func.func @divide_then_sum
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[DIV:.*]] = linalg.generic
// CHECK-SAME: outs(%[[MM]] : tensor<64x128xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[DIV]] : tensor<64x128xf32>)
func.func @divide_then_sum(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %div = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %d = arith.divf %x, %c : f32
    linalg.yield %d : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%div : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// The matmul's result is also returned: the epilogue cannot overwrite it.
// CHECK-LABEL: func.func @result_also_returned
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]] : tensor<64x128xf32>) outs(%{{.*}} : tensor<64x128xf32>)
func.func @result_also_returned(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %neg = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  return %mm, %neg : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// A consumer reading the result transposed is not the same element of the
// same iteration space: left alone.
// CHECK-LABEL: func.func @transposed_reader
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]] : tensor<64x64xf32>)
func.func @transposed_reader(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%fill : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %t = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// -----

// A contraction the GEMM kernel does not take (f64): left alone.
// CHECK-LABEL: func.func @f64_matmul
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]] : tensor<64x128xf64>)
func.func @f64_matmul(%a: tensor<64x32xf64>, %b: tensor<32x128xf64>) -> tensor<64x128xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<64x128xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<64x128xf64>) -> tensor<64x128xf64>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf64>, tensor<32x128xf64>) outs(%fill : tensor<64x128xf64>) -> tensor<64x128xf64>
  %e1 = tensor.empty() : tensor<64x128xf64>
  %neg = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf64>) outs(%e1 : tensor<64x128xf64>) {
  ^bb0(%x: f64, %out: f64):
    %n = arith.negf %x : f64
    linalg.yield %n : f64
  } -> tensor<64x128xf64>
  return %neg : tensor<64x128xf64>
}

// -----

// L2-40: a bias add whose result is read by a scaling and by the residual
// add after it. The scaling is fused into the add, then the bias add: one
// op, in place.
// CHECK-LABEL: func.func @bias_scale_residual
// CHECK-SAME: %[[BIAS:[a-z0-9]*]]: tensor<128xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[EPI:.*]] = linalg.generic
// The bias add is recomputed for the residual (LLVM's CSE merges the two).
// CHECK-SAME: ins(%[[BIAS]], %[[BIAS]] : tensor<128xf32>, tensor<128xf32>) outs(%[[MM]] : tensor<64x128xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[EPI]]
func.func @bias_scale_residual(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %biased = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %scaled = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x128xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.constant 0.5 : f32
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %e3 = tensor.empty() : tensor<64x128xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%scaled, %biased : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e3 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// An elementwise stage that is also read by a reduction is not fused
// (it would be recomputed beside a kernel of its own), but it still
// computes in place.
// CHECK-LABEL: func.func @stage_read_by_reduction
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[NEG:.*]] = linalg.generic
// CHECK-SAME: outs(%[[MM]] : tensor<64x128xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[NEG]] : tensor<64x128xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[NEG]] : tensor<64x128xf32>)
func.func @stage_read_by_reduction(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> (tensor<64x128xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%fill : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %neg = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %exp = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%neg : tensor<64x128xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<64x128xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%neg : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %exp, %sum : tensor<64x128xf32>, tensor<64xf32>
}
