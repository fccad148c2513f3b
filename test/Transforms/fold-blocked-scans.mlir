// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-fold-blocked-scans))' | FileCheck %s

// A cumulative sum over rows of 64 written in blocks of 8 (as Level 1's
// cumsum problems write rows of 32768 in blocks of 32): the scan within each
// block, the blocks' totals, their exclusive scan, and the sum, collapsed
// back. It becomes one masked reduction over the whole row, on the
// unexpanded input, with the inner scan's predicate; the blocked ops go.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:.*]]: tensor<2x64xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x64xf32>)
// CHECK: %[[SCAN:.*]] = linalg.generic {indexing_maps = [#[[IN:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x64xf32>) outs(%[[FILL]] : tensor<2x64xf32>)
// CHECK: %[[L:.*]] = linalg.index 2 : index
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[IN_RANGE:.*]] = arith.cmpi ule, %[[L]], %[[K]] : index
// CHECK: %[[M:.*]] = arith.select %[[IN_RANGE]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %[[M]], %{{.*}} : f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[SCAN]]
func.func @cumsum(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ult, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

// -----

// A product, backwards, leaving each element out: the fold keeps the
// inner scan's combiner, neutral element and predicate.
// CHECK-LABEL: func.func @cumprod_reverse_exclusive(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x64xf32>)
// CHECK: linalg.generic
// CHECK: arith.cmpi ugt
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @cumprod_reverse_exclusive(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 1.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.mulf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.mulf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.mulf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

// -----

// Reverse and inclusive.
// CHECK-LABEL: func.func @cumsum_reverse(
// CHECK: arith.cmpi uge
// CHECK-NOT: linalg.generic
func.func @cumsum_reverse(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi uge, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

// -----

// Not a scan of the whole row: the block totals' scan includes the
// block's own total (<=), which the inner scan counts again.
// CHECK-LABEL: func.func @outer_inclusive(
// CHECK: tensor.expand_shape
// CHECK-COUNT-4: linalg.generic
// CHECK: tensor.collapse_shape
func.func @outer_inclusive(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

// -----

// The blocks scanned forwards but their totals backwards.
// CHECK-LABEL: func.func @mixed_directions(
// CHECK-COUNT-4: linalg.generic
// CHECK: tensor.collapse_shape
func.func @mixed_directions(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ugt, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}

// -----

// Sums within the blocks, but combined with the earlier blocks by a
// product.
// CHECK-LABEL: func.func @mixed_combiners(
// CHECK-COUNT-4: linalg.generic
// CHECK: tensor.collapse_shape
func.func @mixed_combiners(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 8, 8] : tensor<2x64xf32> into tensor<2x8x8xf32>
  %neutral = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %f3 = linalg.fill ins(%neutral : f32) outs(%e3 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %inner = linalg.generic {
      indexing_maps = [affine_map<(i, j, k, l) -> (i, j, l)>, affine_map<(i, j, k, l) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f3 : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 3 : index
    %k = linalg.index 2 : index
    %in = arith.cmpi ule, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %totals = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xe : tensor<2x8x8xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %f2b = linalg.fill ins(%neutral : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %outer = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%totals : tensor<2x8xf32>) outs(%f2b : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %l = linalg.index 2 : index
    %k = linalg.index 1 : index
    %in = arith.cmpi ult, %l, %k : index
    %m = arith.select %in, %v, %neutral : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %e3b = tensor.empty() : tensor<2x8x8xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j, k)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%inner, %outer : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%e3b : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x8x8xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}
