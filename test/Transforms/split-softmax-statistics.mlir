// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-split-softmax-statistics{chunk=16 min-chunks=4}))' | FileCheck %s
// RUN: not kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-split-softmax-statistics{chunk=1}))' 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: error: kf-split-softmax-statistics: chunk and min-chunks must be at least 2

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A softmax's statistics as kf-fuse-elementwise leaves them, over rows of
// 64 in chunks of 16: the chunks' max and sum of exp(x - chunk max) over
// x expanded to 2x4x16, then the row max into the max's init and the
// rescaled sum into the sum's init; the division reads the new max and sum.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf32>)
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NINF]] : f32)
// CHECK: %[[SUMINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[CHUNKED:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 4, 16] : tensor<2x64xf32> into tensor<2x4x16xf32>
// CHECK: %[[CMAXINIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[CMAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[CHUNKED]] : tensor<2x4x16xf32>) outs(%[[CMAXINIT]] : tensor<2x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[CSUMINIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[CSUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[CHUNKED]], %[[CMAX]] : tensor<2x4x16xf32>, tensor<2x4xf32>) outs(%[[CSUMINIT]] : tensor<2x4xf32>)
// CHECK: ^bb0(%[[E:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[D:.*]] = arith.subf %[[E]], %[[M]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[D]] : f32
// CHECK: arith.addf %[[EXP]], %[[ACC]] : f32
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[CMAX]] : tensor<2x4xf32>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[CSUM]], %[[CMAX]], %[[MAX]] : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>) outs(%[[SUMINIT]] : tensor<2xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[CM:.*]]: f32, %[[RM:.*]]: f32, %[[TOTAL:.*]]: f32):
// CHECK: %[[SHIFT:.*]] = arith.subf %[[CM]], %[[RM]] : f32
// CHECK: %[[SCALE:.*]] = math.exp %[[SHIFT]] : f32
// CHECK: %[[TERM:.*]] = arith.mulf %[[S]], %[[SCALE]] : f32
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[CM]], %{{.*}} : f32
// CHECK: %[[KEPT:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[TERM]] : f32
// CHECK: arith.addf %[[KEPT]], %[[TOTAL]] : f32
// CHECK: linalg.generic {{.*}}ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x64xf32>, tensor<2xf32>, tensor<2xf32>)
func.func @softmax(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x64xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<2x64xf32>, tensor<2xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %oe = tensor.empty() : tensor<2x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<2x64xf32>, tensor<2xf32>, tensor<2xf32>) outs(%oe : tensor<2x64xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    %q = arith.divf %p, %s : f32
    linalg.yield %q : f32
  } -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A row of 36: its largest divisor between 8 and 16 is 12, three chunks,
// fewer than min-chunks. Unchanged.
// CHECK-LABEL: func.func @too_short
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @too_short(%x: tensor<2x36xf32>, %mi: tensor<2xf32>, %si: tensor<2xf32>) -> tensor<2xf32> {
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x36xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<2x36xf32>, tensor<2xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %sum : tensor<2xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// The sum shifts by the max of another tensor: exp(x - m_c) could
// overflow where exp(x - max(y)) does not. Unchanged.
// CHECK-LABEL: func.func @max_of_other
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @max_of_other(%x: tensor<2x64xf32>, %y: tensor<2x64xf32>, %mi: tensor<2xf32>, %si: tensor<2xf32>) -> tensor<2xf32> {
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<2x64xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<2x64xf32>, tensor<2xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %sum : tensor<2xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A sum of exp(max - x) (the operands swapped): not a softmax's; unchanged.
// CHECK-LABEL: func.func @swapped
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @swapped(%x: tensor<2x64xf32>, %mi: tensor<2xf32>, %si: tensor<2xf32>) -> tensor<2xf32> {
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x64xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<2x64xf32>, tensor<2xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %m, %in : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %sum : tensor<2xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// The max is read before the sum: the combined max could not replace it at
// the sum's place. Unchanged.
// CHECK-LABEL: func.func @max_read_first
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @max_read_first(%x: tensor<2x64xf32>, %mi: tensor<2xf32>, %si: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x64xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %twice = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%max : tensor<2xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.addf %in, %in : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<2x64xf32>, tensor<2xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %sum, %twice : tensor<2xf32>, tensor<2xf32>
}
