//===- KernelAnalysis.cpp - Structural facts about one GPU kernel ---------===//

#include "kf/Analysis/KernelAnalysis.h"

#include "kf/Analysis/SharedMemoryBanks.h"
#include "kf/Analysis/ThreadDependence.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace kf;

llvm::StringRef kf::stringifyMemorySpace(MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Local:
    return "local";
  case MemorySpace::Unknown:
    return "unknown";
  }
  llvm_unreachable("unknown memory space");
}

llvm::StringRef kf::stringifyAccessPattern(AccessPattern pattern) {
  switch (pattern) {
  case AccessPattern::Coalesced:
    return "coalesced";
  case AccessPattern::Strided:
    return "strided";
  case AccessPattern::Broadcast:
    return "broadcast";
  case AccessPattern::Unknown:
    return "unknown";
  }
  llvm_unreachable("unknown pattern");
}

std::string kf::locationString(Operation *op) {
  // Imported CUDA wraps its file:line:col in a fused location with debug
  // info; the file position is what a reader needs.
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return llvm::formatv("{0}:{1}:{2}", loc.getFilename().getValue(),
                         loc.getLine(), loc.getColumn())
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  op->getLoc().print(os);
  return text;
}

namespace {
/// Whether a wait for cp.async groups is followed, before anything reads
/// memory, by the commit of another group: the pipeline issues its next
/// stage before it computes on the one it waited for
/// (kf-pipeline-async-copies), so one stage more than the wait leaves is in
/// flight during the compute.
bool commitsBeforeReading(mlir::Operation *wait) {
  using namespace mlir;
  for (Operation *op = wait->getNextNode(); op; op = op->getNextNode()) {
    if (isa<NVVM::CpAsyncCommitGroupOp, nvgpu::DeviceAsyncCreateGroupOp>(op))
      return true;
    if (op->getNumRegions() || isa<LLVM::LoadOp, vector::LoadOp,
                                   vector::TransferReadOp, memref::LoadOp>(op))
      return false;
  }
  return false;
}

MemorySpace spaceOfAttr(Attribute space) {
  if (!space)
    return MemorySpace::Global;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return MemorySpace::Global;
    case gpu::AddressSpace::Workgroup:
      return MemorySpace::Shared;
    case gpu::AddressSpace::Private:
      return MemorySpace::Local;
    }
  }
  if (auto integer = dyn_cast<IntegerAttr>(space))
    switch (integer.getInt()) {
    case 0:
    case 1:
      return MemorySpace::Global;
    case 3:
      return MemorySpace::Shared;
    case 5:
      return MemorySpace::Local;
    }
  return MemorySpace::Unknown;
}

unsigned typeBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<unsigned>(1, type.getIntOrFloatBitWidth() / 8);
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * typeBytes(vector.getElementType());
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return array.getNumElements() * typeBytes(array.getElementType());
  if (isa<LLVM::LLVMPointerType>(type))
    return 8;
  if (auto structType = dyn_cast<LLVM::LLVMStructType>(type)) {
    // Natural layout (clang's structs of scalars, e.g. CUDA's float4):
    // each field at a multiple of its size, the whole padded to the largest.
    unsigned offset = 0, largest = 1;
    for (Type field : structType.getBody()) {
      unsigned bytes = typeBytes(field);
      if (bytes == 0)
        return 0;
      unsigned align = structType.isPacked() ? 1 : std::min(bytes, 16u);
      if (!llvm::isPowerOf2_32(align))
        align = 1;
      offset = llvm::alignTo(offset, align) + bytes;
      largest = std::max(largest, align);
    }
    return llvm::alignTo(offset, largest);
  }
  return 0;
}

/// Stride (in elements, along threadIdx.x, or .y for `dim` 1) of the start
/// of `memref`, and its memory space, following views back to their source.
struct BaseFacts {
  std::optional<int64_t> offsetStride = 0;
  MemorySpace space = MemorySpace::Unknown;
};

