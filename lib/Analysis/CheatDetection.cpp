//===- CheatDetection.cpp - Static checks for kernels that skip the work --===//

#include "kf/Analysis/CheatDetection.h"

#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Dialect/KF/KFOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kf;

namespace {

enum class Role { Input, Output, Scratch, Unknown };

/// A memory access: the op, the pointer or memref it goes through, and for
/// stores the stored value (null for loads). A copy (memcpy, memref.copy,
/// cp.async) stores what it reads through `copySource`.
struct Access {
  Operation *op;
  Value base;
  Value stored;
  bool isStore;
  Value copySource = {};
};

/// The accesses an op makes (none for most ops).
SmallVector<Access> accessesOf(Operation *op) {
  SmallVector<Access> result;
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
      .Default([](Operation *) {});
  return result;
}

/// Follows views, casts and pointer arithmetic back to where a pointer or
/// memref comes from: a function argument, an allocation, a global's
/// address, or something else (an integer turned into a pointer, a pointer
/// loaded from memory).
Value traceRoot(Value value) {
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

/// The number of arguments of a kernel. A gpu.func's entry block also holds
/// its workgroup and private attributions after the arguments: those are
/// block arguments without argument attributes, and kernel-local memory.
unsigned numKernelArguments(Operation *kernel) {
  return cast<FunctionOpInterface>(kernel).getNumArguments();
}

/// The kernel argument number of a root, if it is one (attributions are
/// not).
std::optional<unsigned> kernelArgument(Operation *kernel, Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || arg.getOwner() != &kernel->getRegion(0).front() ||
      arg.getArgNumber() >= numKernelArguments(kernel))
    return std::nullopt;
  return arg.getArgNumber();
}

std::string describeValue(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, OpPrintingFlags().useLocalScope());
  return text;
}

bool isFloatNarrower(Type type, unsigned bits) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() < bits;
}

class CheatDetector {
public:
  CheatDetector(ModuleOp module, const CheatCheckOptions &options)
      : module(module), options(options) {}

  SmallVector<CheatFinding> run();

private:
  /// A buffer: host values for memory kernels receive from launches, the
  /// root value itself for kernel-local memory.
  using BufferId = const void *;

  void assignRoles();
  Role roleOf(Operation *kernel, Value root, BufferId &buffer);
  void collectReads(Value value, llvm::SetVector<BufferId> &reads,
                    Operation *kernel);
  void checkCallsAndGlobals(Operation *kernel);
  void checkPrecision(Operation *kernel);
  void add(StringRef code, Operation *op, Operation *kernel,
           const llvm::Twine &message) {
    findings.push_back({code.str(), op, kernelName(kernel), message.str()});
  }
  static std::string kernelName(Operation *kernel) {
    if (!kernel)
      return "";
    if (auto symbol = dyn_cast<SymbolOpInterface>(kernel))
      return symbol.getName().str();
    return "";
  }

  /// The kernel analysis of `kernel`, built once.
  const KernelAnalysis &analysisOf(Operation *kernel) {
    std::unique_ptr<KernelAnalysis> &analysis = analyses[kernel];
    if (!analysis)
      analysis = std::make_unique<KernelAnalysis>(kernel);
    return *analysis;
  }

  ModuleOp module;
  const CheatCheckOptions &options;
  SmallVector<CheatFinding> findings;
  llvm::DenseMap<Operation *, std::unique_ptr<KernelAnalysis>> analyses;
  /// Per kernel, per argument: the host value a launch passes (null when
  /// unknown) and its role.
  llvm::DenseMap<Operation *, SmallVector<std::pair<Value, Role>>> argRoles;
  /// Host buffers that are outputs, with a printable name and element count.
  struct OutputInfo {
    std::string name;
    int64_t elements = -1;
    Operation *anchor = nullptr;
  };
  llvm::MapVector<BufferId, OutputInfo> outputs;
  llvm::DenseSet<BufferId> inputs;
};

