//===- LaunchPlan.h - The host side of a lowered module ---------*- C++ -*-===//
//
// kf does not generate CPU code for the host side of a scheduled problem:
// after kf-lower-to-ptx a host function only allocates buffers, copies
// between them, reshapes views and launches kernels. A LaunchPlan is that
// function read as data: the kernels' binaries, the buffers and the ordered
// steps, with every kernel argument bound through the gpu.launch_func that
// passes it (never by the reference function's argument order). The runtime
// executes a plan with the CUDA driver API; the same reader checks, on any
// machine, that a schedule left no computation on the host.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_LAUNCHPLAN_H
#define KF_RUNTIME_LAUNCHPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace kf {

/// A device buffer of the plan: a function argument (inputs first, then the
/// outputs, as buffer-results-to-out-params leaves them) or a temporary.
struct PlanBuffer {
  enum class Kind { Argument, Temporary };
  Kind kind = Kind::Temporary;
  /// For arguments: the position among the host function's arguments.
  unsigned argumentIndex = 0;
  int64_t bytes = 0;
};

/// One kernel argument.
struct PlanArgument {
  enum class Kind { Pointer, Integer, Float };
  Kind kind = Kind::Integer;
  /// Pointer: the buffer and a byte offset into it.
  unsigned buffer = 0;
  int64_t byteOffset = 0;
  /// Integer (bit width 1..64) or float (32 or 64 bits) scalar.
  int64_t integer = 0;
  double floating = 0;
  unsigned bitWidth = 64;
};

/// One step of the host program, executed in order on one stream.
struct PlanStep {
  enum class Kind { Allocate, Free, Copy, Launch };
  Kind kind = Kind::Launch;
  /// Allocate / Free: the buffer. Copy: destination buffer.
  unsigned buffer = 0;
  /// Copy: source buffer, byte offsets and size.
  unsigned sourceBuffer = 0;
  int64_t sourceOffset = 0, destinationOffset = 0, bytes = 0;
  /// Launch.
  std::string module, kernel;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  llvm::SmallVector<PlanArgument> arguments;
};

/// A kernel binary: PTX text or a cubin for one chip.
struct PlanModule {
  enum class Format { PTX, Cubin };
  Format format = Format::PTX;
  std::string chip;
  std::string image;
};

struct LaunchPlan {
  std::string function;
  unsigned numArguments = 0;
  llvm::SmallVector<PlanBuffer> buffers;
  llvm::SmallVector<PlanStep> steps;
  llvm::StringMap<PlanModule> modules;

  /// Number of kernel launches per run of the plan.
  unsigned numLaunches() const;
};

/// Reads the host function `function` of a lowered module (after
/// gpu-module-to-binary) as a LaunchPlan. Every operation the runtime cannot
/// execute gets a located error saying so; returns failure then.
mlir::FailureOr<LaunchPlan> buildLaunchPlan(mlir::ModuleOp module,
                                            mlir::func::FuncOp function);

/// Same, for the only public function of `module`.
mlir::FailureOr<LaunchPlan> buildLaunchPlan(mlir::ModuleOp module);

/// Checks the host side of a scheduled module before or after lowering
/// (gpu.launch_func may still refer to a gpu.module): the same rules as
/// buildLaunchPlan, with errors at the offending operations.
mlir::LogicalResult checkHostCode(mlir::ModuleOp module);

/// Whether a plan's JSON carries its kernel binaries.
enum class PlanImages { Omit, Include };

/// JSON form of a plan: for reports and tests without the kernel images;
/// with them, the form in which a compiled candidate travels to a
/// measurement worker (PTX as text, cubins in base64).
llvm::json::Value toJSON(const LaunchPlan &plan,
                         PlanImages images = PlanImages::Omit);

/// Reads a plan written with its images. Every buffer, argument and module
/// index is checked against what it refers to, every copy against the sizes
/// of the buffers the plan declares, each pointer argument's offset, and
/// the launch sizes against the driver's 32-bit limits: a plan that does
/// not hold together is refused (with the path of the offending field),
/// never run.
bool fromJSON(const llvm::json::Value &value, LaunchPlan &plan,
              llvm::json::Path path);

} // namespace kf

#endif // KF_RUNTIME_LAUNCHPLAN_H