BaseFacts memrefBase(Value memref, ThreadDependence &threads,
                     unsigned dim = 0) {
  BaseFacts facts;
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return {std::nullopt, MemorySpace::Unknown};
  facts.space = spaceOfAttr(type.getMemorySpace());
  Operation *def = memref.getDefiningOp();
  if (!def)
    return facts; // kernel argument or workgroup attribution
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    BaseFacts source = memrefBase(subview.getSource(), threads, dim);
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!source.offsetStride ||
        failed(subview.getSourceType().getStridesAndOffset(strides, offset)))
      return {std::nullopt, facts.space};
    int64_t total = *source.offsetStride;
    for (auto [ofr, stride] : llvm::zip(subview.getMixedOffsets(), strides)) {
      if (isa<Attribute>(ofr))
        continue;
      std::optional<int64_t> s = threads.stride(cast<Value>(ofr), dim);
      if (!s || (*s != 0 && ShapedType::isDynamic(stride)))
        return {std::nullopt, facts.space};
      total += *s * (*s ? stride : 0);
    }
    facts.offsetStride = total;
    return facts;
  }
  if (auto cast = dyn_cast<memref::ReinterpretCastOp>(def)) {
    BaseFacts source = memrefBase(cast.getSource(), threads, dim);
    std::optional<int64_t> offset = 0;
    for (Value dynamicOffset : cast.getOffsets())
      offset = threads.stride(dynamicOffset, dim);
    facts.offsetStride = offset;
    (void)source;
    return facts;
  }
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
          memref::MemorySpaceCastOp>(def))
    return {memrefBase(def->getOperand(0), threads, dim).offsetStride,
            facts.space};
  if (isa<memref::AllocaOp, memref::AllocOp, memref::GetGlobalOp>(def))
    return facts;
  return {std::nullopt, facts.space};
}

/// Stride in bytes of an LLVM pointer along threadIdx.x (or .y for `dim`
/// 1), and its space.
struct PointerFacts {
  std::optional<int64_t> byteStride = 0;
  MemorySpace space = MemorySpace::Unknown;
};

PointerFacts pointerBase(Value pointer, ThreadDependence &threads,
                         unsigned dim = 0, unsigned depth = 0) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(pointer.getType());
  MemorySpace declared = type ? spaceOfAttr(IntegerAttr::get(
                                    IntegerType::get(pointer.getContext(), 32),
                                    type.getAddressSpace()))
                              : MemorySpace::Unknown;
  if (depth > 32)
    return {std::nullopt, declared};
  Operation *def = pointer.getDefiningOp();
  if (!def) // a kernel argument: a global buffer
    return {0, type && type.getAddressSpace() == 0 ? MemorySpace::Global
                                                   : declared};
  if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
    PointerFacts base = pointerBase(gep.getBase(), threads, dim, depth + 1);
    if (!base.byteStride)
      return {std::nullopt, base.space};
    int64_t total = *base.byteStride;
    Type current = gep.getElemType();
    bool first = true;
    for (auto index : gep.getIndices()) {
      Type indexed = current;
      if (!first) {
        if (auto array = dyn_cast<LLVM::LLVMArrayType>(current)) {
          indexed = array.getElementType();
        } else if (auto structType = dyn_cast<LLVM::LLVMStructType>(current)) {
          // A field: a constant index, the same in every thread.
          auto field = llvm::dyn_cast_if_present<IntegerAttr>(index);
          if (!field || field.getInt() < 0 ||
              field.getInt() >= (int64_t)structType.getBody().size())
            return {std::nullopt, base.space};
          current = structType.getBody()[field.getInt()];
          continue;
        } else {
          return {std::nullopt, base.space};
        }
        current = indexed;
      }
      first = false;
      unsigned bytes = typeBytes(indexed);
      if (auto value = llvm::dyn_cast_if_present<Value>(index)) {
        std::optional<int64_t> s = threads.stride(value, dim);
        if (!s || (*s != 0 && bytes == 0))
          return {std::nullopt, base.space};
        total += *s * bytes;
      }
    }
    return {total, type && type.getAddressSpace() ? declared : base.space};
  }
  if (isa<LLVM::AddrSpaceCastOp, LLVM::BitcastOp>(def)) {
    PointerFacts source =
        pointerBase(def->getOperand(0), threads, dim, depth + 1);
    if (type && type.getAddressSpace() != 0)
      source.space = declared;
    return source;
  }
  if (auto address = dyn_cast<LLVM::AddressOfOp>(def)) {
    auto global = dyn_cast_or_null<LLVM::GlobalOp>(
        SymbolTable::lookupNearestSymbolFrom(def, address.getGlobalNameAttr()));
    MemorySpace space = global ? spaceOfAttr(IntegerAttr::get(
                                     IntegerType::get(def->getContext(), 32),
                                     global.getAddrSpace()))
                               : declared;
    return {0, space};
  }
  if (isa<LLVM::AllocaOp>(def))
    return {0, MemorySpace::Local};
  return {std::nullopt, declared};
}

