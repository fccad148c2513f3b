// A chip the NVPTX backend does not know is refused, with the list of those
// it knows (the backend only warned "not a recognized processor", then
// aborted in instruction selection on gpu.shuffle).
// RUN: kf-opt %s --kf-lower-to-ptx=chip=sm_999 -verify-diagnostics -o /dev/null

// expected-error @below {{kf-lower-to-ptx option: chip 'sm_999' is not a processor of LLVM's NVPTX backend; it knows sm_20, sm_21,}}
module {
  func.func @shuffle(%x: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %v = memref.load %x[%tx] : memref<32xf32>
      %s, %valid = gpu.shuffle xor %v, %c1_i32, %c32_i32 : f32
      memref.store %s, %x[%tx] : memref<32xf32>
      gpu.terminator
    }
    return
  }
}
