//===- CheatDetection.cpp - Static checks for kernels that skip the work --===//

#include "kf/Analysis/CheatDetection.h"

#include "CheatFunctionChecks.h"
#include "StoreCoverage.h"

#include "kf/Analysis/IndexRanges.h"
#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Analysis/MemoryAccesses.h"
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
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <deque>

using namespace mlir;
using namespace kf;

namespace {

enum class Role { Input, Output, Scratch, Unknown };

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

/// One activation of a function in a kernel: the kernel itself, or a device
/// function called from another frame, whose arguments are that call's
/// operands. A function called from two places is two frames, so what a
/// helper stores goes to the buffer each call passes it.
struct Frame {
  Operation *function;
  Operation *call = nullptr;
  const Frame *caller = nullptr;
  Operation *kernel;
  unsigned depth = 0;
};

/// How many frames one kernel may have: beyond it, the call graph is not
/// followed (and the kernel is refused as not judged).
constexpr unsigned kMaxFrames = 256;

/// A read that a stored value depends on: the buffer, and the bytes of it
/// when known (kernel-local buffers only; see CheatDetector::run).
struct Read {
  const void *buffer;
  std::optional<ByteInterval> bytes;
};

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
  /// The frames of `kernel`: itself and every device function it reaches.
  void buildFrames(Operation *kernel);
  void addCallees(const Frame *frame);
  /// Where a pointer comes from, followed out of the frames that received
  /// it as an argument: the root and the frame it is in.
  std::pair<Value, const Frame *> resolveRoot(Value value,
                                              const Frame *frame) const;
  Role roleOf(const Frame *frame, Value root, BufferId &buffer);
  /// Whether `root` (in `frame`) is memory of one kernel's own (shared
  /// memory, an alloca), whose byte offsets mean the same in every access.
  bool isKernelLocal(const Frame *frame, Value root) const;
  void collectReads(Value value, SmallVectorImpl<Read> &reads,
                    const Frame *frame);
  void checkHostWrites();
  void add(StringRef code, Operation *op, Operation *kernel,
           const llvm::Twine &message) {
    findings.push_back({code.str(), op, op ? locationString(op) : "unknown",
                        kernelName(kernel), message.str()});
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
  /// The index ranges of `kernel`, built once.
  IndexRanges &rangesOf(Operation *kernel) {
    std::unique_ptr<IndexRanges> &ranges = indexRanges[kernel];
    if (!ranges) {
      const KernelAnalysis &analysis = analysisOf(kernel);
      ranges = std::make_unique<IndexRanges>(kernel, analysis.blockSize,
                                             analysis.gridSize);
    }
    return *ranges;
  }

  ModuleOp module;
  const CheatCheckOptions &options;
  SmallVector<CheatFinding> findings;
  llvm::DenseMap<Operation *, std::unique_ptr<KernelAnalysis>> analyses;
  llvm::DenseMap<Operation *, std::unique_ptr<IndexRanges>> indexRanges;
  KnownBitsCache knownBits;
  std::deque<Frame> frames;
  llvm::DenseMap<Operation *, SmallVector<const Frame *>> framesOfKernel;
  llvm::DenseMap<std::pair<const Frame *, Operation *>, const Frame *>
      calleeFrames;
  /// Per kernel, per argument: the host value a launch passes (null when
  /// unknown) and its role.
  llvm::DenseMap<Operation *, SmallVector<std::pair<Value, Role>>> argRoles;
  /// Kernel arguments some launch passes a view of a host buffer (its byte
  /// offsets are not the buffer's).
  llvm::DenseSet<std::pair<Operation *, unsigned>> viewArguments;
  /// Host buffers that are outputs, with a printable name, element count
  /// and element size.
  struct OutputInfo {
    std::string name;
    int64_t elements = -1;
    int64_t elementBytes = 0;
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
      Value root = traceBufferRoot(operand);
      roles[index].first = root;
      if (root != operand)
        viewArguments.insert({kernel, unsigned(index)});
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
        auto type = cast<MemRefType>(arg.getType());
        info.elements = type.getNumElements();
        if (type.getElementType().isIntOrFloat())
          info.elementBytes = type.getElementTypeBitWidth() / 8;
      }
    });
  // In the module's order (argRoles is keyed by pointer): a finding about
  // an output points at the first kernel that writes it, every run.
  for (Operation *kernel : KernelAnalysis::findKernels(module))
    for (auto [index, entry] : llvm::enumerate(argRoles[kernel])) {
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
        if (auto type = dyn_cast<MemRefType>(named.getType())) {
          info.elements = type.getNumElements();
          if (type.getElementType().isIntOrFloat())
            info.elementBytes = type.getElementTypeBitWidth() / 8;
        }
      }
    }
}