void classify(MemoryAccess &access) {
  if (!access.elementStride) {
    access.pattern = AccessPattern::Unknown;
    return;
  }
  int64_t stride = std::abs(*access.elementStride);
  int64_t width = access.vectorWidth, bytes = access.elementBytes;
  if (stride == 0) {
    access.pattern = AccessPattern::Broadcast;
    access.efficiency = 1;
  } else if (stride == width) {
    access.pattern = AccessPattern::Coalesced;
    access.efficiency = 1;
  } else {
    access.pattern = AccessPattern::Strided;
    // Each thread's bytes land in their own 32-byte sector once the stride
    // reaches a sector; below that, neighbours share sectors.
    access.efficiency = stride * bytes >= 32
                            ? std::min(1.0, double(width * bytes) / 32.0)
                            : std::min(1.0, double(width) / double(stride));
  }
}

} // namespace

SmallVector<Operation *> KernelAnalysis::findKernels(Operation *root) {
  SmallVector<Operation *> kernels;
  root->walk([&](Operation *op) {
    // Declarations (no body) are not kernels kf can analyze.
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
      if (func.isKernel() && !func.isExternal())
        kernels.push_back(op);
    } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      if (func.isExternal())
        return;
      if (op->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
          func.getCConv() == LLVM::CConv::PTX_Kernel)
        kernels.push_back(op);
    }
  });
  return kernels;
}

KernelAnalysis::KernelAnalysis(Operation *kernel) : kernel(kernel) {
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel)) {
    name = func.getName().str();
    if (DenseI32ArrayAttr block = func.getKnownBlockSizeAttr())
      blockSize = std::array<int64_t, 3>{block[0], block[1], block[2]};
    if (DenseI32ArrayAttr grid = func.getKnownGridSizeAttr())
      gridSize = std::array<int64_t, 3>{grid[0], grid[1], grid[2]};
    for (BlockArgument attribution : func.getWorkgroupAttributions())
      if (auto type = dyn_cast<MemRefType>(attribution.getType());
          type && type.hasStaticShape())
        sharedBytes += type.getNumElements() * typeBytes(type.getElementType());
    for (BlockArgument attribution : func.getPrivateAttributions())
      if (auto type = dyn_cast<MemRefType>(attribution.getType());
          type && type.hasStaticShape())
        localBytes += type.getNumElements() * typeBytes(type.getElementType());
  } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(kernel)) {
    llvmForm = true;
    name = func.getName().str();
    auto dims3 = [](DenseI32ArrayAttr attr) {
      std::array<int64_t, 3> dims = {1, 1, 1};
      for (auto [i, v] : llvm::enumerate(attr.asArrayRef()))
        if (i < 3)
          dims[i] = v;
      return dims;
    };
    if (auto grid =
            kernel->getAttrOfType<DenseI32ArrayAttr>("gpu.known_grid_size"))
      gridSize = dims3(grid);
    for (StringRef attrName : {"nvvm.reqntid", "nvvm.maxntid"})
      if (auto attr = kernel->getAttrOfType<DenseI32ArrayAttr>(attrName)) {
        std::array<int64_t, 3> dims = {1, 1, 1};
        for (auto [i, v] : llvm::enumerate(attr.asArrayRef()))
          if (i < 3)
            dims[i] = v;
        blockSize = dims;
        break;
      }
    // Shared memory: globals in address space 3 the kernel refers to.
    llvm::DenseSet<Operation *> counted;
    kernel->walk([&](LLVM::AddressOfOp address) {
      auto global =
          dyn_cast_or_null<LLVM::GlobalOp>(SymbolTable::lookupNearestSymbolFrom(
              address, address.getGlobalNameAttr()));
      if (global && global.getAddrSpace() == 3 && counted.insert(global).second)
        sharedBytes += typeBytes(global.getGlobalType());
    });
  }
  analyzeControl();
  analyzeAccesses();
}

