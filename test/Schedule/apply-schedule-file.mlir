// A schedule from a file is applied; a missing file or a file that is not a
// transform script fails with a located error.
// RUN: kf-opt %s -kf-apply-schedule=schedule=%S/Inputs/tile-relu.mlir | FileCheck %s
// RUN: not kf-opt %s -kf-apply-schedule=schedule=%t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo "module {}" > %t.empty.mlir
// RUN: not kf-opt %s -kf-apply-schedule=schedule=%t.empty.mlir 2>&1 | FileCheck %s --check-prefix=NOENTRY

// CHECK-LABEL: func.func @relu
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128
// MISSING: error: cannot read schedule '{{.*}}missing.mlir'
// NOENTRY: error: {{.*}}could not find a nested named sequence with name: __transform_main
// NOENTRY: error: schedule '{{.*}}' is not a transform script with a @__transform_main entry point
kf.problem @p reference(@relu) tolerance(<atol = 0.0, rtol = 0.0>)
func.func @relu(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x1024xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1024xf32>) outs(%init : tensor<64x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
