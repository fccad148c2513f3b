//===- MemoryAccesses.h - The memory an op reads and writes -----*- C++ -*-===//
//
// Which buffer an op's loads and stores go through, at the levels kf's
// static checks see (memref, vector, nvgpu before lowering; llvm and nvvm
// after, and in imported CUDA), and where a pointer or memref comes from.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_MEMORYACCESSES_H
#define KF_ANALYSIS_MEMORYACCESSES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace kf {

/// A memory access: the op, the pointer or memref it goes through, and for
/// stores the stored value (null for loads). A copy (memcpy, memref.copy,
/// cp.async) is a load of `copySource` and a store of what it read.
struct BufferAccess {
  mlir::Operation *op;
  mlir::Value base;
  mlir::Value stored;
  bool isStore;
  mlir::Value copySource = {};
};

/// The accesses `op` makes (none for most ops).
llvm::SmallVector<BufferAccess> accessesOf(mlir::Operation *op);

/// Follows views, casts and pointer arithmetic back to where a pointer or
/// memref comes from: a function argument, an allocation, a global's
/// address, or something else (an integer turned into a pointer, a pointer
/// loaded from memory).
mlir::Value traceBufferRoot(mlir::Value value);

} // namespace kf

#endif // KF_ANALYSIS_MEMORYACCESSES_H
