// RUN: kf-opt %s -split-input-file -kf-diagnose -verify-diagnostics

// The same analyses on kernels in llvm + nvvm form (as lowered by kf or
// imported from CUDA): addresses are followed through getelementptr, loops
// are cycles of blocks, shared memory lives in address-space-3 globals.
gpu.module @m {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<1024 x f32>
  // expected-remark @below {{kernel @k: block 128x1x1, grid 4096x1x1, 4096 bytes of shared memory, 1 barriers, 1 loops, 3 global accesses}}
  llvm.func @k(%in: !llvm.ptr, %out: !llvm.ptr) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 4096, 1, 1>} {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %n = llvm.mlir.constant(8 : i64) : i64
    %c128 = llvm.mlir.constant(128 : i64) : i64
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %bid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %tid = llvm.sext %tid32 : i32 to i64
    %bid = llvm.sext %bid32 : i32 to i64
    %base = llvm.mul %bid, %c128 : i64
    %i = llvm.add %base, %tid : i64
    %p = llvm.getelementptr %in[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global load: consecutive threads read consecutive f32 (stride 1)}}
    // expected-remark @below {{[narrow-access]}}
    %v = llvm.load %p : !llvm.ptr -> f32
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %t8 = llvm.mul %tid, %n : i64
    %sp = llvm.getelementptr %tile[%t8] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    // expected-remark @below {{strided shared store: consecutive threads write f32 8 elements apart}}
    // expected-warning @below {{[bank-conflict] 8-way shared-memory bank conflict}}
    llvm.store %v, %sp : f32, !llvm.ptr<3>
    nvvm.barrier0
    llvm.br ^loop(%zero : i64)
  ^loop(%k: i64):
    %more = llvm.icmp "slt" %k, %n : i64
    llvm.cond_br %more, ^body, ^exit
  ^body:
    %col = llvm.mul %tid, %n : i64
    %idx = llvm.add %col, %k : i64
    %q = llvm.getelementptr %in[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{strided global load: consecutive threads read f32 8 elements apart}}
    // expected-warning @below {{[uncoalesced-access] uncoalesced global load: consecutive threads are 8 elements apart, about 13% of the bytes moved are used}}
    %w = llvm.load %q : !llvm.ptr -> f32
    %next = llvm.add %k, %one : i64
    llvm.br ^loop(%next : i64)
  ^exit:
    %c100 = llvm.mlir.constant(100 : i64) : i64
    %inside = llvm.icmp "slt" %tid, %c100 : i64
    // expected-remark @below {{[divergent-branch]}}
    llvm.cond_br %inside, ^store, ^done
  ^store:
    %o = llvm.getelementptr %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global store}}
    // expected-remark @below {{[narrow-access]}}
    llvm.store %v, %o : f32, !llvm.ptr
    llvm.br ^done
  ^done:
    llvm.return
  }
}

// -----

// A thread-private array in llvm form is local memory.
gpu.module @m {
  // expected-remark @below {{kernel @spill: block unknown, grid unknown, 0 bytes of shared memory, 0 barriers, 0 loops, 0 global accesses}}
  llvm.func @spill() attributes {nvvm.kernel} {
    %n = llvm.mlir.constant(16 : i64) : i64
    // expected-warning @below {{[local-memory] allocates per-thread memory that lives in local (off-chip) memory}}
    %a = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
    llvm.return
  }
}

// -----

// Loops in llvm form: trip counts from the induction pattern, and loads
// that are the same in every iteration or for every thread.
gpu.module @m {
  // expected-remark @below {{kernel @dot: block 256x1x1, grid unknown, 0 bytes of shared memory, 0 barriers, 1 loops, 4 global accesses}}
  llvm.func @dot(%a: !llvm.ptr, %b: !llvm.ptr, %s: !llvm.ptr, %out: !llvm.ptr) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %n = llvm.mlir.constant(16 : i64) : i64
    %fzero = llvm.mlir.constant(0.0 : f32) : f32
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %tid = llvm.sext %tid32 : i32 to i64
    llvm.br ^loop(%zero, %fzero : i64, f32)
  ^loop(%k: i64, %acc: f32):
    %more = llvm.icmp "slt" %k, %n : i64
    llvm.cond_br %more, ^body, ^exit
  ^body:
    %row = llvm.mul %k, %n : i64
    %ai = llvm.add %row, %tid : i64
    %ap = llvm.getelementptr %a[%ai] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global load}}
    // expected-remark @below {{[narrow-access]}}
    %x = llvm.load %ap : !llvm.ptr -> f32
    %bp = llvm.getelementptr %b[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{broadcast global load: every thread reads the same f32}}
    // expected-warning @below {{[broadcast-reload] every thread loads the same value in each iteration of a loop of 16 trips}}
    %y = llvm.load %bp : !llvm.ptr -> f32
    // expected-remark @below {{broadcast global load}}
    // expected-warning @below {{[loop-invariant-load] global load of the same address in every iteration of a loop of 16 trips: hoist it out of the loop}}
    %scale = llvm.load %s : !llvm.ptr -> f32
    %p = llvm.fmul %x, %y : f32
    %q = llvm.fmul %p, %scale : f32
    %next = llvm.fadd %acc, %q : f32
    %k1 = llvm.add %k, %one : i64
    // expected-warning @below {{[few-loads-in-flight] each iteration of this loop of 16 trips issues 2 global load(s)}}
    llvm.br ^loop(%k1, %next : i64, f32)
  ^exit:
    %op = llvm.getelementptr %out[%tid] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global store}}
    // expected-remark @below {{[narrow-access]}}
    llvm.store %acc, %op : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// Negative cases in llvm form: a padded shared tile read across rows (33
