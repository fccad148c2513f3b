// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Problem: examples/small/matmul.mlir (f32). Multiplies on tensor cores in
// tf32 (10 bits of mantissa): the f32 inputs' bits go in unconverted, so
// there is no cvt.rna.tf32 to see; the mma's operand kind says it.
module {
  func.func @matmul(%a: memref<96x96xf32>, %b: memref<96x96xf32>, %c: memref<96x96xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c96, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %a0f = memref.load %a[%bx, %tx] : memref<96x96xf32>
      %a1f = memref.load %a[%tx, %bx] : memref<96x96xf32>
      %b0f = memref.load %b[%tx, %bx] : memref<96x96xf32>
      %a0 = arith.bitcast %a0f : f32 to i32
      %a1 = arith.bitcast %a1f : f32 to i32
      %b0 = arith.bitcast %b0f : f32 to i32
      // expected-error @below {{rejected [lower-precision]: multiplies tf32 operands on tensor cores}}
      %d = nvvm.mma.sync A[%a0, %a1] B[%b0] C[%zero, %zero, %zero, %zero]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>,
         shape = #nvvm.shape<m = 16, n = 8, k = 4>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      %d1 = llvm.extractvalue %d[1] : !llvm.struct<(f32, f32, f32, f32)>
      %d2 = llvm.extractvalue %d[2] : !llvm.struct<(f32, f32, f32, f32)>
      %d3 = llvm.extractvalue %d[3] : !llvm.struct<(f32, f32, f32, f32)>
      %s0 = arith.addf %d0, %d1 : f32
      %s1 = arith.addf %d2, %d3 : f32
      %s = arith.addf %s0, %s1 : f32
      memref.store %s, %c[%bx, %tx] : memref<96x96xf32>
      %t = arith.addi %tx, %c32 : index
      memref.store %s, %c[%bx, %t] : memref<96x96xf32>
      %u = arith.addi %t, %c32 : index
      memref.store %s, %c[%bx, %u] : memref<96x96xf32>
      gpu.terminator
    }
    return
  }
}
