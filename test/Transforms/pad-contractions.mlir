// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-pad-contractions))' | FileCheck %s

// Odd M, N and K (1000 x 1020 x 250): M and N go to multiples of 64 (under
// 1024), K to a multiple of 16; both operands get zero-padding copies, the
// padded product its own fill, and the result is copied out of the
// flattened product.
// CHECK-LABEL: func.func @odd_sizes
// CHECK-SAME: (%[[A:.*]]: tensor<1000x250xf32>, %[[B:.*]]: tensor<250x1020xf32>)
// CHECK: %[[PA:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1024x256xf32>)
// CHECK:   arith.cmpi ule
// CHECK:   arith.minui
// CHECK:   tensor.extract %[[A]]
// CHECK:   arith.select
// CHECK: %[[PB:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<256x1024xf32>)
// CHECK:   tensor.extract %[[B]]
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<1024x1024xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[PA]], %[[PB]] : tensor<1024x256xf32>, tensor<256x1024xf32>) outs(%[[FILL]] : tensor<1024x1024xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1]] : tensor<1024x1024xf32> into tensor<1048576xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[FLAT]] : tensor<1048576xf32>) outs(%{{.*}} : tensor<1000x1020xf32>)
// CHECK: return %[[OUT]]
func.func @odd_sizes(%A: tensor<1000x250xf32>, %B: tensor<250x1020xf32>) -> tensor<1000x1020xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1000x1020xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<1000x1020xf32>) -> tensor<1000x1020xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<1000x250xf32>, tensor<250x1020xf32>) outs(%fill : tensor<1000x1020xf32>) -> tensor<1000x1020xf32>
  return %mm : tensor<1000x1020xf32>
}

// -----

// The readback's map linearizes (i, j) over the padded row of 6016.
// CHECK: #[[$LINEAR:.*]] = affine_map<(d0, d1) -> (d0 * 6016 + d1)>
// CHECK-LABEL: func.func @suite_l1_8
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8320x2960xf32>, tensor<2960x6016xf32>) outs(%{{.*}} : tensor<8320x6016xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LINEAR]], #{{.*}}]
func.func @suite_l1_8(%A: tensor<8205x2949xf32>, %B: tensor<2949x5921xf32>) -> tensor<8205x5921xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8205x5921xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8205x2949xf32>, tensor<2949x5921xf32>) outs(%fill : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  return %mm : tensor<8205x5921xf32>
}

// -----

// Only K is odd: A is padded along K, B along K, and the product has the
// output's shape (no copy back). B is read transposed ([N, K]); its copy
// keeps that layout.
// CHECK-LABEL: func.func @odd_k_transposed_b
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<256x1040xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<512x1040xf32>)
// CHECK: %[[P:.*]] = linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %{{.*}} : tensor<256x1040xf32>, tensor<512x1040xf32>) outs(%{{.*}} : tensor<256x512xf32>)
// CHECK-NEXT: return %[[P]]
func.func @odd_k_transposed_b(%A: tensor<256x1030xf32>, %B: tensor<512x1030xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>]
      ins(%A, %B : tensor<256x1030xf32>, tensor<512x1030xf32>) outs(%fill : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %mm : tensor<256x512xf32>
}

// -----

// A batched product pads its M and N, not its batch loop: the readback
// linearizes (b, i, j) over [4, 128, 192].
// CHECK: #[[$BLINEAR:.*]] = affine_map<(d0, d1, d2) -> (d0 * 24576 + d1 * 192 + d2)>
// CHECK-LABEL: func.func @batched
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x128x512xf32>, tensor<4x512x192xf32>) outs(%{{.*}} : tensor<4x128x192xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$BLINEAR]], #{{.*}}]
func.func @batched(%A: tensor<4x120x512xf32>, %B: tensor<4x512x190xf32>) -> tensor<4x120x190xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x120x190xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x120x190xf32>) -> tensor<4x120x190xf32>
  %mm = linalg.batch_matmul ins(%A, %B : tensor<4x120x512xf32>, tensor<4x512x190xf32>) outs(%fill : tensor<4x120x190xf32>) -> tensor<4x120x190xf32>
  return %mm : tensor<4x120x190xf32>
}

// -----

// Left alone: sizes tiles divide; a matrix-vector product (N = 1 would
// become 64, far past the overhead allowed); and an output the contraction
// does not own alone (not a GEMM-kernel contraction).
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<256x512xf32>, tensor<512x128xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2048x4096xf32>, tensor<4096x1xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1000x1000xf32>, tensor<1000x1000xf32>) outs(%{{.*}} : tensor<1000x1000xf32>)
func.func @untouched(%A: tensor<256x512xf32>, %B: tensor<512x128xf32>, %M: tensor<2048x4096xf32>, %v: tensor<4096x1xf32>, %S: tensor<1000x1000xf32>, %C: tensor<1000x1000xf32>) -> (tensor<256x128xf32>, tensor<2048x1xf32>, tensor<1000x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %mm0 = linalg.matmul ins(%A, %B : tensor<256x512xf32>, tensor<512x128xf32>) outs(%f0 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %e1 = tensor.empty() : tensor<2048x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
  %mm1 = linalg.matmul ins(%M, %v : tensor<2048x4096xf32>, tensor<4096x1xf32>) outs(%f1 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
  %mm2 = linalg.matmul ins(%S, %S : tensor<1000x1000xf32>, tensor<1000x1000xf32>) outs(%C : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %mm0, %mm1, %mm2 : tensor<256x128xf32>, tensor<2048x1xf32>, tensor<1000x1000xf32>
}

// -----

// A smaller allowance leaves L1-8's sizes alone (3.4% more multiply-adds);
// the default one pads them.
// CHECK-LABEL: func.func @tight
// CHECK: tensor.collapse_shape
// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-pad-contractions{max-overhead=0.01}))' | FileCheck %s --check-prefix=TIGHT
// TIGHT-LABEL: func.func @tight
// TIGHT-NOT: tensor.collapse_shape
// TIGHT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8205x2949xf32>, tensor<2949x5921xf32>)
func.func @tight(%A: tensor<8205x2949xf32>, %B: tensor<2949x5921xf32>) -> tensor<8205x5921xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8205x5921xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<8205x2949xf32>, tensor<2949x5921xf32>) outs(%fill : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  return %mm : tensor<8205x5921xf32>
}
