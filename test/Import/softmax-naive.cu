// A naive softmax: one thread per row, three sequential passes (clang -O3
// unrolls them into five loops). Imported and checked: the kernel, its loops
// and the early exit of the threads past the last row are found, and no
// cheat check fires. The access patterns stay unknown: consecutive threads
// are `cols` elements apart, a kernel parameter the import cannot know (a
// launch plan binding it to the problem's sizes would).
// REQUIRES: cuda-import
// RUN: kf-evolve import %s --roles input,output -o %t.mlir
// RUN: kf-opt %t.mlir --kf-diagnose -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: kf-opt %t.mlir --kf-detect-cheats -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | count 0

// CHECK: softmax-naive.cu:14:0: remark: kernel @_Z12softmax_rowsPKfPfii: block unknown, grid unknown, 0 bytes of shared memory, 0 barriers, 5 loops, 20 global accesses
// CHECK: softmax-naive.cu:16:11: remark: [divergent-branch] the branch condition depends on the thread id
__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  const float *in = x + (long)row * cols;
  float *out = y + (long)row * cols;
  float m = -INFINITY;
  for (int j = 0; j < cols; ++j)
    m = fmaxf(m, in[j]);
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j)
    sum += expf(in[j] - m);
  for (int j = 0; j < cols; ++j)
    out[j] = expf(in[j] - m) / sum;
}
