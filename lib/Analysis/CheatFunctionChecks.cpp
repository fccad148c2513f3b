//===- CheatFunctionChecks.cpp - Cheat checks on one function's ops ------===//
//
// The checks that judge a kernel or device function by its own ops, without
// roles or data flow: what it calls, and the precision it computes in.
//
//===----------------------------------------------------------------------===//

#include "CheatFunctionChecks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kf::detail;

namespace {
bool isFloatNarrower(Type type, unsigned bits) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() < bits;
}
} // namespace

void kf::detail::checkCalls(Operation *function, ReportFn report) {
  auto gpuModule = function->getParentOfType<gpu::GPUModuleOp>();
  function->walk([&](Operation *op) {
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
        report("disallowed-call", op,
               "allocates global memory inside the kernel (device malloc); "
               "kernels may only use the buffers they are given, shared memory "
               "and registers");
      return;
    } else {
      return;
    }
    if (indirect) {
      report("disallowed-call", op,
             "makes an indirect call; kernels may only call math functions");
      return;
    }
    if (callee.starts_with("cudaLaunchDevice") ||
        callee.starts_with("cudaGetParameterBuffer") ||
        callee.starts_with("cudaDeviceSynchronize") ||
        callee.starts_with("cudaCGGetIntrinsicHandle")) {
      report("dynamic-parallelism", op,
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
    report("disallowed-call", op,
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

void kf::detail::checkPrecision(Operation *function, unsigned minFloatBits,
                                ReportFn report) {
  function->walk([&](Operation *op) {
    // Tensor cores multiply in their operand kind whatever the registers
    // hold: f32 bits fed to a tf32 mma lose 13 bits of mantissa with no
    // conversion op to see.
    if (std::optional<NVVM::MMATypes> kind = multiplicandKind(op)) {
      unsigned bits = mmaFloatBits(*kind);
      if (bits && bits < minFloatBits) {
        report("lower-precision", op,
               llvm::formatv("multiplies {0} operands on tensor cores: the "
                             "problem is computed in at least {1}-bit floating "
                             "point",
                             NVVM::stringifyMMATypes(*kind), minFloatBits));
        return WalkResult::interrupt();
      }
    }
    if (isa<NVVM::ConvertFloatToTF32Op>(op)) {
      report("lower-precision", op,
             "converts to tf32: the problem is computed in at least " +
                 llvm::Twine(minFloatBits) + "-bit floating point");
      return WalkResult::interrupt();
    }
    for (Type type : op->getResultTypes())
      if (isFloatNarrower(type, minFloatBits)) {
        std::string name;
        llvm::raw_string_ostream os(name);
        type.print(os);
        report("lower-precision", op,
               llvm::formatv("computes in {0}, narrower than the {1}-bit "
                             "floating point the problem requires",
                             name, minFloatBits));
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
}
