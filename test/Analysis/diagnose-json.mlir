// The JSON document of kf-diagnose (schema: docs/diagnosis.md). Kernel
// names outlive the analysis that found them (regression: they were
// borrowed from it and printed as garbage).
// RUN: kf-opt %s -kf-diagnose=json=- -o /dev/null 2>/dev/null | FileCheck %s

// CHECK: "kernels": [
// CHECK: "accesses": [
// CHECK: "kind": "load"
// CHECK: "pattern": "strided"
// CHECK: "space": "global"
// CHECK: "stride_elements": 64
// CHECK: "block": [
// CHECK-NEXT: 64,
// CHECK: "findings": [
// CHECK: "action": "coalesce"
// CHECK: "evidence": {
// CHECK: "kind": "uncoalesced-access"
// CHECK: "severity": "warning"
// CHECK: "form": "gpu"
// CHECK: "kernel": "column"
// CHECK: "occupancy": {
// CHECK: "shared_bytes": 0
// CHECK: "version": 1
gpu.module @m {
  gpu.func @column(%in: memref<128x64xf32>, %out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tx = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %v = memref.load %in[%tx, %c0] : memref<128x64xf32>
    memref.store %v, %out[%tx] : memref<64xf32>
    gpu.return
  }
}
