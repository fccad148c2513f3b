// RUN: kf-opt %s -split-input-file -kf-gather-selected-elements | FileCheck %s

// Cross-entropy's sum of exponentials and pick of the target's logit in
// one reduction (L1-95): the pick becomes a gather of x[i, t[i]] (its
// initial value where t[i] is out of range), the sum a reduction of its own.
// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[MAX:.*]]: tensor<8xf32>, %[[T:.*]]: tensor<8xi64>, %[[S0:.*]]: tensor<8xf32>, %[[P0:.*]]: tensor<8xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[PICK:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[T]], %[[P0]] : tensor<8xi64>, tensor<8xf32>) outs(%[[EMPTY]] : tensor<8xf32>)
// CHECK: ^bb0(%[[TI:.*]]: i64, %[[INIT:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[J:.*]] = arith.index_cast %[[TI]] : i64 to index
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[J]], %[[C0:.*]] : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[J]], %[[C16:.*]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[J]], %[[C0]] : index
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[I]], %[[SAFE]]] : tensor<8x16xf32>
// CHECK: %[[V:.*]] = arith.select %[[IN]], %[[E]], %[[INIT]] : f32
// CHECK: linalg.yield %[[V]] : f32
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[T]] : tensor<8x16xf32>, tensor<8xf32>, tensor<8xi64>) outs(%[[S0]] : tensor<8xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i64, %{{.*}}: f32):
// CHECK-NOT: linalg.index
// CHECK-NOT: arith.select
// CHECK: math.exp
// CHECK: linalg.yield %{{.*}} : f32
// CHECK: return %[[SUM]], %[[PICK]]
func.func @cross_entropy(%x: tensor<8x16xf32>, %max: tensor<8xf32>, %t: tensor<8xi64>, %s0: tensor<8xf32>, %p0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %max, %t : tensor<8x16xf32>, tensor<8xf32>, tensor<8xi64>)
      outs(%s0, %p0 : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %m: f32, %ti: i64, %s: f32, %p: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %eq = arith.cmpi eq, %jj, %ti : i64
    %s1 = arith.addf %e, %s : f32
    %p1 = arith.select %eq, %a, %p : f32
    linalg.yield %s1, %p1 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// The pick alone, the target compared on the left and as an index, the
// reduced loop outermost and the output transposed against the source:
// the gather indexes x by the output's dimensions.
// CHECK-LABEL: func.func @pick_only
// CHECK-NOT: iterator_types = ["reduction"
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x3xindex>, tensor<4x3xf32>)
// CHECK: %[[A:.*]] = linalg.index 1 : index
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[A]], %[[B]]] : tensor<5x3x4xf32>
// CHECK-NOT: linalg.generic
func.func @pick_only(%x: tensor<5x3x4xf32>, %t: tensor<4x3xindex>, %p0: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(d, i, k) -> (d, i, k)>, affine_map<(d, i, k) -> (k, i)>, affine_map<(d, i, k) -> (k, i)>],
      iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x, %t : tensor<5x3x4xf32>, tensor<4x3xindex>)
      outs(%p0 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %ti: index, %p: f32):
    %j = linalg.index 0 : index
    %eq = arith.cmpi eq, %ti, %j : index
    %p1 = arith.select %eq, %a, %p : f32
    linalg.yield %p1 : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// Not a pick: the index compared as i32 (it could wrap), a select that keeps
// the last match of a comparison other than equality, and the accumulator
// used elsewhere. Left as they are.
// CHECK-LABEL: func.func @not_picks
// CHECK-COUNT-3: iterator_types = ["parallel", "reduction"]
// CHECK-NOT: tensor.extract
func.func @not_picks(%x: tensor<8x16xf32>, %t: tensor<8xi32>, %u: tensor<8xi64>, %p0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r0 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : tensor<8x16xf32>, tensor<8xi32>) outs(%p0 : tensor<8xf32>) {
  ^bb0(%a: f32, %ti: i32, %p: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i32
    %eq = arith.cmpi eq, %jj, %ti : i32
    %p1 = arith.select %eq, %a, %p : f32
    linalg.yield %p1 : f32
  } -> tensor<8xf32>
  %r1 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %u : tensor<8x16xf32>, tensor<8xi64>) outs(%p0 : tensor<8xf32>) {
  ^bb0(%a: f32, %ti: i64, %p: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %jj, %ti : i64
    %p1 = arith.select %lt, %a, %p : f32
    linalg.yield %p1 : f32
  } -> tensor<8xf32>
  %r2 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %u : tensor<8x16xf32>, tensor<8xi64>) outs(%p0 : tensor<8xf32>) {
  ^bb0(%a: f32, %ti: i64, %p: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %eq = arith.cmpi eq, %jj, %ti : i64
    %sum = arith.addf %a, %p : f32
    %p1 = arith.select %eq, %sum, %p : f32
    linalg.yield %p1 : f32
  } -> tensor<8xf32>
  return %r0, %r1, %r2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