void KernelAnalysis::analyzeControl() {
  ThreadDependence threads;
  kernel->walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op))
      ++barriers;
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (threads.isThreadDependent(branch.getCondition()))
        divergentBranches.push_back(op);
    } else if (auto branch = dyn_cast<cf::CondBranchOp>(op)) {
      if (threads.isThreadDependent(branch.getCondition()))
        divergentBranches.push_back(op);
    } else if (auto branch = dyn_cast<LLVM::CondBrOp>(op)) {
      if (threads.isThreadDependent(branch.getCondition()))
        divergentBranches.push_back(op);
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      LoopFacts facts;
      facts.op = op;
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                             ub = getConstantIntValue(loop.getUpperBound()),
                             step = getConstantIntValue(loop.getStep());
      if (lb && ub && step && *step > 0)
        facts.tripCount = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      facts.threadDependentBounds =
          threads.isThreadDependent(loop.getLowerBound()) ||
          threads.isThreadDependent(loop.getUpperBound());
      loops.push_back(facts);
    }
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      localAllocations.push_back(op);
      if (alloca.getType().hasStaticShape())
        localBytes += alloca.getType().getNumElements() *
                      typeBytes(alloca.getType().getElementType());
    } else if (auto alloca = dyn_cast<LLVM::AllocaOp>(op)) {
      localAllocations.push_back(op);
      localBytes += typeBytes(alloca.getElemType()) *
                    getConstantIntValue(alloca.getArraySize()).value_or(1);
    }
  });
  // A barrier under a divergent branch is reached by only some threads.
  kernel->walk([&](gpu::BarrierOp barrier) {
    for (Operation *parent = barrier->getParentOp(); parent != kernel;
         parent = parent->getParentOp())
      if (llvm::is_contained(divergentBranches, parent)) {
        divergentBarriers.push_back(barrier);
        break;
      }
  });
  // Loops of llvm + nvvm kernels are natural loops of the CFG: a back edge
  // to a header that dominates its source, and the blocks that reach the
  // back edge without passing the header.
  if (llvmForm) {
    DominanceInfo dominance(kernel);
    kernel->walk([&](Operation *op) {
      if (!op->hasTrait<OpTrait::IsTerminator>())
        return;
      for (Block *header : op->getSuccessors()) {
        if (!dominance.dominates(header, op->getBlock()))
          continue;
        LoopFacts facts;
        facts.op = op;
        facts.tripCount = cfgTripCount(header, op);
        loops.push_back(facts);
        llvm::SmallPtrSet<Block *, 16> body = {header};
        SmallVector<Block *> worklist = {op->getBlock()};
        while (!worklist.empty()) {
          Block *block = worklist.pop_back_val();
          if (!body.insert(block).second)
            continue;
          for (Block *predecessor : block->getPredecessors())
            worklist.push_back(predecessor);
        }
        loopBodies.push_back({op, header, std::move(body)});
      }
    });
  }
}

SmallVector<const LoopFacts *>
KernelAnalysis::enclosingLoops(Operation *op) const {
  SmallVector<const LoopFacts *> result;
  auto factsOf = [&](Operation *loop) -> const LoopFacts * {
    for (const LoopFacts &facts : loops)
      if (facts.op == loop)
        return &facts;
    return nullptr;
  };
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp())
    if (isa<scf::ForOp>(parent))
      if (const LoopFacts *facts = factsOf(parent))
        result.push_back(facts);
  SmallVector<const CFGLoop *> cfgLoops;
  for (const CFGLoop &loop : loopBodies)
    if (loop.blocks.contains(op->getBlock()))
      cfgLoops.push_back(&loop);
  llvm::sort(cfgLoops, [](const CFGLoop *a, const CFGLoop *b) {
    return a->blocks.size() < b->blocks.size();
  });
  for (const CFGLoop *loop : cfgLoops)
    if (const LoopFacts *facts = factsOf(loop->latch))
      result.push_back(facts);
  return result;
}

