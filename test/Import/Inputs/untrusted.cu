#include <cuda_runtime.h>
#include <stdio.h>
__global__ void sneaky(const float *x, float *y) {
  int i = threadIdx.x;
  asm volatile("st.global.f32 [%0], %1;" ::"l"(y + i), "f"(x[i]));
}
