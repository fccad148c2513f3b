// linalg on tensors and on memrefs: elementwise, reductions (static and
// dynamic), named ops, a kf.problem with its reference.

func.func @reduce_tensor(%x: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

func.func @reduce_memref(%x: memref<8x1024xf32>, %acc: memref<8xf32>) {
  linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1024xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%in: f32, %a: f32):
    %s = arith.maximumf %in, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @dynamic(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %sum : tensor<?xf32>
}

// -----

func.func @named(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %m: memref<4x4xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x16xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x16xf32>) -> tensor<64x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%filled : tensor<64x16xf32>) -> tensor<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%m : memref<4x4xf32>)
  %t = linalg.transpose ins(%mm : tensor<64x16xf32>) outs(%empty : tensor<64x16xf32>) permutation = [0, 1]
  return %t : tensor<64x16xf32>
}

// -----

// Several reduction dimensions, an accumulator used twice, i32 sums,
// a 0-d result.
func.func @odd_reductions(%x: tensor<2x3x4x5xf32>, %i: tensor<16xi32>) -> (tensor<3xf32>, tensor<i32>) {
  %zero = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>],
      iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<2x3x4x5xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %acc, %acc : f32
    %s = arith.addf %in, %sq : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %e0 = tensor.empty() : tensor<i32>
  %f0 = linalg.fill ins(%zi : i32) outs(%e0 : tensor<i32>) -> tensor<i32>
  %s = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = ["reduction"]}
      ins(%i : tensor<16xi32>) outs(%f0 : tensor<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %a = arith.addi %in, %acc : i32
    linalg.yield %a : i32
  } -> tensor<i32>
  return %r, %s : tensor<3xf32>, tensor<i32>
}

// -----

kf.problem @relu reference(@relu_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 0.0, rtol = 0.0>)

func.func @relu_ref(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A full reduction to a 0-d tensor (no parallel loop) in a problem.
kf.problem @total reference(@total_ref)
    inputs([#kf.uniform<-1.0, 1.0>])
    tolerance(<atol = 1.0e-3, rtol = 1.0e-3>)

func.func @total_ref(%x: tensor<64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
