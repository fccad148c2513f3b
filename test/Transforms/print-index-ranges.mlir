// RUN: kf-opt %s --kf-print-index-ranges -split-input-file -verify-diagnostics -o /dev/null

// Thread and block ids bounded by the kernel's sizes (nvvm.maxntid,
// gpu.known_grid_size): 64 blocks of
// 1000 threads store 64000 floats; a bounds guard on the column keeps the
// last one out.
gpu.module @kernels {
  llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 1000, 1, 1>, gpu.known_grid_size = array<i32: 64, 1, 1>} {
    %c999 = llvm.mlir.constant(999 : i32) : i32
    %c1000 = llvm.mlir.constant(1000 : i64) : i64
    %b = nvvm.read.ptx.sreg.ctaid.x : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %b64 = llvm.sext %b : i32 to i64
    %t64 = llvm.sext %t : i32 to i64
    %row = llvm.mul %b64, %c1000 : i64
    %i = llvm.add %row, %t64 : i64
    %p = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{load reaches bytes [0, 255999] of its buffer}}
    %v = llvm.load %p : !llvm.ptr -> f32
    %in = llvm.icmp "ult" %t, %c999 : i32
    llvm.cond_br %in, ^store, ^done
  ^store:
    %q = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{store reaches bytes [0, 255995] of its buffer}}
    llvm.store %v, %q : f32, !llvm.ptr
    llvm.br ^done
  ^done:
    llvm.return
  }
}

// -----

// A grid-stride loop (the CFG form): the induction variable starts at the
// thread id and grows; the loop's condition bounds it in the body. Vector
// stores reach their last element.
gpu.module @kernels {
  llvm.func @fill(%y: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
    %c128 = llvm.mlir.constant(128 : i64) : i64
    %c1000 = llvm.mlir.constant(1000 : i64) : i64
    %c4 = llvm.mlir.constant(4 : i64) : i64
    %zero = llvm.mlir.constant(dense<0.0> : vector<4xf32>) : vector<4xf32>
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %t64 = llvm.zext %t : i32 to i64
    llvm.br ^header(%t64 : i64)
  ^header(%i: i64):
    %more = llvm.icmp "slt" %i, %c1000 : i64
    llvm.cond_br %more, ^body, ^done
  ^body:
    %e = llvm.mul %i, %c4 : i64
    %q = llvm.getelementptr %y[%e] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{store reaches bytes [0, 15999] of its buffer}}
    llvm.store %zero, %q : vector<4xf32>, !llvm.ptr
    %next = llvm.add %i, %c128 : i64
    llvm.br ^header(%next : i64)
  ^done:
    llvm.return
  }
}

// -----

// Shared memory through an array-typed global; an index loaded from memory
// has no bound.
gpu.module @kernels {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<256 x f32>
  llvm.func @stage(%x: !llvm.ptr, %y: !llvm.ptr, %where: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c128 = llvm.mlir.constant(128 : i64) : i64
    %zero = llvm.mlir.constant(0.0 : f32) : f32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %t64 = llvm.sext %t : i32 to i64
    %hi = llvm.add %t64, %c128 : i64
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %s = llvm.getelementptr %tile[%c0, %hi] : (!llvm.ptr<3>, i64, i64) -> !llvm.ptr<3>, !llvm.array<256 x f32>
    // expected-remark @below {{store reaches bytes [512, 1023] of its buffer}}
    llvm.store %zero, %s : f32, !llvm.ptr<3>
    %wp = llvm.getelementptr %where[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, i64
    // expected-remark @below {{load reaches bytes [0, 1023] of its buffer}}
    %w = llvm.load %wp : !llvm.ptr -> i64
    %q = llvm.getelementptr %y[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{store reaches unknown bytes}}
    llvm.store %zero, %q : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// The structured form: an scf.if guard and an scf.for induction variable
// bound memref indices (row-major strides).
gpu.module @kernels {
  gpu.func @rows(%y: memref<16x100xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c50 = arith.constant 50 : index
    %zero = arith.constant 0.0 : f32
    %t = gpu.thread_id x
    %low = arith.cmpi slt, %t, %c8 : index
    scf.if %low {
      scf.for %j = %c0 to %c50 step %c1 {
        // expected-remark @below {{store reaches bytes [0, 2999] of its buffer}}
        memref.store %zero, %y[%t, %j] : memref<16x100xf32>
      }
    }
    gpu.return
  }
}
