// The cheat checks on imported CUDA, one kernel per cheat (problem: y =
// relu(x); kernel parameters x, y in that order, --roles input,output). The
// reasons are the same as for MLIR candidates and point at the CUDA lines.
// REQUIRES: cuda-import
// RUN: kf-evolve import %s --roles input,output -o %t.mlir
// RUN: not kf-opt %t.mlir --kf-detect-cheats -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// CHECK-DAG: cheats.cu:[[#@LINE+4]]:8: error: rejected [writes-input]: writes to input %arg0; inputs are read-only (kernel @_Z12writes_inputPfS_)
__global__ void writes_input(float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = fmaxf(x[i], 0.0f);
  x[i] = 0.0f;
}

// CHECK-DAG: cheats.cu:[[#@LINE+1]]:0: error: rejected [output-not-written]: output %arg1 is never written (kernel @_Z12never_writesPKfPf)
__global__ void never_writes(const float *x, float *y) {}

// CHECK-DAG: cheats.cu:[[#@LINE+1]]:0: error: rejected [output-independent-of-inputs]: {{.*}}(kernel @_Z8constantPKfPf)
__global__ void constant(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = 0.5f;
}

// CHECK-DAG: cheats.cu:[[#@LINE+4]]:{{[0-9]+}}: error: rejected [disallowed-call]: {{.*}}vprintf{{.*}}(kernel @_Z6printsPKfPf)
__global__ void prints(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = fmaxf(x[i], 0.0f);
  printf("%f\n", y[i]);
}
