//===- MemoryEffectsUtil.h - Effect predicates shared by kf passes -*- C++
//-*-===//
//
// Small questions about an op's memory effects that the barrier and
// pipelining passes ask alike.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_TRANSFORMS_MEMORYEFFECTSUTIL_H
#define KF_LIB_TRANSFORMS_MEMORYEFFECTSUTIL_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {

/// Whether `op`, an op without regions, has no memory effects but
/// allocating or freeing (a workgroup buffer's memref.alloc, or none at all):
/// nothing another thread of the block could observe.
inline bool onlyAllocatesOrFrees(mlir::Operation *op) {
  auto effects = mlir::dyn_cast<mlir::MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  llvm::SmallVector<mlir::MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](const mlir::MemoryEffects::EffectInstance
                                        &e) {
    return mlir::isa<mlir::MemoryEffects::Allocate, mlir::MemoryEffects::Free>(
        e.getEffect());
  });
}

} // namespace kf

#endif // KF_LIB_TRANSFORMS_MEMORYEFFECTSUTIL_H
