// RUN: kf-opt %s -split-input-file --kf-detect-cheats -verify-diagnostics

// A kernel whose arguments have no roles (an import without --roles, no
// host code): nothing can be judged, and that is an error rather than an
// empty list of findings.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{rejected [roles-unknown]: could not judge: no kernel argument is known to be an output}}
    gpu.func @relu(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<256xf32>
      memref.store %v, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// With the roles given, the same kernel is judged (and honest).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @relu(%in: memref<256xf32> {kf.role = "input"},
                   %out: memref<256xf32> {kf.role = "output"}) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<256xf32>
      memref.store %v, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
}
