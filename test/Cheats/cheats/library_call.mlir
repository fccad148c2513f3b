// RUN: kf-opt %s --kf-lower-to-ptx=serialize=false --kf-detect-cheats=num-inputs=2 -verify-diagnostics -o /dev/null
// Problem: examples/small/matmul.mlir. Hands the work to a library routine
// instead of computing it.
module {
  func.func private @library_sgemm_row(memref<96x96xf32>, memref<96x96xf32>, memref<96x96xf32>, index)
  func.func @matmul(%a: memref<96x96xf32>, %b: memref<96x96xf32>, %c: memref<96x96xf32>) {
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    // The call gets the output, but nothing in kernel code writes it.
    // expected-error @below {{rejected [output-not-written]}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c96, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // expected-error @below {{rejected [disallowed-call]: calls 'library_sgemm_row'; kernels may only call math functions (libdevice __nv_*) and device functions of their module, no library or host functions}}
      func.call @library_sgemm_row(%a, %b, %c, %bx) : (memref<96x96xf32>, memref<96x96xf32>, memref<96x96xf32>, index) -> ()
      gpu.terminator
    }
    return
  }
}