void CheatDetector::assignRoles() {
  std::optional<unsigned> numInputs = options.numInputs;
  if (!numInputs)
    for (ProblemOp problem : module.getOps<ProblemOp>())
      if (func::FuncOp reference = problem.getReferenceFunc())
        numInputs = reference.getNumArguments();

  for (Operation *kernel : KernelAnalysis::findKernels(module)) {
    unsigned numArgs = numKernelArguments(kernel);
    auto &roles = argRoles[kernel];
    roles.assign(numArgs, {Value(), Role::Unknown});
    auto function = cast<FunctionOpInterface>(kernel);
    for (unsigned i = 0; i < numArgs; ++i)
      if (auto role = function.getArgAttrOfType<StringAttr>(i, "kf.role"))
        roles[i].second = llvm::StringSwitch<Role>(role.getValue())
                              .Case("input", Role::Input)
                              .Case("output", Role::Output)
                              .Case("scratch", Role::Scratch)
                              .Default(Role::Unknown);
  }

  // Launches: host values, and their roles from the host signature.
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto kernel =
        SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernelAttr());
    if (!kernel || !argRoles.count(kernel))
      return;
    auto &roles = argRoles[kernel];
    for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
      if (index >= roles.size())
        break;
      Value root = traceRoot(operand);
      roles[index].first = root;
      if (roles[index].second != Role::Unknown)
        continue;
      auto arg = dyn_cast<BlockArgument>(root);
      if (arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) && numInputs)
        roles[index].second =
            arg.getArgNumber() < *numInputs ? Role::Input : Role::Output;
      else if (root.getDefiningOp<memref::AllocOp>())
        roles[index].second = Role::Scratch;
    }
  });

  // Outputs: host arguments from numInputs on (whether or not a kernel
  // receives them), and kernel arguments marked kf.role = "output".
  if (numInputs)
    module.walk([&](func::FuncOp host) {
      // The candidate's host function (launches or not: one that launches
      // nothing writes no output either).
      if (host->getParentOfType<gpu::GPUModuleOp>() || host.isExternal() ||
          !host.isPublic())
        return;
      for (BlockArgument arg : host.getArguments()) {
        if (!isa<MemRefType>(arg.getType()))
          continue;
        if (arg.getArgNumber() < *numInputs) {
          inputs.insert(arg.getAsOpaquePointer());
          continue;
        }
        OutputInfo &info = outputs[arg.getAsOpaquePointer()];
        info.anchor = host;
        info.name = describeValue(arg);
        info.elements = cast<MemRefType>(arg.getType()).getNumElements();
      }
    });
  for (auto &[kernel, roles] : argRoles)
    for (auto [index, entry] : llvm::enumerate(roles)) {
      BlockArgument arg = kernel->getRegion(0).front().getArgument(index);
      BufferId id = entry.first ? entry.first.getAsOpaquePointer()
                                : arg.getAsOpaquePointer();
      if (entry.second == Role::Input) {
        inputs.insert(id);
        continue;
      }
      if (entry.second != Role::Output)
        continue;
      OutputInfo &info = outputs[id];
      // Point at the kernel that writes it rather than the host function.
      if (!info.anchor || isa<func::FuncOp>(info.anchor))
        info.anchor = kernel;
      if (info.name.empty()) {
        Value named = entry.first ? entry.first : Value(arg);
        info.name = describeValue(named);
        if (auto type = dyn_cast<MemRefType>(named.getType()))
          info.elements = type.getNumElements();
      }
    }
}

Role CheatDetector::roleOf(Operation *kernel, Value root, BufferId &buffer) {
  buffer = root.getAsOpaquePointer();
  // Every llvm.mlir.addressof of one global (shared memory after lowering)
  // is the same buffer.
  if (auto address = root.getDefiningOp<LLVM::AddressOfOp>())
    buffer = address.getGlobalNameAttr().getAsOpaquePointer();
  if (!kernel)
    return Role::Unknown;
  std::optional<unsigned> index = kernelArgument(kernel, root);
  if (!index)
    return Role::Scratch; // shared memory, allocas: kernel-local
  auto &entry = argRoles[kernel][*index];
  if (entry.first)
    buffer = entry.first.getAsOpaquePointer();
  return entry.second;
}

