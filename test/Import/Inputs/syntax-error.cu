__global__ void broken(const float *x, float *y) {
  y[threadIdx.x] = x[threadIdx.x] +;
}
