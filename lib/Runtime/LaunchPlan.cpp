//===- LaunchPlan.cpp - The host side of a lowered module -----------------===//

#include "kf/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kf;

unsigned LaunchPlan::numLaunches() const {
  return llvm::count_if(steps, [](const PlanStep &s) {
    return s.kind == PlanStep::Kind::Launch;
  });
}

namespace {

/// Where a host SSA value lives during interpretation.
struct HostValue {
  /// Unpassable: a constant the runtime cannot pass to a kernel (an f16 or
  /// i128 scalar, a vector or tensor). Harmless until a launch passes it:
  /// it may only initialize something the runtime never executes, or be
  /// sunk into a kernel by outlining.
  enum class Kind { View, Integer, Float, Unpassable };
  Kind kind;
  unsigned buffer = 0;
  int64_t byteOffset = 0;
  int64_t integer = 0;
  double floating = 0;
  unsigned bitWidth = 64;
};

/// Byte size of a statically shaped memref with an identity (row-major,
/// contiguous) layout; failure otherwise.
FailureOr<int64_t> contiguousBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return failure();
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return failure();
  int64_t elementBytes =
      std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return type.getNumElements() * elementBytes;
}

class PlanBuilder {
public:
  PlanBuilder(ModuleOp module, func::FuncOp function, bool requireBinaries)
      : module(module), function(function), requireBinaries(requireBinaries) {}

  FailureOr<LaunchPlan> build();

private:
  LogicalResult visit(Operation *op);
  LogicalResult visitLaunch(gpu::LaunchFuncOp launch);
  FailureOr<int64_t> constantIndex(Value value, Operation *user,
                                   StringRef what);
  LogicalResult addModule(gpu::LaunchFuncOp launch);

  ModuleOp module;
  func::FuncOp function;
  bool requireBinaries;
  LaunchPlan plan;
  DenseMap<Value, HostValue> values;
};

} // namespace

FailureOr<LaunchPlan> PlanBuilder::build() {
  plan.function = function.getSymName().str();
  plan.numArguments = function.getNumArguments();
  if (function.getNumResults() != 0) {
    // buffer-results-to-out-params turns memref results into arguments; it
    // leaves scalars and tensors, so advising it for those would not help.
    if (llvm::all_of(function.getResultTypes(),
                     [](Type type) { return isa<MemRefType>(type); }))
      return function.emitError()
             << "the host function still returns " << function.getNumResults()
             << " values: outputs must be out-parameters (run "
                "buffer-results-to-out-params, as kf-lower-to-ptx does)";
    Type first = *llvm::find_if(function.getResultTypes(), [](Type type) {
      return !isa<MemRefType>(type);
    });
    InFlightDiagnostic diag =
        function.emitError()
        << "the host function returns a value of type " << first
        << ", which kf's runtime cannot return: host functions return "
           "nothing, and every output is a buffer among the arguments; "
           "compute the value in a kernel and store it into a memref argument";
    if (auto tensor = dyn_cast<RankedTensorType>(first))
      diag << " of type "
           << MemRefType::get(tensor.getShape(), tensor.getElementType());
    else if (first.isIntOrIndexOrFloat())
      diag << " of type " << MemRefType::get({1}, first);
    return diag;
  }
  if (!function.getBody().hasOneBlock())
    return function.emitError()
           << "the host function has control flow; kf executes straight-line "
              "host code only (map all loops to the GPU)";
  for (BlockArgument arg : function.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    FailureOr<int64_t> bytes =
        type ? contiguousBytes(type) : FailureOr<int64_t>(failure());
    if (failed(bytes))
      return function.emitError()
             << "argument " << arg.getArgNumber() << " has type "
             << arg.getType()
             << "; the runtime binds statically shaped contiguous memrefs";
    values[arg] = {HostValue::Kind::View, (unsigned)plan.buffers.size()};
    plan.buffers.push_back(
        {PlanBuffer::Kind::Argument, arg.getArgNumber(), *bytes});
  }
  for (Operation &op : function.getBody().front())
    if (failed(visit(&op)))
      return failure();
  return std::move(plan);
}

