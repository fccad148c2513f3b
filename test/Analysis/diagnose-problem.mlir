// RUN: kf-opt %s -kf-diagnose=json=%t.json -verify-diagnostics
// RUN: FileCheck %s < %t.json

// Problem-wide facts at the linalg level: work, traffic, floor, and the
// intermediate an eager framework writes and reads back.
// expected-remark @below {{problem @scale_exp: 2048 FLOPs, 8192 compulsory bytes, 8192 bytes as written, 0.250 FLOP/byte; roofline floor 0.000 ms on NVIDIA H200 (kf defaults) (memory-bound)}}
kf.problem @scale_exp reference(@ref) tolerance(<atol = 0.0, rtol = 1.0e-06>)
func.func @ref(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %two = arith.constant 2.0 : f32
  %init = tensor.empty() : tensor<1024xf32>
  // expected-remark @below {{fusion opportunity: this result (4096 bytes) is written to memory and read back by the next operation; fusing them saves 8192 bytes}}
  %a = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  } -> tensor<1024xf32>
  %b = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<1024xf32>
  return %b : tensor<1024xf32>
}

// CHECK: "problem": {
// CHECK: "floor_bound": "memory"
// CHECK: "floor_bytes": 8192
// CHECK: "flops": 2048
// CHECK: "fusion_chances": [
// CHECK: "bytes_saved": 8192
// CHECK: "input_passes": [
// CHECK-NEXT: {
// CHECK-NEXT: "argument": 0,
// CHECK-NEXT: "bytes": 4096,
// CHECK-NEXT: "passes": 1
// CHECK: "min_bytes": 8192
// CHECK: "op_classes": {
// CHECK-NEXT: "elementwise": 2
// CHECK: "unfused_bytes": 16384
// CHECK: "version": 1
