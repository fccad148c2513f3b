// A candidate that brings its own host side: refused (kf runs the host
// side from the launch plan).
__global__ void relu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(x[i], 0.0f);
}

void launch(const float *x, float *y, int n) {
  relu<<<(n + 255) / 256, 256>>>(x, y, n);
}