std::optional<int64_t> KernelAnalysis::cfgTripCount(Block *header,
                                                    Operation *latch) {
  // The common shape: header(%i) with cond_br on icmp slt/ult %i, C; %i
  // entering as a constant and carried as %i + step.
  auto branch = dyn_cast<LLVM::CondBrOp>(header->getTerminator());
  if (!branch)
    return std::nullopt;
  auto compare = branch.getCondition().getDefiningOp<LLVM::ICmpOp>();
  if (!compare || (compare.getPredicate() != LLVM::ICmpPredicate::slt &&
                   compare.getPredicate() != LLVM::ICmpPredicate::ult))
    return std::nullopt;
  auto iv = dyn_cast<BlockArgument>(compare.getLhs());
  std::optional<int64_t> bound = getConstantIntValue(compare.getRhs());
  if (!iv || iv.getOwner() != header || !bound)
    return std::nullopt;
  std::optional<int64_t> init, step;
  for (Block *predecessor : header->getPredecessors()) {
    auto br = dyn_cast<BranchOpInterface>(predecessor->getTerminator());
    if (!br)
      return std::nullopt;
    for (unsigned s = 0; s < br->getNumSuccessors(); ++s) {
      if (br->getSuccessor(s) != header)
        continue;
      Value incoming = br.getSuccessorOperands(s)[iv.getArgNumber()];
      if (!incoming)
        return std::nullopt;
      if (br.getOperation() == latch) {
        auto add = incoming.getDefiningOp<LLVM::AddOp>();
        if (!add || add.getLhs() != iv)
          return std::nullopt;
        step = getConstantIntValue(add.getRhs());
      } else {
        init = getConstantIntValue(incoming);
      }
    }
  }
  if (!init || !step || *step <= 0)
    return std::nullopt;
  return *bound > *init ? (*bound - *init + *step - 1) / *step : 0;
}