FailureOr<int64_t> PlanBuilder::constantIndex(Value value, Operation *user,
                                              StringRef what) {
  auto it = values.find(value);
  if (it == values.end() || it->second.kind != HostValue::Kind::Integer)
    return user->emitError() << what
                             << " is not a constant; kf launches need static "
                                "grid, block and shared-memory sizes";
  return it->second.integer;
}

LogicalResult PlanBuilder::addModule(gpu::LaunchFuncOp launch) {
  StringRef name = launch.getKernelModuleName().getValue();
  if (plan.modules.count(name))
    return success();
  Operation *symbol = SymbolTable::lookupSymbolIn(module, name);
  if (auto binary = dyn_cast_or_null<gpu::BinaryOp>(symbol)) {
    // Prefer a cubin for this chip when the binary holds one.
    std::optional<PlanModule> chosen;
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      PlanModule candidate;
      if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
        candidate.chip = target.getChip().str();
      candidate.image = object.getObject().getValue().str();
      switch (object.getFormat()) {
      case gpu::CompilationTarget::Assembly:
        candidate.format = PlanModule::Format::PTX;
        if (chosen)
          continue;
        break;
      case gpu::CompilationTarget::Binary:
        candidate.format = PlanModule::Format::Cubin;
        break;
      default:
        return binary.emitError()
               << "holds an object in a format the runtime does not load; "
                  "lower with format=isa (PTX) or format=bin (cubin)";
      }
      chosen = std::move(candidate);
    }
    if (!chosen)
      return binary.emitError() << "holds no NVVM object";
    plan.modules[name] = std::move(*chosen);
    return success();
  }
  if (isa_and_nonnull<gpu::GPUModuleOp>(symbol)) {
    if (requireBinaries)
      return launch.emitError()
             << "launches a kernel of gpu.module @" << name
             << ", which has not been compiled (run kf-lower-to-ptx)";
    plan.modules[name] = PlanModule();
    return success();
  }
  return launch.emitError() << "launches a kernel of @" << name
                            << ", which is neither a gpu.binary nor a "
                               "gpu.module of this module";
}

