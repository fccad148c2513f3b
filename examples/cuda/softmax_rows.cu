// A straightforward CUDA softmax over the rows of x (rows x cols, fp32):
// one block per row, BLOCK threads striding over the row three times (max,
// sum of exponentials, normalized output), with shared-memory tree
// reductions. BLOCK and the unroll factor of the strided loops (UNROLL:
// more loads in flight per thread) come from the launch plan
// (softmax_rows.plan.json), which kf defines as macros for the device code;
// kf-evolve's CUDA experts tune them, the launch bounds and the register
// cap. As written (UNROLL=1) the loops stay rolled: `#pragma unroll 1`
// also keeps clang from unrolling them on its own.
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

__device__ float block_reduce(float value, float *scratch, bool take_max) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      float other = scratch[threadIdx.x + stride];
      scratch[threadIdx.x] = take_max ? fmaxf(scratch[threadIdx.x], other)
                                      : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  float result = scratch[0];
  __syncthreads();
  return result;
}

extern "C" __global__ void softmax_rows(const float *x, float *y, long cols) {
  __shared__ float scratch[BLOCK];
  const float *in = x + blockIdx.x * cols;
  float *out = y + blockIdx.x * cols;
  float m = -INFINITY;
#pragma unroll UNROLL
  for (long j = threadIdx.x; j < cols; j += BLOCK)
    m = fmaxf(m, in[j]);
  m = block_reduce(m, scratch, true);
  float sum = 0.0f;
#pragma unroll UNROLL
  for (long j = threadIdx.x; j < cols; j += BLOCK)
    sum += expf(in[j] - m);
  sum = block_reduce(sum, scratch, false);
#pragma unroll UNROLL
  for (long j = threadIdx.x; j < cols; j += BLOCK)
    out[j] = expf(in[j] - m) / sum;
}