void CheatDetector::buildFrames(Operation *kernel) {
  frames.push_back({kernel, nullptr, nullptr, kernel, 0});
  framesOfKernel[kernel].push_back(&frames.back());
  addCallees(&frames.back());
}

void CheatDetector::addCallees(const Frame *frame) {
  frame->function->walk([&](CallOpInterface call) {
    auto callee = dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
    if (!callee || callee.isExternal())
      return WalkResult::advance(); // math functions; checkCalls judges
    for (const Frame *active = frame; active; active = active->caller)
      if (active->function == callee) {
        add("recursive-call", call, frame->kernel,
            llvm::formatv("calls '{0}' recursively: kf's checks cannot "
                          "follow what it stores, so the kernel is not "
                          "judged",
                          cast<SymbolOpInterface>(*callee).getName()));
        return WalkResult::advance();
      }
    SmallVector<const Frame *> &kernelFrames = framesOfKernel[frame->kernel];
    if (kernelFrames.size() >= kMaxFrames) {
      add("recursive-call", call, frame->kernel,
          llvm::formatv("reaches more than {0} device function calls: kf's "
                        "checks do not follow them all, so the kernel is not "
                        "judged",
                        kMaxFrames));
      return WalkResult::interrupt();
    }
    frames.push_back({callee, call, frame, frame->kernel, frame->depth + 1});
    const Frame *calleeFrame = &frames.back();
    kernelFrames.push_back(calleeFrame);
    calleeFrames[{frame, call}] = calleeFrame;
    addCallees(calleeFrame);
    return WalkResult::advance();
  });
}

std::pair<Value, const Frame *>
CheatDetector::resolveRoot(Value value, const Frame *frame) const {
  Value root = traceBufferRoot(value);
  while (frame->caller) {
    auto arg = dyn_cast<BlockArgument>(root);
    if (!arg || arg.getOwner() != &frame->function->getRegion(0).front())
      break;
    auto operands = cast<CallOpInterface>(frame->call).getArgOperands();
    if (arg.getArgNumber() >= operands.size())
      break;
    root = traceBufferRoot(operands[arg.getArgNumber()]);
    frame = frame->caller;
  }
  return {root, frame};
}

Role CheatDetector::roleOf(const Frame *frame, Value root, BufferId &buffer) {
  buffer = root.getAsOpaquePointer();
  // Every llvm.mlir.addressof of one global (shared memory after lowering)
  // is the same buffer.
  if (auto address = root.getDefiningOp<LLVM::AddressOfOp>())
    buffer = address.getGlobalNameAttr().getAsOpaquePointer();
  if (!frame)
    return Role::Unknown;
  Operation *kernel = frame->kernel;
  std::optional<unsigned> index =
      frame->caller ? std::nullopt : kernelArgument(kernel, root);
  if (!index)
    return Role::Scratch; // shared memory, allocas: kernel-local
  auto &entry = argRoles[kernel][*index];
  if (entry.first)
    buffer = entry.first.getAsOpaquePointer();
  return entry.second;
}

bool CheatDetector::isKernelLocal(const Frame *frame, Value root) const {
  if (frame->caller || kernelArgument(frame->kernel, root))
    return false;
  Operation *def = root.getDefiningOp();
  if (auto address = dyn_cast_or_null<LLVM::AddressOfOp>(def)) {
    auto global = dyn_cast_or_null<LLVM::GlobalOp>(
        SymbolTable::lookupNearestSymbolFrom(def, address.getGlobalNameAttr()));
    return global && global.getAddrSpace() == 3;
  }
  // gpu.func workgroup and private attributions, allocas.
  return isa<BlockArgument>(root) ||
         isa_and_nonnull<LLVM::AllocaOp, memref::AllocaOp>(def);
}

