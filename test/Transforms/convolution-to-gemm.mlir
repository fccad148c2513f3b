// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-convolution-to-gemm))' | FileCheck %s
// RUN: kf-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kf-convolution-to-gemm{max-column-bytes=1000}))' | FileCheck %s --check-prefix=CAPPED

// A strided, dilated 2-D convolution with a bias: every GEMM dimension is
// padded (F = 5 -> 64, K = 3*3*2 = 18 -> 32, N = 2*4*8 = 64 -> 128).
// The maps print first: A[f, k], B[k, m], C[f, m], and the transposed read
// of the padded product, linearized: element f * 128 + (n * 4 + p) * 8 + q.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1, d2, d3) -> (d1 * 128 + (d0 * 4 + d2) * 8 + d3)>
// CHECK-LABEL: func.func @conv2d_padded
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x9x10xf32>, %[[W:.*]]: tensor<5x3x3x2xf32>, %[[INIT:.*]]: tensor<2x5x4x8xf32>)
// The im2col matrix: rows (c, r, s), columns (n, p, q), zero past 18 and 64.
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x128xf32>)
// CHECK: %[[K:.*]] = linalg.index 0
// CHECK: arith.cmpi ule, %[[K]], %c17
// CHECK: %[[M:.*]] = linalg.index 1
// CHECK: arith.cmpi ule, %[[M]], %c63
// CHECK: tensor.extract %[[X]]
// CHECK: arith.select
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<5x3x3x2xf32> into tensor<5x18xf32>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x32xf32>)
// CHECK: tensor.extract %[[ROWS]]
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<64x128xf32>
// CHECK: %[[GEMM:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[COL]] : tensor<64x32xf32>, tensor<32x128xf32>) outs(%[[ZEROS]] : tensor<64x128xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[GEMM]] {{\[}}[0, 1]] : tensor<64x128xf32> into tensor<8192xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$T]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[FLAT]], %[[INIT]] : tensor<8192xf32>, tensor<2x5x4x8xf32>) outs(%{{.*}} : tensor<2x5x4x8xf32>)
// CHECK: arith.addf
// CHECK: return %[[OUT]]
// CAPPED-LABEL: func.func @conv2d_padded
// CAPPED: linalg.conv_2d_nchw_fchw
func.func @conv2d_padded(%x: tensor<2x3x9x10xf32>, %w: tensor<5x3x3x2xf32>, %init: tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x9x10xf32>, tensor<5x3x3x2xf32>) outs(%init : tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
  return %y : tensor<2x5x4x8xf32>
}

// -----

// A 1-D convolution whose GEMM needs no padding (F = 64, K = 4*4 = 16,
// N = 2*64 = 128): the weight is a view, the product is viewed as
// [F, N, P] and read transposed, and no element is masked.
// CHECK-DAG: #[[$T1:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @conv1d_exact
// CHECK-NOT: arith.select
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x4x4xf32> into tensor<64x16xf32>
// CHECK: %[[GEMM:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}} : tensor<64x16xf32>, tensor<16x128xf32>) outs(%{{.*}} : tensor<64x128xf32>)
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[GEMM]] {{\[}}[0], [1, 2]] output_shape [64, 2, 64]
// CHECK: linalg.generic {indexing_maps = [#[[$T1:.*]], #{{.*}}, #{{.*}}], {{.*}} ins(%[[VIEW]], %{{.*}} : tensor<64x2x64xf32>, tensor<2x64x64xf32>)
// CAPPED-LABEL: func.func @conv1d_exact
// CAPPED: linalg.conv_1d_ncw_fcw
func.func @conv1d_exact(%x: tensor<2x4x67xf32>, %w: tensor<64x4x4xf32>, %init: tensor<2x64x64xf32>) -> tensor<2x64x64xf32> {
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<2x4x67xf32>, tensor<64x4x4xf32>) outs(%init : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %y : tensor<2x64x64xf32>
}

// -----

// A 3-D convolution: the column's coordinates come from (c, t, r, s) and
// (n, o, p, q).
// CHECK-LABEL: func.func @conv3d
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<32x128xf32>)
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x2x4x5x6xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3, 4]] : tensor<3x2x2x2x3xf32> into tensor<3x24xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<64x128xf32> into tensor<8192xf32>
// CHECK-NOT: linalg.conv
func.func @conv3d(%x: tensor<1x2x4x5x6xf32>, %w: tensor<3x2x2x2x3xf32>, %init: tensor<1x3x3x4x4xf32>) -> tensor<1x3x3x4x4xf32> {
  %y = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%x, %w : tensor<1x2x4x5x6xf32>, tensor<3x2x2x2x3xf32>) outs(%init : tensor<1x3x3x4x4xf32>) -> tensor<1x3x3x4x4xf32>
  return %y : tensor<1x3x3x4x4xf32>
}

// -----

