// An optimized ReLU: 16-byte loads and stores, a grid-stride loop. clang
// splits each float4 access into four f32 accesses at byte offsets 0-12 in
// LLVM IR (the NVPTX backend merges them again); the diagnosis judges them
// as the one coalesced 16-byte access they become, so no narrow-access
// finding. No cheat check fires.
// REQUIRES: cuda-import
// RUN: kf-evolve import %s --roles input,output -o %t.mlir
// RUN: kf-opt %t.mlir --kf-diagnose -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: kf-opt %t.mlir --kf-detect-cheats -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | count 0

// CHECK: relu-float4.cu:16:0: remark: kernel @_Z9relu_vec4PK6float4PS_l: block unknown, grid unknown, 0 bytes of shared memory, 0 barriers, 1 loops, 2 global accesses
// CHECK: relu-float4.cu:20:16: remark: coalesced global load: consecutive threads read consecutive vector<4xf32> (stride 4), as 4 adjacent scalar accesses the backend merges
// CHECK: relu-float4.cu:25:10: remark: coalesced global store: consecutive threads write consecutive vector<4xf32> (stride 4), as 4 adjacent scalar accesses the backend merges
// CHECK-NOT: narrow-access
// CHECK: relu-float4.cu:18:3: remark: [divergent-branch] the branch condition depends on the thread id
__global__ void relu_vec4(const float4 *__restrict__ x, float4 *__restrict__ y,
                          long n4) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4;
       i += (long)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = fmaxf(v.x, 0.0f);
    v.y = fmaxf(v.y, 0.0f);
    v.z = fmaxf(v.z, 0.0f);
    v.w = fmaxf(v.w, 0.0f);
    y[i] = v;
  }
}