void KernelAnalysis::analyzeAccesses() {
  ThreadDependence threads;
  auto enclosingLoop = [&](Operation *op) -> Operation * {
    if (auto loop = op->getParentOfType<scf::ForOp>())
      return loop;
    // The innermost (smallest) natural loop holding the op's block.
    const CFGLoop *innermost = nullptr;
    for (const CFGLoop &loop : loopBodies)
      if (loop.blocks.contains(op->getBlock()) &&
          (!innermost || loop.blocks.size() < innermost->blocks.size()))
        innermost = &loop;
    return innermost ? innermost->latch : nullptr;
  };
  // Whether `address` is the same in every iteration of `loop`: it does not
  // depend on the loop's induction variable (scf) or on a value defined in
  // its body (CFG).
  auto invariantIn = [&](Operation *loop, Value address) {
    if (auto forOp = dyn_cast_or_null<scf::ForOp>(loop))
      return !threads.dependsOn(address, forOp.getInductionVar());
    for (const CFGLoop &cfgLoop : loopBodies) {
      if (cfgLoop.latch != loop)
        continue;
      SmallVector<Value> worklist = {address};
      llvm::DenseSet<Value> seen;
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        if (!seen.insert(value).second)
          continue;
        // Variant: a block argument of the loop (an induction or carried
        // value) or something read from memory inside it; pure operations
        // of invariant operands are invariant wherever they sit.
        if (auto arg = dyn_cast<BlockArgument>(value)) {
          if (cfgLoop.blocks.contains(arg.getOwner()))
            return false;
          continue;
        }
        Operation *def = value.getDefiningOp();
        if (cfgLoop.blocks.contains(def->getBlock()) && !isPure(def))
          return false;
        for (Value operand : def->getOperands())
          worklist.push_back(operand);
      }
      return true;
    }
    return false;
  };
  auto addMemrefAccess = [&](Operation *op, Value memref, ValueRange indices,
                             Type accessType, bool isStore) {
    MemoryAccess access;
    access.op = op;
    access.isStore = isStore;
    auto type = cast<MemRefType>(memref.getType());
    access.elementBytes = typeBytes(type.getElementType());
    llvm::raw_string_ostream(access.typeName) << accessType;
    if (auto vector = dyn_cast<VectorType>(accessType))
      access.vectorWidth = vector.getShape().back();
    access.space = memrefBase(memref, threads).space;
    // Elements between consecutive threads along `dim`.
    auto elementStrideAlong = [&](unsigned dim) -> std::optional<int64_t> {
      BaseFacts base = memrefBase(memref, threads, dim);
      SmallVector<int64_t> strides;
      int64_t offset;
      if (!base.offsetStride ||
          failed(type.getStridesAndOffset(strides, offset)))
        return std::nullopt;
      int64_t total = *base.offsetStride;
      for (auto [index, stride] : llvm::zip(indices, strides)) {
        std::optional<int64_t> s = threads.stride(index, dim);
        if (!s || (*s != 0 && ShapedType::isDynamic(stride)))
          return std::nullopt;
        total += *s ? *s * stride : 0;
      }
      return total;
    };
    access.elementStride = elementStrideAlong(0);
    if (access.space == MemorySpace::Shared)
      access.elementStrideY = elementStrideAlong(1);
    access.loop = enclosingLoop(op);
    if (access.loop)
      access.loopInvariantAddress =
          llvm::all_of(
              indices,
              [&](Value index) { return invariantIn(access.loop, index); }) &&
          invariantIn(access.loop, memref);
    classify(access);
    accesses.push_back(access);
  };
  auto addPointerAccess = [&](Operation *op, Value pointer, Type valueType,
                              bool isStore) {
    MemoryAccess access;
    access.op = op;
    access.isStore = isStore;
    Type element = valueType;
    llvm::raw_string_ostream(access.typeName) << valueType;
    if (auto vector = dyn_cast<VectorType>(valueType)) {
      access.vectorWidth = vector.getNumElements();
      element = vector.getElementType();
    }
    access.elementBytes = typeBytes(element);
    PointerFacts base = pointerBase(pointer, threads);
    access.space = base.space;
    if (base.byteStride && access.elementBytes &&
        *base.byteStride % access.elementBytes == 0)
      access.elementStride = *base.byteStride / access.elementBytes;
    if (access.space == MemorySpace::Shared && access.elementBytes)
      if (PointerFacts alongY = pointerBase(pointer, threads, 1);
          alongY.byteStride && *alongY.byteStride % access.elementBytes == 0)
        access.elementStrideY = *alongY.byteStride / access.elementBytes;
    access.loop = enclosingLoop(op);
    if (access.loop)
      access.loopInvariantAddress = invariantIn(access.loop, pointer);
    classify(access);
    accesses.push_back(access);
  };
  kernel->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      addMemrefAccess(op, load.getMemRef(), load.getIndices(), load.getType(),
                      false);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      addMemrefAccess(op, store.getMemRef(), store.getIndices(),
                      store.getValueToStore().getType(), true);
    else if (auto load = dyn_cast<vector::LoadOp>(op))
      addMemrefAccess(op, load.getBase(), load.getIndices(),
                      load.getVectorType(), false);
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      addMemrefAccess(op, store.getBase(), store.getIndices(),
                      store.getVectorType(), true);
    else if (auto read = dyn_cast<vector::TransferReadOp>(op);
             read && isa<MemRefType>(read.getBase().getType()))
      addMemrefAccess(op, read.getBase(), read.getIndices(),
                      read.getVectorType(), false);
    else if (auto write = dyn_cast<vector::TransferWriteOp>(op);
             write && isa<MemRefType>(write.getBase().getType()))
      addMemrefAccess(op, write.getBase(), write.getIndices(),
                      write.getVectorType(), true);
    else if (auto load = dyn_cast<LLVM::LoadOp>(op))
      addPointerAccess(op, load.getAddr(), load.getType(), false);
    else if (auto store = dyn_cast<LLVM::StoreOp>(op))
      addPointerAccess(op, store.getAddr(), store.getValue().getType(), true);
  });
  // Fused multiply-adds per thread in each loop body, and the async-copy
  // pipeline.
  kernel->walk([&](Operation *op) {
    if (isa<NVVM::CpAsyncOp, nvgpu::DeviceAsyncCopyOp>(op))
      ++asyncCopies;
    std::optional<int64_t> inFlight;
    if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op))
      inFlight = wait.getN();
    else if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op))
      inFlight = wait.getNumGroups().value_or(0);
    if (inFlight && commitsBeforeReading(op))
      ++*inFlight;
    if (inFlight)
      asyncPipelineDepth = std::max<unsigned>(asyncPipelineDepth.value_or(1),
                                              unsigned(*inFlight) + 1);
    if (!isa<LLVM::FMulAddOp, LLVM::FMAOp, vector::FMAOp, math::FmaOp>(op))
      return;
    Operation *loop = enclosingLoop(op);
    if (!loop)
      return;
    int64_t lanes = 1;
    if (auto vector = dyn_cast<VectorType>(op->getResult(0).getType()))
      lanes = vector.getNumElements();
    for (LoopFacts &facts : loops)
      if (facts.op == loop)
        facts.fmaPerThread += lanes;
  });
  mergeAdjacentScalarAccesses();
  // Shared memory: the wavefronts a warp's access takes, with the lanes
  // laid out over the block's x and y.
  int64_t blockDimX = blockSize ? (*blockSize)[0] : 0;
  for (MemoryAccess &access : accesses) {
    if (access.space != MemorySpace::Shared || !access.elementStride)
      continue;
    std::optional<int64_t> strideY = access.elementStrideY;
    if (blockDimX == 0 || blockDimX >= 32)
      strideY = 0; // one thread row per warp
    if (!strideY)
      continue;
    int64_t bytes = access.elementBytes;
    access.wavefronts =
        sharedWavefronts(*access.elementStride * bytes, *strideY * bytes,
                         blockDimX, bytes * access.vectorWidth);
    if (access.wavefronts)
      access.bankConflictWays =
          (access.wavefronts->wavefronts + access.wavefronts->passes - 1) /
          access.wavefronts->passes;
  }
  for (LoopFacts &loop : loops) {
    bool modelled = true;
    int64_t wavefronts = 0;
    for (const MemoryAccess &access : accesses) {
      if (access.loop != loop.op || access.isStore)
        continue;
      if (access.space == MemorySpace::Global)
        ++loop.globalLoads;
      if (access.space != MemorySpace::Shared)
        continue;
      if (access.wavefronts)
        wavefronts += access.wavefronts->wavefronts;
      else
        modelled = false;
    }
    if (modelled && wavefronts > 0)
      loop.sharedLoadWavefronts = wavefronts;
  }
}