void CheatDetector::collectReads(Value value, llvm::SetVector<BufferId> &reads,
                                 Operation *kernel) {
  llvm::DenseSet<Value> visited;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (!current || !visited.insert(current).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(current)) {
      Block *block = arg.getOwner();
      Operation *parent = block->getParentOp();
      if (block->isEntryBlock()) {
        // Loop-carried values: the initial and the yielded values.
        if (auto loop = dyn_cast<scf::ForOp>(parent)) {
          if (arg.getArgNumber() > 0) {
            unsigned iter = arg.getArgNumber() - 1;
            worklist.push_back(loop.getInitArgs()[iter]);
            worklist.push_back(
                loop.getBody()->getTerminator()->getOperand(iter));
          }
          worklist.push_back(loop.getLowerBound());
          worklist.push_back(loop.getUpperBound());
        } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
          for (Value init : loop.getInits())
            worklist.push_back(init);
        }
        continue;
      }
      // A block argument of the CFG: every incoming value and the branch
      // condition that chose it.
      for (Block *pred : block->getPredecessors()) {
        Operation *terminator = pred->getTerminator();
        for (Value operand : terminator->getOperands())
          worklist.push_back(operand);
      }
      continue;
    }
    Operation *def = current.getDefiningOp();
    for (const Access &access : accessesOf(def))
      if (!access.isStore) {
        BufferId id;
        roleOf(kernel, traceRoot(access.base), id);
        reads.insert(id);
      }
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
    // Values chosen by structured control flow depend on what it yields.
    for (Region &region : def->getRegions())
      region.walk([&](Operation *nested) {
        if (nested->hasTrait<OpTrait::IsTerminator>())
          for (Value operand : nested->getOperands())
            worklist.push_back(operand);
      });
  }
}

void CheatDetector::checkCallsAndGlobals(Operation *kernel) {
  auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
  kernel->walk([&](Operation *op) {
    StringRef callee;
    bool indirect = false;
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      if (auto name = call.getCallee())
        callee = *name;
      else
        indirect = true;
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      callee = call.getCallee();
    } else if (isa<memref::AllocOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()) &&
          !type.getMemorySpaceAsInt())
        add("disallowed-call", op, kernel,
            "allocates global memory inside the kernel (device malloc); "
            "kernels may only use the buffers they are given, shared memory "
            "and registers");
      return;
    } else {
      return;
    }
    if (indirect) {
      add("disallowed-call", op, kernel,
          "makes an indirect call; kernels may only call math functions");
      return;
    }
    if (callee.starts_with("cudaLaunchDevice") ||
        callee.starts_with("cudaGetParameterBuffer") ||
        callee.starts_with("cudaDeviceSynchronize") ||
        callee.starts_with("cudaCGGetIntrinsicHandle")) {
      add("dynamic-parallelism", op, kernel,
          llvm::formatv("launches work from the device ('{0}'): dynamic "
                        "parallelism escapes kf's timing and checks",
                        callee));
      return;
    }
    if (callee.starts_with("__nv_") || callee.starts_with("llvm."))
      return;
    // A device function of the same module with a body is kernel code too.
    if (gpuModule)
      if (auto target = gpuModule.lookupSymbol<FunctionOpInterface>(callee);
          target && !target.isExternal())
        return;
    add("disallowed-call", op, kernel,
        llvm::formatv("calls '{0}'; kernels may only call math functions "
                      "(libdevice __nv_*) and device functions of their "
                      "module, no library or host functions",
                      callee));
  });
}

