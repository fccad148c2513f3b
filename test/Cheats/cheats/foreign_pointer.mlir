// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=1 -verify-diagnostics -o /dev/null
// Problem: examples/small/relu.mlir. Reads from a hard-coded device
// address (where an earlier run's result might still be) instead of its
// input.
module {
  func.func @relu(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    // expected-error @below {{rejected [output-independent-of-inputs]}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1000, %sy = %c1, %sz = %c1) {
      %address = llvm.mlir.constant(140737488355328 : i64) : i64
      %p = llvm.inttoptr %address : i64 to !llvm.ptr
      %row = arith.index_cast %bx : index to i64
      %col = arith.index_cast %tx : index to i64
      %c1000i = llvm.mlir.constant(1000 : i64) : i64
      %r = llvm.mul %row, %c1000i : i64
      %i = llvm.add %r, %col : i64
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      // expected-error @below {{rejected [foreign-pointer]: accesses memory through a pointer that is not derived from the kernel's arguments (an integer or a pointer loaded from memory)}}
      %v = llvm.load %q : !llvm.ptr -> f32
      memref.store %v, %y[%bx, %tx] : memref<64x1000xf32>
      gpu.terminator
    }
    return
  }
}