void CheatDetector::collectReads(Value value, SmallVectorImpl<Read> &reads,
                                 const Frame *frame) {
  llvm::DenseSet<std::pair<Value, const Frame *>> visited;
  SmallVector<std::pair<Value, const Frame *>> worklist{{value, frame}};
  while (!worklist.empty()) {
    auto [current, in] = worklist.pop_back_val();
    if (!current || !visited.insert({current, in}).second)
      continue;
    // A value whose every bit is known does not depend on what it was
    // computed from (input bits shifted or masked out).
    if (isKnownConstant(current, knownBits))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(current)) {
      Block *block = arg.getOwner();
      Operation *parent = block->getParentOp();
      if (block->isEntryBlock()) {
        // A device function's argument: what the call passed.
        if (parent == in->function) {
          if (in->caller) {
            auto operands = cast<CallOpInterface>(in->call).getArgOperands();
            if (arg.getArgNumber() < operands.size())
              worklist.push_back({operands[arg.getArgNumber()], in->caller});
          }
          continue;
        }
        // Loop-carried values: the initial and the yielded values.
        if (auto loop = dyn_cast<scf::ForOp>(parent)) {
          if (arg.getArgNumber() > 0) {
            unsigned iter = arg.getArgNumber() - 1;
            worklist.push_back({loop.getInitArgs()[iter], in});
            worklist.push_back(
                {loop.getBody()->getTerminator()->getOperand(iter), in});
          }
          worklist.push_back({loop.getLowerBound(), in});
          worklist.push_back({loop.getUpperBound(), in});
        } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
          for (Value init : loop.getInits())
            worklist.push_back({init, in});
        }
        continue;
      }
      // A block argument of the CFG: every incoming value and the branch
      // condition that chose it.
      for (Block *pred : block->getPredecessors()) {
        Operation *terminator = pred->getTerminator();
        for (Value operand : terminator->getOperands())
          worklist.push_back({operand, in});
      }
      continue;
    }
    Operation *def = current.getDefiningOp();
    for (const BufferAccess &access : accessesOf(def))
      if (!access.isStore) {
        auto [root, rootFrame] = resolveRoot(access.base, in);
        BufferId id;
        roleOf(rootFrame, root, id);
        std::optional<ByteInterval> bytes;
        if (rootFrame == in && isKernelLocal(in, root))
          bytes = rangesOf(in->kernel).bytesReached(def, access.base);
        reads.push_back({id, bytes});
      }
    // A call to a device function: what it returns (its arguments are
    // followed from there).
    if (auto it = calleeFrames.find({in, def}); it != calleeFrames.end()) {
      const Frame *callee = it->second;
      callee->function->walk([&](Operation *op) {
        if (op->hasTrait<OpTrait::ReturnLike>() &&
            op->getParentOp() == callee->function)
          for (Value operand : op->getOperands())
            worklist.push_back({operand, callee});
      });
      continue;
    }
    for (Value operand : def->getOperands())
      worklist.push_back({operand, in});
    // Values chosen by structured control flow depend on what it yields.
    for (Region &region : def->getRegions())
      region.walk([&](Operation *nested) {
        if (nested->hasTrait<OpTrait::IsTerminator>())
          for (Value operand : nested->getOperands())
            worklist.push_back({operand, in});
      });
  }
}