namespace {
/// Bits of the floating-point kind a tensor-core op multiplies in, or 0
/// when it is not a float kind (integer MMAs) or not known.
unsigned mmaFloatBits(NVVM::MMATypes type) {
  switch (type) {
  case NVVM::MMATypes::f64:
    return 64;
  case NVVM::MMATypes::f32:
    return 32;
  case NVVM::MMATypes::tf32:
    return 19;
  case NVVM::MMATypes::f16:
  case NVVM::MMATypes::bf16:
    return 16;
  case NVVM::MMATypes::e4m3:
  case NVVM::MMATypes::e5m2:
    return 8;
  case NVVM::MMATypes::e3m2:
  case NVVM::MMATypes::e2m3:
    return 6;
  case NVVM::MMATypes::e2m1:
    return 4;
  default:
    return 0;
  }
}

/// The kind a tensor-core op multiplies its A operand in: written on the op
/// (tf32 travels in i32 registers, so only the attribute tells), else read
/// from the operand type (f16, bf16 and f64 fragments). WMMA ops always
/// say it.
std::optional<NVVM::MMATypes> multiplicandKind(Operation *op) {
  if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
    if (std::optional<NVVM::MMATypes> written = mma.getMultiplicandAPtxType())
      return written;
    if (mma.getOperandA().empty())
      return std::nullopt;
    Type type = getElementTypeOrSelf(mma.getOperandA().front().getType());
    if (type.isF16())
      return NVVM::MMATypes::f16;
    if (type.isBF16())
      return NVVM::MMATypes::bf16;
    if (type.isF64())
      return NVVM::MMATypes::f64;
    return std::nullopt;
  }
  if (auto wmma = dyn_cast<NVVM::WMMAMmaOp>(op))
    return wmma.getEltypeA();
  return std::nullopt;
}
} // namespace

