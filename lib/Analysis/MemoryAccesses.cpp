//===- MemoryAccesses.cpp - The memory an op reads and writes -------------===//

#include "kf/Analysis/MemoryAccesses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kf;

SmallVector<BufferAccess> kf::accessesOf(Operation *op) {
  SmallVector<BufferAccess> result;
  auto load = [&](Value base) { result.push_back({op, base, {}, false}); };
  auto store = [&](Value base, Value value) {
    result.push_back({op, base, value, true});
  };
  auto copy = [&](Value target, Value source) {
    result.push_back({op, source, {}, false});
    result.push_back({op, target, source, true, source});
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](memref::LoadOp o) { load(o.getMemRef()); })
      .Case([&](memref::StoreOp o) { store(o.getMemRef(), o.getValue()); })
      .Case([&](memref::AtomicRMWOp o) { store(o.getMemref(), o.getValue()); })
      .Case([&](memref::CopyOp o) { copy(o.getTarget(), o.getSource()); })
      .Case([&](vector::LoadOp o) { load(o.getBase()); })
      .Case([&](vector::StoreOp o) { store(o.getBase(), o.getValueToStore()); })
      .Case([&](vector::MaskedLoadOp o) { load(o.getBase()); })
      .Case([&](vector::MaskedStoreOp o) {
        store(o.getBase(), o.getValueToStore());
      })
      .Case([&](vector::TransferReadOp o) { load(o.getBase()); })
      .Case([&](vector::TransferWriteOp o) {
        if (isa<MemRefType>(o.getBase().getType()))
          store(o.getBase(), o.getVector());
      })
      .Case([&](vector::GatherOp o) { load(o.getBase()); })
      .Case(
          [&](vector::ScatterOp o) { store(o.getBase(), o.getValueToStore()); })
      .Case([&](LLVM::LoadOp o) { load(o.getAddr()); })
      .Case([&](LLVM::StoreOp o) { store(o.getAddr(), o.getValue()); })
      .Case([&](LLVM::AtomicRMWOp o) { store(o.getPtr(), o.getVal()); })
      .Case([&](LLVM::AtomicCmpXchgOp o) { store(o.getPtr(), o.getVal()); })
      .Case([&](LLVM::MemcpyOp o) { copy(o.getDst(), o.getSrc()); })
      .Case([&](LLVM::MemmoveOp o) { copy(o.getDst(), o.getSrc()); })
      .Case([&](LLVM::MemsetOp o) { store(o.getDst(), o.getVal()); })
      // Asynchronous copies (cp.async) from global to shared memory: the
      // destination receives the source's data, as with memcpy.
      .Case([&](nvgpu::DeviceAsyncCopyOp o) { copy(o.getDst(), o.getSrc()); })
      .Case([&](NVVM::CpAsyncOp o) { copy(o.getDst(), o.getSrc()); })
      .Case([&](LLVM::MaskedLoadOp o) { load(o.getData()); })
      .Case([&](LLVM::MaskedStoreOp o) { store(o.getData(), o.getValue()); })
      // Through a vector of pointers (a vectorized gather lowers to these):
      // the pointers' common root is the buffer.
      .Case([&](LLVM::masked_gather o) { load(o.getPtrs()); })
      .Case([&](LLVM::masked_scatter o) { store(o.getPtrs(), o.getValue()); })
      .Case([&](LLVM::masked_expandload o) { load(o->getOperand(0)); })
      .Case([&](LLVM::masked_compressstore o) {
        store(o->getOperand(1), o->getOperand(0));
      })
      .Default([](Operation *) {});
  return result;
}

Value kf::traceBufferRoot(Value value) {
  for (unsigned depth = 0; depth < 64; ++depth) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return value;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      value = metadata.getSource();
      continue;
    }
    if (isa<LLVM::GEPOp, LLVM::AddrSpaceCastOp, LLVM::BitcastOp,
            UnrealizedConversionCastOp, memref::CastOp,
            memref::MemorySpaceCastOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    if (auto extract = dyn_cast<LLVM::ExtractValueOp>(def)) {
      // A field of a memref descriptor built with insertvalue.
      Value container = extract.getContainer();
      bool found = false;
      while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
        if (insert.getPosition() == extract.getPosition()) {
          value = insert.getValue();
          found = true;
          break;
        }
        container = insert.getContainer();
      }
      if (!found)
        return value;
      continue;
    }
    return value;
  }
  return value;
}
