// A ReLU that also zeroes its input: the launch plan binds x to the
// problem's input, so the cheat checks reject the write.
__global__ void relu(float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = fmaxf(x[i], 0.0f);
    x[i] = 0.0f;
  }
}