void CheatDetector::checkHostWrites() {
  // Host code writing into an input (a copy, a fill, a store): the kernels
  // would read what the candidate put there, not the problem's data.
  module.walk([&](func::FuncOp host) {
    if (host->getParentOfType<gpu::GPUModuleOp>())
      return;
    host.walk([&](Operation *op) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &effect : instances) {
        if (!isa<MemoryEffects::Write>(effect.getEffect()) ||
            !effect.getValue())
          continue;
        Value root = traceBufferRoot(effect.getValue());
        if (inputs.contains(root.getAsOpaquePointer())) {
          add("writes-input", op, nullptr,
              llvm::formatv("host code writes to input {0}; inputs are "
                            "read-only",
                            describeValue(root)));
          return;
        }
      }
    });
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

  // Every store, with its target buffer and role, the frame it runs in and
  // the bytes of the target it reaches (when known).
  struct StoreFacts {
    BufferAccess access;
    const Frame *frame; // null for host code
    BufferId target;
    Role role;
    std::optional<ByteInterval> bytes;
  };
  SmallVector<StoreFacts> stores;

  for (Operation *kernel : kernels) {
    buildFrames(kernel);
    llvm::DenseSet<Operation *> judged;
    for (const Frame *frame : framesOfKernel[kernel]) {
      // A function's own ops are judged once per kernel, however often it
      // is called.
      if (judged.insert(frame->function).second) {
        auto report = [&](StringRef code, Operation *op,
                          const llvm::Twine &message) {
          add(code, op, kernel, message);
        };
        kf::detail::checkCalls(frame->function, report);
        kf::detail::checkPrecision(frame->function, options.minFloatBits,
                                   report);
      }
      frame->function->walk([&](Operation *op) {
        for (const BufferAccess &access : accessesOf(op)) {
          auto [root, rootFrame] = resolveRoot(access.base, frame);
          Operation *def = root.getDefiningOp();
          bool foreign =
              def && isa<LLVM::IntToPtrOp, LLVM::LoadOp, LLVM::ZeroOp>(def);
          if (foreign) {
            add("foreign-pointer", op, kernel,
                "accesses memory through a pointer that is not derived from "
                "the kernel's arguments (an integer or a pointer loaded "
                "from memory)");
            continue;
          }
          if (!access.isStore)
            continue;
          BufferId target;
          Role role = roleOf(rootFrame, root, target);
          if (role == Role::Input) {
            add("writes-input", op, kernel,
                llvm::formatv(
                    "writes to input {0}{1}; inputs are read-only",
                    describeValue(root),
                    frame->caller
                        ? llvm::formatv(" (in '{0}', called from the kernel)",
                                        cast<SymbolOpInterface>(frame->function)
                                            .getName())
                              .str()
                        : std::string()));
            continue;
          }
          // A store overwritten before anything reads it never reaches
          // anyone: what it stores does not count.
          if (kf::detail::overwrittenBeforeRead(op, access))
            continue;
          // Bytes are known for the kernel's own stores to a buffer of its
          // own or one a launch passes whole (not a view of it).
          std::optional<ByteInterval> bytes;
          if (!frame->caller && rootFrame == frame) {
            std::optional<unsigned> argument = kernelArgument(kernel, root);
            if (!argument || !viewArguments.contains({kernel, *argument}))
              bytes = rangesOf(kernel).bytesReached(op, access.base);
          }
          stores.push_back({access, frame, target, role, bytes});
        }
      });
    }
  }

  // Host code: copies into outputs (e.g. from a reshaped temporary), and
  // writes into inputs.
  module.walk([&](func::FuncOp host) {
    host.walk([&](memref::CopyOp copy) {
      StoreFacts facts{{copy, copy.getTarget(), copy.getSource(), true},
                       nullptr,
                       traceBufferRoot(copy.getTarget()).getAsOpaquePointer(),
                       Role::Unknown,
                       std::nullopt};
      stores.push_back(facts);
    });
  });
  checkHostWrites();

  // Which stores carry data derived from the inputs: a fixpoint (a
  // temporary or shared buffer carries input data on). Kernel-local
  // buffers are followed by byte ranges: a read of the half of a shared
  // buffer that only constants were stored to does not depend on the
  // inputs stored to the other half. Other buffers count as a whole.
  SmallVector<SmallVector<Read>> readsOfStore(stores.size());
  for (auto [index, facts] : llvm::enumerate(stores)) {
    SmallVector<Read> &reads = readsOfStore[index];
    if (facts.frame) {
      if (facts.access.copySource) {
        auto [root, rootFrame] =
            resolveRoot(facts.access.copySource, facts.frame);
        BufferId source;
        roleOf(rootFrame, root, source);
        reads.push_back({source, std::nullopt});
      }
      collectReads(facts.access.stored, reads, facts.frame);
      // The address too: a value stored where an input says is data flow.
      collectReads(facts.access.base, reads, facts.frame);
    } else {
      reads.push_back(
          {traceBufferRoot(facts.access.stored).getAsOpaquePointer(),
           std::nullopt});
    }
  }
  // Per buffer, the bytes that hold input-derived data (std::nullopt: all).
  llvm::DenseMap<BufferId, SmallVector<std::optional<ByteInterval>>> derived;
  for (BufferId input : inputs)
    derived[input].push_back(std::nullopt);
  auto isDerived = [&](const Read &read) {
    auto it = derived.find(read.buffer);
    if (it == derived.end())
      return false;
    return llvm::any_of(it->second, [&](const std::optional<ByteInterval> &b) {
      return !b || !read.bytes || b->overlaps(*read.bytes);
    });
  };
  SmallVector<bool> storeDerived(stores.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [index, facts] : llvm::enumerate(stores)) {
      if (storeDerived[index] || !llvm::any_of(readsOfStore[index], isDerived))
        continue;
      storeDerived[index] = true;
      bool local =
          facts.frame && facts.bytes &&
          isKernelLocal(facts.frame, traceBufferRoot(facts.access.base));
      derived[facts.target].push_back(local ? facts.bytes : std::nullopt);
      changed = true;
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
    SmallVector<unsigned> toOutput;
    for (auto [index, facts] : llvm::enumerate(stores))
      if (facts.target == id)
        toOutput.push_back(index);
    if (toOutput.empty()) {
      add("output-not-written", info.anchor, info.anchor,
          llvm::formatv("output {0} is never written", info.name));
      continue;
    }
    if (!llvm::any_of(toOutput, [&](unsigned i) { return storeDerived[i]; })) {
      add("output-independent-of-inputs", info.anchor, info.anchor,
          llvm::formatv("output {0} never depends on any input: every value "
                        "stored to it is computed without reading the inputs",
                        info.name));
      continue;
    }
    if (info.elements <= 0)
      continue;
    // Partial writes, by what the stores' addresses can reach: the guards
    // and index arithmetic bound each store's bytes; a part of the output
    // that no store's bytes cover is never written.
    if (info.elementBytes > 0) {
      SmallVector<ByteInterval> reached;
      bool known = true;
      for (unsigned index : toOutput) {
        const StoreFacts &facts = stores[index];
        if (!facts.frame) {
          reached.push_back({0, info.elements * info.elementBytes - 1});
        } else if (facts.bytes) {
          reached.push_back(*facts.bytes);
        } else {
          known = false;
          break;
        }
      }
      if (known)
        if (std::optional<ByteInterval> gap = kf::detail::firstGap(
                reached, info.elements * info.elementBytes)) {
          add("output-partly-written", info.anchor, info.anchor,
              llvm::formatv("output {0} has {1} elements but no store can "
                            "reach elements {2} to {3}",
                            info.name, info.elements,
                            gap->first / info.elementBytes,
                            gap->last / info.elementBytes));
          continue;
        }
    }
    // Partial writes, by count: fewer stores than the output has elements
    // cannot cover it.
    int64_t coverable = 0;
    bool decidable = true;
    for (unsigned index : toOutput) {
      const StoreFacts &facts = stores[index];
      // A host copy writes whole buffers; helpers run in loops of their
      // callers.
      std::optional<int64_t> reach;
      if (facts.frame && !facts.frame->caller)
        reach = kf::detail::storesAcrossTheGrid(analysisOf(facts.frame->kernel),
                                                facts.access);
      if (!reach) {
        decidable = false;
        break;
      }
      coverable += *reach;
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
  const std::string &where = finding.location;
  return llvm::formatv(
             "rejected [{0}]: {1} ({2}{3})", finding.code, finding.message,
             finding.kernel.empty() ? std::string()
                                    : "kernel @" + finding.kernel + ", ",
             where)
      .str();
}

llvm::json::Value kf::toJSON(const CheatFinding &finding) {
  return llvm::json::Object{{"code", finding.code},
                            {"kernel", finding.kernel},
                            {"location", finding.location},
                            {"message", finding.message}};
}