// words apart: no conflict) and a branch on the block id (uniform).
gpu.module @m {
  llvm.mlir.global internal @padded() {addr_space = 3 : i32} : !llvm.array<1056 x f32>
  // expected-remark @below {{kernel @uniform: block 32x1x1, grid unknown, 4224 bytes of shared memory, 0 barriers, 0 loops, 0 global accesses}}
  // expected-warning @below {{[small-blocks] blocks of 32 threads}}
  llvm.func @uniform() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>} {
    %c33 = llvm.mlir.constant(33 : i64) : i64
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %tid = llvm.sext %tid32 : i32 to i64
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %tile = llvm.mlir.addressof @padded : !llvm.ptr<3>
    %row = llvm.mul %tid, %c33 : i64
    %p = llvm.getelementptr %tile[%row] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    // expected-remark @below {{strided shared load: consecutive threads read f32 33 elements apart}}
    %v = llvm.load %p : !llvm.ptr<3> -> f32
    %first = llvm.icmp "eq" %bid, %c0 : i32
    llvm.cond_br %first, ^a, ^b
  ^a:
    llvm.br ^b
  ^b:
    llvm.return
  }
}

// -----

// A float4 access as clang emits it: four f32 accesses at byte offsets 0,
// 4, 8 and 12 of one pointer, the first aligned to 16. The NVPTX backend
// merges them into one 16-byte access, and the diagnosis judges them so:
// one coalesced vector<4xf32> load, no narrow-access finding.
gpu.module @m {
  // expected-remark @below {{kernel @float4: block unknown, grid unknown, 0 bytes of shared memory, 0 barriers, 0 loops, 2 global accesses}}
  llvm.func ptx_kernelcc @float4(%in: !llvm.ptr, %out: !llvm.ptr) {
    %c4 = llvm.mlir.constant(4 : i64) : i64
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %c12 = llvm.mlir.constant(12 : i64) : i64
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %tid = llvm.zext %tid32 : i32 to i64
    %p = llvm.getelementptr %in[%tid] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32, f32, f32)>
    // expected-remark @below {{coalesced global load: consecutive threads read consecutive vector<4xf32> (stride 4), as 4 adjacent scalar accesses the backend merges}}
    %a = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> f32
    %p4 = llvm.getelementptr %p[%c4] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %b = llvm.load %p4 {alignment = 4 : i64} : !llvm.ptr -> f32
    %p8 = llvm.getelementptr %p[%c8] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %c = llvm.load %p8 {alignment = 8 : i64} : !llvm.ptr -> f32
    %p12 = llvm.getelementptr %p[%c12] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %d = llvm.load %p12 {alignment = 4 : i64} : !llvm.ptr -> f32
    %s1 = llvm.fadd %a, %b : f32
    %s2 = llvm.fadd %c, %d : f32
    %s = llvm.fadd %s1, %s2 : f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global store: consecutive threads write consecutive f32 (stride 1)}}
    // expected-remark @below {{[narrow-access]}}
    llvm.store %s, %o : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// The same four loads without the 16-byte alignment stay four strided
// accesses: the backend could not merge them.
gpu.module @m {
  // expected-remark @below {{kernel @unaligned: block unknown, grid unknown, 0 bytes of shared memory, 0 barriers, 0 loops, 3 global accesses}}
  llvm.func ptx_kernelcc @unaligned(%in: !llvm.ptr, %out: !llvm.ptr) {
    %c4 = llvm.mlir.constant(4 : i64) : i64
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %tid = llvm.zext %tid32 : i32 to i64
    %p = llvm.getelementptr %in[%tid] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32)>
    // expected-remark @below {{strided global load: consecutive threads read f32 2 elements apart}}
    // expected-warning @below {{[uncoalesced-access] uncoalesced global load: consecutive threads are 2 elements apart, about 50% of the bytes moved are used}}
    %a = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> f32
    %p4 = llvm.getelementptr %p[%c4] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    // expected-remark @below {{strided global load: consecutive threads read f32 2 elements apart}}
    // expected-warning @below {{[uncoalesced-access] uncoalesced global load: consecutive threads are 2 elements apart, about 50% of the bytes moved are used}}
    %b = llvm.load %p4 {alignment = 4 : i64} : !llvm.ptr -> f32
    %s = llvm.fadd %a, %b : f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // expected-remark @below {{coalesced global store: consecutive threads write consecutive f32 (stride 1)}}
    // expected-remark @below {{[narrow-access]}}
    llvm.store %s, %o : f32, !llvm.ptr
    llvm.return
  }
}