// Depthwise convolutions are not GEMMs: left alone.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// A transposed 1-D convolution (ConvTranspose1d(3, 4, 3, stride=2,
// padding=1)) as bench/suite/nn.py writes it: a gather inserting a zero
// between the inputs (element z holds x[(z - 1) / 2] at odd z), then a
// stride-1 convolution. Its outputs o = phase + 2 * q split into two stride
// phases: phase 0 is reached by tap 1 (source q), phase 1 by taps 0 and 2
// (sources q and q + 1). The gather is gone; the batched GEMM reads x: K =
// 3 channels * 2 taps -> 16, N = 2 * ceil(9 / 2) -> 128, F = 4 -> 64. The
// output extracts element [o mod 2, f, n * 5 + o floordiv 2] of the
// product (an indexing map with a mod would not be monotonic, which tiling
// assumes when it slices an operand).
// CHECK-DAG: #[[$PA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$PB:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$PC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @conv_transpose1d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>, %[[W:.*]]: tensor<4x3x3xf32>
// CHECK-NOT: tensor<2x3x11xf32>
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x128xf32>)
// CHECK: tensor.extract %[[X]]
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x64x16xf32>)
// CHECK: tensor.extract %[[W]]
// CHECK: %[[GEMM:.*]] = linalg.generic {indexing_maps = [#[[$PA]], #[[$PB]], #[[$PC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[COL]] : tensor<2x64x16xf32>, tensor<2x16x128xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x9xf32>) outs(%{{.*}} : tensor<2x4x9xf32>)
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[O:.*]] = linalg.index 2
// CHECK: %[[PHASE:.*]] = arith.remui %[[O]], %c2
// CHECK: %[[Q:.*]] = arith.divui %[[O]], %c2
// CHECK: %[[COLUMN:.*]] = arith.addi %{{.*}}, %[[Q]]
// CHECK: %[[F:.*]] = linalg.index 1
// CHECK: tensor.extract %[[GEMM]][%{{.*}}, %[[F]], %[[COLUMN]]] : tensor<2x64x128xf32>
func.func @conv_transpose1d(%x: tensor<2x3x5xf32>, %w: tensor<4x3x3xf32>, %init: tensor<2x4x9xf32>) -> tensor<2x4x9xf32> {
  %e = tensor.empty() : tensor<2x3x11xf32>
  %xz = linalg.generic {
      indexing_maps = [affine_map<(n, c, z) -> (n, c, z)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<2x3x11xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %z = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %j = arith.subi %z, %c1 : index
    %r = arith.remsi %j, %c2 : index
    %on = arith.cmpi eq, %r, %c0 : index
    %q = arith.divsi %j, %c2 : index
    %ge = arith.cmpi sge, %q, %c0 : index
    %le = arith.cmpi sle, %q, %c4 : index
    %q0 = arith.maxsi %q, %c0 : index
    %q1 = arith.minsi %q0, %c4 : index
    %v = tensor.extract %x[%n, %c, %q1] : tensor<2x3x5xf32>
    %a = arith.andi %on, %ge : i1
    %b = arith.andi %a, %le : i1
    %zero = arith.constant 0.0 : f32
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<2x3x11xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%xz, %w : tensor<2x3x11xf32>, tensor<4x3x3xf32>) outs(%init : tensor<2x4x9xf32>) -> tensor<2x4x9xf32>
  return %y : tensor<2x4x9xf32>
}

// -----

// A gather that pads with a value other than zero (as in front of max
// pooling) is no zero insertion: the convolution's im2col reads the
// gather's result, which stays.
// CHECK-LABEL: func.func @conv_after_nonzero_padding
// CHECK: %[[PADDED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x11xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x128xf32>)
// CHECK: tensor.extract %[[PADDED]]
// CHECK-NOT: linalg.conv
func.func @conv_after_nonzero_padding(%x: tensor<2x3x5xf32>, %w: tensor<4x3x3xf32>, %init: tensor<2x4x9xf32>) -> tensor<2x4x9xf32> {
  %e = tensor.empty() : tensor<2x3x11xf32>
  %xz = linalg.generic {
      indexing_maps = [affine_map<(n, c, z) -> (n, c, z)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<2x3x11xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %z = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %j = arith.subi %z, %c1 : index
    %r = arith.remsi %j, %c2 : index
    %on = arith.cmpi eq, %r, %c0 : index
    %q = arith.divsi %j, %c2 : index
    %ge = arith.cmpi sge, %q, %c0 : index
    %le = arith.cmpi sle, %q, %c4 : index
    %q0 = arith.maxsi %q, %c0 : index
    %q1 = arith.minsi %q0, %c4 : index
    %v = tensor.extract %x[%n, %c, %q1] : tensor<2x3x5xf32>
    %a = arith.andi %on, %ge : i1
    %b = arith.andi %a, %le : i1
    %one = arith.constant 1.0 : f32
    %s = arith.select %b, %v, %one : f32
    linalg.yield %s : f32
  } -> tensor<2x3x11xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%xz, %w : tensor<2x3x11xf32>, tensor<4x3x3xf32>) outs(%init : tensor<2x4x9xf32>) -> tensor<2x4x9xf32>
  return %y : tensor<2x4x9xf32>
}
