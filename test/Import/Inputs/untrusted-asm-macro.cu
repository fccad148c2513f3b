// Inline PTX the text screen does not see: __asm__ __volatile__ behind a
// macro. clang's IR has llvm.inline_asm, which refuses the import.
#define PTX __asm__ __volatile__
__global__ void relu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v;
  PTX("max.f32 %0, %1, 0f00000000;" : "=f"(v) : "f"(x[i]));
  y[i] = v;
}