/// A pointer as a base and a constant byte offset (through GEPs whose
/// indices are all constants).
static std::pair<Value, int64_t> constantOffsetBase(Value pointer) {
  int64_t offset = 0;
  while (auto gep = pointer.getDefiningOp<LLVM::GEPOp>()) {
    Type current = gep.getElemType();
    int64_t gepOffset = 0;
    bool first = true, constant = true;
    for (auto index : gep.getIndices()) {
      std::optional<int64_t> value;
      if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index))
        value = attr.getInt();
      else if (auto v = llvm::dyn_cast_if_present<Value>(index)) {
        APInt c;
        if (matchPattern(v, m_ConstantInt(&c)))
          value = c.getSExtValue();
      }
      if (!value) {
        constant = false;
        break;
      }
      if (first) {
        gepOffset += *value * typeBytes(current);
        first = false;
        continue;
      }
      if (auto array = dyn_cast<LLVM::LLVMArrayType>(current)) {
        current = array.getElementType();
        gepOffset += *value * typeBytes(current);
      } else {
        // Struct fields: their offsets need the layout; stop here.
        constant = false;
        break;
      }
    }
    if (!constant)
      break;
    offset += gepOffset;
    pointer = gep.getBase();
  }
  return {pointer, offset};
}

void KernelAnalysis::mergeAdjacentScalarAccesses() {
  // clang splits a float4 (or float2) access into scalar accesses at byte
  // offsets 0, 4, 8, 12 of one pointer; the NVPTX backend's load/store
  // vectorizer merges them back into one 16-byte access when the first is
  // aligned to 16. Judge them as that one access.
  struct Member {
    size_t index;
    int64_t offset;
  };
  std::map<std::tuple<Block *, bool, const void *, unsigned>,
           std::vector<Member>>
      groups;
  for (auto [index, access] : llvm::enumerate(accesses)) {
    if (access.vectorWidth != 1 || !access.elementStride ||
        !isa<LLVM::LoadOp, LLVM::StoreOp>(access.op))
      continue;
    Value pointer = isa<LLVM::LoadOp>(access.op)
                        ? cast<LLVM::LoadOp>(access.op).getAddr()
                        : cast<LLVM::StoreOp>(access.op).getAddr();
    auto [base, offset] = constantOffsetBase(pointer);
    groups[{access.op->getBlock(), access.isStore, base.getAsOpaquePointer(),
            access.elementBytes}]
        .push_back({index, offset});
  }
  llvm::DenseSet<size_t> merged;
  for (auto &[key, members] : groups) {
    unsigned bytes = std::get<3>(key);
    llvm::sort(members, [](const Member &a, const Member &b) {
      return a.offset < b.offset;
    });
    for (size_t start = 0; start < members.size();) {
      MemoryAccess &first = accesses[members[start].index];
      // The run the hardware would merge: as many elements as one thread's
      // stride covers, consecutive, the first aligned to the run.
      int64_t width = *first.elementStride;
      uint64_t alignment = 0;
      if (auto load = dyn_cast<LLVM::LoadOp>(first.op))
        alignment = load.getAlignment().value_or(0);
      else
        alignment = cast<LLVM::StoreOp>(first.op).getAlignment().value_or(0);
      bool ok = (width == 2 || width == 4) && width * bytes <= 16 &&
                alignment >= uint64_t(width * bytes) &&
                start + width <= members.size();
      for (int64_t j = 1; ok && j < width; ++j) {
        const Member &member = members[start + j];
        ok = member.offset == members[start].offset + j * (int64_t)bytes &&
             accesses[member.index].elementStride == first.elementStride;
      }
      if (!ok) {
        ++start;
        continue;
      }
      first.vectorWidth = width;
      first.mergedScalars = width;
      first.typeName =
          llvm::formatv("vector<{0}x{1}>", width, first.typeName).str();
      classify(first);
      for (int64_t j = 1; j < width; ++j)
        merged.insert(members[start + j].index);
      start += width;
    }
  }
  if (merged.empty())
    return;
  SmallVector<MemoryAccess> kept;
  for (auto [index, access] : llvm::enumerate(accesses))
    if (!merged.contains(index))
      kept.push_back(access);
  accesses = std::move(kept);
}

