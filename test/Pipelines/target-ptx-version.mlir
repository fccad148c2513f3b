// A PTX version older than the chip is refused before lowering, at the
// module (LLVM's NVPTX backend ended the process: "LLVM ERROR: PTX version
// 6.0 does not support target 'sm_90'", without a location).
// RUN: kf-opt %s --kf-lower-to-ptx=ptx-version=60 -verify-diagnostics -o /dev/null

// expected-error @below {{kf-lower-to-ptx option: PTX version 6.0 (60) does not support sm_90; it needs PTX 7.8 (78) or newer, or leave ptx-version at 0 to pick the chip's default}}
module {
  func.func @scale(%x: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%tx] : memref<256xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %x[%tx] : memref<256xf32>
      gpu.terminator
    }
    return
  }
}
