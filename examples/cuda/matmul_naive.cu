// A naive CUDA matrix multiplication C = A B (M x K times K x N, fp32): one
// thread per element of C, reading a row of A and a column of B from global
// memory. The block shape (TX x TY threads) and the unroll factor of the K
// loop are launch-plan parameters (matmul_naive.plan.json), defined as
// macros for the device code, which kf-evolve's CUDA experts tune.
#ifndef TX
#define TX 16
#endif
#ifndef TY
#define TY 16
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

extern "C" __global__ void matmul(const float *a, const float *b, float *c,
                                  int m, int n, int k) {
  int row = blockIdx.y * TY + threadIdx.y;
  int col = blockIdx.x * TX + threadIdx.x;
  if (row >= m || col >= n)
    return;
  float acc = 0.0f;
#pragma unroll UNROLL
  for (int i = 0; i < k; ++i)
    acc += a[(long)row * k + i] * b[(long)i * n + col];
  c[(long)row * n + col] = acc;
}