std::optional<KernelAnalysis::Occupancy>
KernelAnalysis::occupancy(std::optional<int> registers) const {
  if (!blockSize)
    return std::nullopt;
  int64_t threads = (*blockSize)[0] * (*blockSize)[1] * (*blockSize)[2];
  if (threads <= 0)
    return std::nullopt;
  // Hopper (sm_90) per-SM limits; the CUDA occupancy calculator's model.
  Occupancy result;
  int64_t warps = (threads + 31) / 32;
  result.blocksPerSM = std::min<int64_t>(32, 64 / warps);
  result.limitedBy = result.blocksPerSM == 32 ? "blocks per SM" : "threads";
  if (sharedBytes > 0) {
    int64_t bySharedMemory = (228 * 1024) / (sharedBytes + 1024);
    if (bySharedMemory < result.blocksPerSM) {
      result.blocksPerSM = bySharedMemory;
      result.limitedBy = "shared memory";
    }
  }
  if (registers && *registers > 0) {
    int64_t perWarp = ((*registers * 32 + 255) / 256) * 256;
    int64_t byRegisters = 65536 / (perWarp * warps);
    if (byRegisters < result.blocksPerSM) {
      result.blocksPerSM = byRegisters;
      result.limitedBy = "registers";
    }
  }
  result.fraction = double(result.blocksPerSM * warps) / 64.0;
  return result;
}
