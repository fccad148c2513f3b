// CUDA input at the common level: a naive ReLU imported (clang -> LLVM IR ->
// llvm + nvvm ops in a gpu.module) and diagnosed like MLIR input, with the
// findings at the CUDA source lines; PTX comes from the same module.
// REQUIRES: cuda-import
// RUN: kf-evolve import %s --roles input,output -o %t.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.mlir
// RUN: kf-opt %t.mlir --kf-diagnose -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: kf-opt %t.mlir --kf-detect-cheats -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | count 0
// RUN: kf-opt %t.mlir --gpu-module-to-binary=format=isa | FileCheck %s --check-prefix=PTX

// IMPORT: module attributes {gpu.container_module}
// IMPORT: gpu.module @relu_naive [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// IMPORT: llvm.func {{.*}}ptx_kernelcc @_Z4reluPKfPfi(%arg0: !llvm.ptr {kf.role = "input"{{.*}}, %arg1: !llvm.ptr {kf.role = "output"
// IMPORT: nvvm.read.ptx.sreg.tid.x

// DIAG: relu-naive.cu:23:0: remark: kernel @_Z4reluPKfPfi: block unknown, grid unknown
// DIAG: relu-naive.cu:26:18: remark: coalesced global load: consecutive threads read consecutive f32 (stride 1)
// DIAG: relu-naive.cu:26:10: remark: coalesced global store: consecutive threads write consecutive f32 (stride 1)
// DIAG: relu-naive.cu:26:18: remark: [narrow-access] coalesced 4-byte global loads
// DIAG: relu-naive.cu:25:9: remark: [divergent-branch] the branch condition depends on the thread id

// PTX: .entry _Z4reluPKfPfi
__global__ void relu(const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(x[i], 0.0f);
}
