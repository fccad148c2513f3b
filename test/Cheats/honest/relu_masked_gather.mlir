// RUN: kf-opt %s --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Honest, problem examples/small/relu.mlir on 64x1000: each thread reads
// four elements through a vector of pointers (llvm.intr.masked.gather, what
// a vectorized gather lowers to) and stores them as one vector. An earlier
// kf did not see the gather as a read and rejected such kernels (seeds of
// Level 1 problems 42, 60 and 79) as output-independent-of-inputs.
module attributes {gpu.container_module} {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c250 = arith.constant 250 : index
    gpu.launch_func @kernels::@relu blocks in (%c64, %c1, %c1) threads in (%c250, %c1, %c1) args(%x : memref<64x1000xf32>, %y : memref<64x1000xf32>)
    return
  }
  gpu.module @kernels {
    llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %c4 = llvm.mlir.constant(4 : i64) : i64
      %c1000 = llvm.mlir.constant(1000 : i64) : i64
      %lanes = llvm.mlir.constant(dense<[0, 1, 2, 3]> : vector<4xi64>) : vector<4xi64>
      %mask = llvm.mlir.constant(dense<true> : vector<4xi1>) : vector<4xi1>
      %zero = llvm.mlir.constant(dense<0.0> : vector<4xf32>) : vector<4xf32>
      %poison = llvm.mlir.poison : vector<4xi64>
      %b = nvvm.read.ptx.sreg.ctaid.x : i32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %b64 = llvm.sext %b : i32 to i64
      %t64 = llvm.sext %t : i32 to i64
      %row = llvm.mul %b64, %c1000 : i64
      %col = llvm.mul %t64, %c4 : i64
      %i = llvm.add %row, %col : i64
      %first = llvm.insertelement %i, %poison[%c0 : i32] : vector<4xi64>
      %splat = llvm.shufflevector %first, %poison [0, 0, 0, 0] : vector<4xi64>
      %indices = llvm.add %splat, %lanes : vector<4xi64>
      %pointers = llvm.getelementptr %x[%indices] : (!llvm.ptr, vector<4xi64>) -> vector<4x!llvm.ptr>, f32
      %v = llvm.intr.masked.gather %pointers, %mask, %zero {alignment = 4 : i32} : (vector<4x!llvm.ptr>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
      %r = llvm.intr.maximum(%v, %zero) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
      %q = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %r, %q : vector<4xf32>, !llvm.ptr
      llvm.return
    }
  }
}