LogicalResult PlanBuilder::visitLaunch(gpu::LaunchFuncOp launch) {
  if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken())
    return launch.emitError()
           << "is asynchronous; kf runs launches in order on one stream";
  if (launch.hasClusterSize())
    return launch.emitError() << "uses thread block clusters, which the "
                                 "runtime does not launch yet";
  if (failed(addModule(launch)))
    return failure();
  PlanStep step;
  step.kind = PlanStep::Kind::Launch;
  step.module = launch.getKernelModuleName().getValue().str();
  step.kernel = launch.getKernelName().getValue().str();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value gridValues[] = {grid.x, grid.y, grid.z};
  Value blockValues[] = {block.x, block.y, block.z};
  for (int d = 0; d < 3; ++d) {
    FailureOr<int64_t> g =
        constantIndex(gridValues[d], launch, "the grid size");
    FailureOr<int64_t> b =
        constantIndex(blockValues[d], launch, "the block size");
    if (failed(g) || failed(b))
      return failure();
    step.grid[d] = *g;
    step.block[d] = *b;
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    FailureOr<int64_t> bytes =
        constantIndex(shared, launch, "the dynamic shared memory size");
    if (failed(bytes))
      return failure();
    step.dynamicSharedBytes = *bytes;
  }
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    auto it = values.find(operand);
    if (it == values.end())
      return launch.emitError()
             << "kernel operand " << index
             << " is not a buffer or constant the runtime knows";
    if (it->second.kind == HostValue::Kind::Unpassable) {
      InFlightDiagnostic diag =
          launch.emitError()
          << "kernel operand " << index << " has type " << operand.getType()
          << "; the runtime passes buffers, integers of up to 64 bits and "
             "f32 or f64 scalars to kernels";
      diag.attachNote(operand.getLoc()) << "the operand is defined here";
      return diag;
    }
    PlanArgument arg;
    const HostValue &value = it->second;
    switch (value.kind) {
    case HostValue::Kind::View:
      if (auto type = dyn_cast<MemRefType>(operand.getType());
          !type || !type.hasStaticShape())
        return launch.emitError()
               << "kernel operand " << index << " has type "
               << operand.getType()
               << "; kernels take statically shaped memrefs (lowered with "
                  "bare pointers)";
      arg.kind = PlanArgument::Kind::Pointer;
      arg.buffer = value.buffer;
      arg.byteOffset = value.byteOffset;
      break;
    case HostValue::Kind::Integer:
      arg.kind = PlanArgument::Kind::Integer;
      arg.integer = value.integer;
      arg.bitWidth = value.bitWidth;
      break;
    case HostValue::Kind::Float:
      arg.kind = PlanArgument::Kind::Float;
      arg.floating = value.floating;
      arg.bitWidth = value.bitWidth;
      break;
    case HostValue::Kind::Unpassable:
      llvm_unreachable("refused above");
    }
    step.arguments.push_back(arg);
  }
  plan.steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::visit(Operation *op) {
  auto unsupported = [&]() {
    return op->emitError()
           << "'" << op->getName()
           << "' cannot run on the host: kf executes only buffer allocation, "
              "copies, reshapes and kernel launches there; the schedule must "
              "map this computation to the GPU";
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp constant) -> LogicalResult {
        Attribute value = constant.getValue();
        if (auto intAttr = dyn_cast<IntegerAttr>(value)) {
          unsigned width = isa<IndexType>(intAttr.getType())
                               ? 64
                               : intAttr.getType().getIntOrFloatBitWidth();
          if (width <= 64) {
            values[constant] = {HostValue::Kind::Integer,          0, 0,
                                intAttr.getValue().getSExtValue(), 0, width};
            return success();
          }
        }
        if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
          unsigned width = floatAttr.getType().getIntOrFloatBitWidth();
          if (width == 32 || width == 64) {
            values[constant] = {HostValue::Kind::Float,       0,    0, 0,
                                floatAttr.getValueAsDouble(), width};
            return success();
          }
        }
        // Refused only where a launch passes it (visitLaunch).
        values[constant] = {HostValue::Kind::Unpassable};
        return success();
      })
      .Case([&](memref::AllocOp alloc) -> LogicalResult {
        FailureOr<int64_t> bytes = contiguousBytes(alloc.getType());
        if (failed(bytes) || !alloc.getDynamicSizes().empty())
          return alloc.emitError()
                 << "allocates " << alloc.getType()
                 << "; host allocations must be static and contiguous";
        if (alloc.getType().getMemorySpace())
          return alloc.emitError()
                 << "allocates in memory space "
                 << alloc.getType().getMemorySpace()
                 << " on the host; shared memory belongs inside a kernel";
        unsigned buffer = plan.buffers.size();
        plan.buffers.push_back(
            {PlanBuffer::Kind::Temporary, 0, std::max<int64_t>(*bytes, 1)});
        values[alloc] = {HostValue::Kind::View, buffer};
        PlanStep step;
        step.kind = PlanStep::Kind::Allocate;
        step.buffer = buffer;
        plan.steps.push_back(step);
        return success();
      })
      .Case([&](memref::DeallocOp dealloc) -> LogicalResult {
        auto it = values.find(dealloc.getMemref());
        if (it == values.end() || it->second.byteOffset != 0 ||
            plan.buffers[it->second.buffer].kind != PlanBuffer::Kind::Temporary)
          return dealloc.emitError()
                 << "frees something that is not a temporary allocation";
        PlanStep step;
        step.kind = PlanStep::Kind::Free;
        step.buffer = it->second.buffer;
        plan.steps.push_back(step);
        return success();
      })
      .Case([&](memref::CopyOp copy) -> LogicalResult {
        auto source = values.find(copy.getSource());
        auto target = values.find(copy.getTarget());
        auto sourceType = dyn_cast<MemRefType>(copy.getSource().getType());
        auto targetType = dyn_cast<MemRefType>(copy.getTarget().getType());
        FailureOr<int64_t> bytes = sourceType ? contiguousBytes(sourceType)
                                              : FailureOr<int64_t>(failure());
        if (source == values.end() || target == values.end() || failed(bytes) ||
            !targetType || failed(contiguousBytes(targetType)))
          return copy.emitError()
                 << "copies between views the runtime cannot address as "
                    "contiguous buffers";
        PlanStep step;
        step.kind = PlanStep::Kind::Copy;
        step.buffer = target->second.buffer;
        step.destinationOffset = target->second.byteOffset;
        step.sourceBuffer = source->second.buffer;
        step.sourceOffset = source->second.byteOffset;
        step.bytes = *bytes;
        // A copy of a buffer onto itself (left by bufferization) is a no-op.
        if (step.buffer != step.sourceBuffer ||
            step.destinationOffset != step.sourceOffset)
          plan.steps.push_back(step);
        return success();
      })
      .Case<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
          [&](Operation *view) -> LogicalResult {
            auto it = values.find(view->getOperand(0));
            auto type = dyn_cast<MemRefType>(view->getResult(0).getType());
            if (it == values.end() || !type || failed(contiguousBytes(type)))
              return view->emitError()
                     << "reshapes to a view the runtime cannot address as a "
                        "contiguous buffer";
            values[view->getResult(0)] = it->second;
            return success();
          })
      .Case([&](gpu::LaunchFuncOp launch) { return visitLaunch(launch); })
      .Case([&](gpu::LaunchOp launch) -> LogicalResult {
        // Before outlining (kf-check-host-code runs there too) a launch only
        // needs static sizes; its body becomes a kernel.
        if (requireBinaries)
          return launch.emitError()
                 << "has not been outlined into a kernel (run "
                    "kf-lower-to-ptx)";
        if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken())
          return launch.emitError()
                 << "is asynchronous; kf runs launches in order on one "
                    "stream";
        if (launch.hasClusterSize())
          return launch.emitError() << "uses thread block clusters, which the "
                                       "runtime does not launch yet";
        for (Value size : {launch.getGridSizeX(), launch.getGridSizeY(),
                           launch.getGridSizeZ(), launch.getBlockSizeX(),
                           launch.getBlockSizeY(), launch.getBlockSizeZ()})
          if (failed(constantIndex(size, launch, "the grid or block size")))
            return failure();
        if (Value shared = launch.getDynamicSharedMemorySize())
          if (failed(constantIndex(shared, launch,
                                   "the dynamic shared memory size")))
            return failure();
        PlanStep step;
        step.kind = PlanStep::Kind::Launch;
        plan.steps.push_back(std::move(step));
        return success();
      })
      .Case([&](func::ReturnOp) { return success(); })
      .Default([&](Operation *) { return unsupported(); });
}

FailureOr<LaunchPlan> kf::buildLaunchPlan(ModuleOp module,
                                          func::FuncOp function) {
  return PlanBuilder(module, function, /*requireBinaries=*/true).build();
}

FailureOr<LaunchPlan> kf::buildLaunchPlan(ModuleOp module) {
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isPublic() && !function.isExternal())
      functions.push_back(function);
  if (functions.size() != 1)
    return module.emitError()
           << "expected one public host function in the lowered module, "
              "found "
           << functions.size();
  return buildLaunchPlan(module, functions.front());
}

LogicalResult kf::checkHostCode(ModuleOp module) {
  bool ok = true;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    if (failed(
            PlanBuilder(module, function, /*requireBinaries=*/false).build()))
      ok = false;
  }
  return success(ok);
}
