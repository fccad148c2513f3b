// A PTX version the NVPTX backend does not know is refused (it only warned
// and compiled with another version).
// RUN: kf-opt %s --kf-lower-to-ptx=ptx-version=79 -verify-diagnostics -o /dev/null

// expected-error @below {{kf-lower-to-ptx option: PTX version 79 is not one LLVM's NVPTX backend emits; it knows 32, 40,}}
module {
  func.func @empty(%x: memref<256xf32>) {
    return
  }
}
