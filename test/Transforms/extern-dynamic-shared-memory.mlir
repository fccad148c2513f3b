// RUN: kf-opt %s -pass-pipeline='builtin.module(gpu.module(kf-extern-dynamic-shared-memory))' | FileCheck %s

// The zero-length shared array convert-gpu-to-nvvm makes of
// gpu.dynamic_shared_memory becomes an external declaration (PTX:
// `.extern .shared .align 16 .b8 __dynamic_shmem__0[]`); static shared
// buffers and zero-length globals elsewhere keep their linkage.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
// CHECK-DAG: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
}