void CheatDetector::checkPrecision(Operation *kernel) {
  kernel->walk([&](Operation *op) {
    // Tensor cores multiply in their operand kind whatever the registers
    // hold: f32 bits fed to a tf32 mma lose 13 bits of mantissa with no
    // conversion op to see.
    if (std::optional<NVVM::MMATypes> kind = multiplicandKind(op)) {
      unsigned bits = mmaFloatBits(*kind);
      if (bits && bits < options.minFloatBits) {
        add("lower-precision", op, kernel,
            llvm::formatv("multiplies {0} operands on tensor cores: the "
                          "problem is computed in at least {1}-bit floating "
                          "point",
                          NVVM::stringifyMMATypes(*kind),
                          options.minFloatBits));
        return WalkResult::interrupt();
      }
    }
    if (isa<NVVM::ConvertFloatToTF32Op>(op)) {
      add("lower-precision", op, kernel,
          "converts to tf32: the problem is computed in at least " +
              llvm::Twine(options.minFloatBits) + "-bit floating point");
      return WalkResult::interrupt();
    }
    for (Type type : op->getResultTypes())
      if (isFloatNarrower(type, options.minFloatBits)) {
        std::string name;
        llvm::raw_string_ostream os(name);
        type.print(os);
        add("lower-precision", op, kernel,
            llvm::formatv("computes in {0}, narrower than the {1}-bit "
                          "floating point the problem requires",
                          name, options.minFloatBits));
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
}

SmallVector<CheatFinding> CheatDetector::run() {
  assignRoles();
  SmallVector<Operation *> kernels = KernelAnalysis::findKernels(module);

  // Inline assembly in untrusted code (imported CUDA candidates): what it
  // does escapes every analysis here. Anywhere in the module, device
  // functions included.
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    if (!gpuModule->hasAttr("kf.untrusted"))
      return;
    gpuModule.walk([&](LLVM::InlineAsmOp op) {
      auto function = op->getParentOfType<FunctionOpInterface>();
      add("inline-assembly", op, function ? function.getOperation() : nullptr,
          "uses inline assembly (llvm.inline_asm), which untrusted "
          "candidates may not: kf cannot tell what it does");
    });
  });

  // Globals that outlive a launch: anything writable outside shared memory.
  module.walk([&](Operation *op) {
    if (!op->getParentOfType<gpu::GPUModuleOp>())
      return;
    if (auto global = dyn_cast<memref::GlobalOp>(op)) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          global.getType().getMemorySpace());
      bool shared =
          (space && space.getValue() == gpu::AddressSpace::Workgroup) ||
          global.getType().getMemorySpaceAsInt() == 3;
      if (!global.getConstant() && !shared)
        add("persistent-global", op, nullptr,
            llvm::formatv("device global '{0}' keeps its contents across "
                          "launches, where a kernel can cache results",
                          global.getSymName()));
    } else if (auto global = dyn_cast<LLVM::GlobalOp>(op)) {
      if (!global.getConstant() && global.getAddrSpace() != 3)
        add("persistent-global", op, nullptr,
            llvm::formatv("device global '{0}' keeps its contents across "
                          "launches, where a kernel can cache results",
                          global.getSymName()));
    }
  });

  // Every store, with its target buffer and role.
  struct StoreFacts {
    Access access;
    Operation *kernel;
    BufferId target;
    Role role;
  };
  SmallVector<StoreFacts> stores;

  for (Operation *kernel : kernels) {
    checkCallsAndGlobals(kernel);
    checkPrecision(kernel);
    kernel->walk([&](Operation *op) {
      for (const Access &access : accessesOf(op)) {
        Value root = traceRoot(access.base);
        Operation *def = root.getDefiningOp();
        bool foreign =
            def && (isa<LLVM::IntToPtrOp, LLVM::LoadOp, LLVM::ZeroOp>(def) ||
                    (isa<LLVM::AddressOfOp>(def) && access.isStore));
        if (foreign && !isa<LLVM::AddressOfOp>(def)) {
          add("foreign-pointer", op, kernel,
              "accesses memory through a pointer that is not derived from "
              "the kernel's arguments (an integer or a pointer loaded from "
              "memory)");
          continue;
        }
        if (!access.isStore)
          continue;
        BufferId target;
        Role role = roleOf(kernel, root, target);
        if (role == Role::Input) {
          add("writes-input", op, kernel,
              llvm::formatv("writes to input {0}; inputs are read-only",
                            describeValue(root)));
          continue;
        }
        stores.push_back({access, kernel, target, role});
      }
    });
  }

  // Host code: copies into outputs (e.g. from a reshaped temporary).
  module.walk([&](func::FuncOp host) {
    host.walk([&](memref::CopyOp copy) {
      StoreFacts facts{{copy, copy.getTarget(), copy.getSource(), true},
                       nullptr,
                       traceRoot(copy.getTarget()).getAsOpaquePointer(),
                       Role::Unknown};
      stores.push_back(facts);
    });
  });

  // Which buffers hold data derived from the inputs: a fixpoint over the
  // stores (a temporary or shared buffer carries input data on).
  llvm::DenseSet<BufferId> dependent = inputs;
  llvm::DenseMap<Operation *, llvm::SetVector<BufferId>> readsOfStore;
  for (StoreFacts &facts : stores) {
    llvm::SetVector<BufferId> &reads = readsOfStore[facts.access.op];
    if (facts.kernel) {
      if (facts.access.copySource) {
        BufferId source;
        roleOf(facts.kernel, traceRoot(facts.access.copySource), source);
        reads.insert(source);
      }
      collectReads(facts.access.stored, reads, facts.kernel);
      // The address too: a value stored where an input says is data flow.
      collectReads(facts.access.base, reads, facts.kernel);
    } else {
      reads.insert(traceRoot(facts.access.stored).getAsOpaquePointer());
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (StoreFacts &facts : stores) {
      if (dependent.contains(facts.target))
        continue;
      if (llvm::any_of(readsOfStore[facts.access.op],
                       [&](BufferId id) { return dependent.contains(id); })) {
        dependent.insert(facts.target);
        changed = true;
      }
    }
  }

  // No output known: nothing was judged, which must not read as a pass
  // (an imported module without --roles, a module without host code or
  // num-inputs).
  if (outputs.empty()) {
    if (!kernels.empty())
      add("roles-unknown", kernels.front(), kernels.front(),
          "could not judge: no kernel argument is known to be an output "
          "(give kf.role argument attributes, e.g. kf-evolve import --roles, "
          "or host code with num-inputs or a kf.problem)");
    return std::move(findings);
  }

  for (auto &[id, info] : outputs) {
    bool written = llvm::any_of(
        stores, [&](const StoreFacts &facts) { return facts.target == id; });
    if (!written) {
      add("output-not-written", info.anchor, info.anchor,
          llvm::formatv("output {0} is never written", info.name));
      continue;
    }
    if (!dependent.contains(id)) {
      add("output-independent-of-inputs", info.anchor, info.anchor,
          llvm::formatv("output {0} never depends on any input: every value "
                        "stored to it is computed without reading the inputs",
                        info.name));
      continue;
    }
    // Partial writes, where the store pattern decides it: each thread of
    // the grid stores at most (vector width x loop trips) elements per
    // store op; fewer than the output's elements in total cannot cover it.
    if (info.elements <= 0)
      continue;
    int64_t coverable = 0;
    bool decidable = true;
    for (const StoreFacts &facts : stores) {
      if (facts.target != id)
        continue;
      if (!facts.kernel) {
        decidable = false; // a host copy writes whole buffers
        break;
      }
      const KernelAnalysis &analysis = analysisOf(facts.kernel);
      if (!analysis.blockSize || !analysis.gridSize) {
        decidable = false;
        break;
      }
      int64_t threads = 1;
      for (int i = 0; i < 3; ++i)
        threads *= (*analysis.blockSize)[i] * (*analysis.gridSize)[i];
      int64_t perThread = 1;
      Type stored = facts.access.stored.getType();
      if (auto vector = dyn_cast<VectorType>(stored))
        perThread = vector.getNumElements();
      if (isa<memref::CopyOp, LLVM::MemcpyOp, LLVM::MemsetOp, LLVM::MemmoveOp>(
              facts.access.op)) {
        decidable = false;
        break;
      }
      // Enclosing loops (structured or natural CFG loops) with constant trip
      // counts; while loops and unknown trip counts leave it undecided.
      for (Operation *parent = facts.access.op->getParentOp();
           parent && parent != facts.kernel; parent = parent->getParentOp())
        if (isa<scf::WhileOp, scf::ParallelOp>(parent))
          decidable = false;
      for (const LoopFacts *loop : analysis.enclosingLoops(facts.access.op)) {
        if (!loop->tripCount) {
          decidable = false;
          break;
        }
        perThread *= *loop->tripCount;
      }
      if (!decidable)
        break;
      coverable += threads * perThread;
    }
    if (decidable && coverable < info.elements)
      add("output-partly-written", info.anchor, info.anchor,
          llvm::formatv("output {0} has {1} elements but the kernels' "
                        "stores can reach at most {2} of them",
                        info.name, info.elements, coverable));
  }
  return std::move(findings);
}

} // namespace

SmallVector<CheatFinding> kf::detectCheats(ModuleOp module,
                                           const CheatCheckOptions &options) {
  return CheatDetector(module, options).run();
}

std::string kf::formatRejection(const CheatFinding &finding) {
  std::string where = finding.op ? locationString(finding.op) : "unknown";
  return llvm::formatv(
             "rejected [{0}]: {1} ({2}{3})", finding.code, finding.message,
             finding.kernel.empty() ? std::string()
                                    : "kernel @" + finding.kernel + ", ",
             where)
      .str();
}

llvm::json::Value kf::toJSON(const CheatFinding &finding) {
  return llvm::json::Object{
      {"code", finding.code},
      {"kernel", finding.kernel},
      {"location", finding.op ? locationString(finding.op) : "unknown"},
      {"message", finding.message}};
}
