// A gpu.module that already carries an #nvvm.target is compiled for that
// target too (nvvm-attach-target adds the option's beside it): its chip,
// PTX version and operations are checked as well.
// RUN: kf-opt %s -split-input-file --kf-lower-to-ptx -verify-diagnostics -o /dev/null

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_61">] {
    gpu.func @wmma(%a: memref<16x16xf16>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{uses wmma (gpu.subgroup_mma), which needs sm_70 or newer; the kernels are compiled for sm_61}}
      %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{the module's #nvvm.target: PTX version 6.0 (60) does not support sm_80; it needs PTX 7.0 (70) or newer}}
  gpu.module @kernels [#nvvm.target<chip = "sm_80", features = "+ptx60">] {
    gpu.func @empty() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{the module's #nvvm.target: chip 'sm_25' is not a processor of LLVM's NVPTX backend}}
  gpu.module @kernels [#nvvm.target<chip = "sm_25">] {
    gpu.func @empty() kernel {
      gpu.return
    }
  }
}
