// RUN: kf-opt %s -split-input-file --kf-detect-cheats -verify-diagnostics | FileCheck %s

// A gpu.func's workgroup and private attributions are block arguments after
// its arguments, without argument attributes of their own: reading the
// roles (kf.role) of the kernel's arguments must stop at its arguments
// (this crashed in CheatDetector::assignRoles). The kernel is honest: the
// output is the input, staged through both attributions.
// CHECK-LABEL: gpu.func @staged
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @staged(%in: memref<256xf32> {kf.role = "input"},
                     %out: memref<256xf32> {kf.role = "output"})
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        private(%slot: memref<1xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
                           known_grid_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<256xf32>
      memref.store %v, %tile[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %slot[%c0] : memref<1xf32, #gpu.address_space<private>>
      %x = memref.load %slot[%c0] : memref<1xf32, #gpu.address_space<private>>
      memref.store %x, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// An attribution is kernel-local memory, never an argument with a role: an
// output filled from a workgroup buffer nothing reads the input into is
// still found independent of the inputs.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{rejected [output-independent-of-inputs]}}
    gpu.func @from_scratch(%in: memref<256xf32> {kf.role = "input"},
                           %out: memref<256xf32> {kf.role = "output"})
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %w = memref.load %tile[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// Argument attributes other than kf.role, and a private attribution only.
// CHECK-LABEL: gpu.func @noalias
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @noalias(%in: memref<256xf32> {kf.role = "input", llvm.noalias},
                      %out: memref<256xf32> {kf.role = "output"})
        private(%slot: memref<1xf32, #gpu.address_space<private>>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<256xf32>
      memref.store %v, %out[%tx] : memref<256xf32>
      gpu.return
    }
  }
}
