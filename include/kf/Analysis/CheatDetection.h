//===- CheatDetection.h - Static checks for kernels that skip the work -*-===//
//
// Static checks that a candidate's kernels compute their outputs from their
// inputs, on the common gpu.module level (gpu.func kernels and llvm.func
// kernels with nvvm ops, lowered by kf or imported from CUDA). Each finding
// carries a reason code, the operation it is about and one readable
// sentence. The checks are conservative: they flag only what the IR proves
// (an output no kernel stores to, a value with no path from any input),
// never what it merely cannot rule out; the dynamic checks of the evaluator
// cover the rest.
//
// Which kernel argument is an input, an output or scratch comes from
// `kf.role` argument attributes ("input", "output", "scratch") or, for a
// module with host code, from the launches: a launch operand that is the
// host function's argument number i is an input when i < numInputs and an
// output otherwise; anything else is scratch.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_CHEATDETECTION_H
#define KF_ANALYSIS_CHEATDETECTION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace kf {

/// One reason a candidate is rejected.
struct CheatFinding {
  /// Reason code, e.g. "writes-input" (the table is in docs/cheating.md).
  std::string code;
  /// The op the finding is about, for diagnostics while the module lives
  /// (null once the module is gone: compiling a candidate erases it).
  mlir::Operation *op = nullptr;
  /// Where that op is ("file:line:col", or "unknown"), kept as text so
  /// that a finding outlives its module.
  std::string location = "unknown";
  std::string kernel;
  /// One sentence saying what the kernel does wrong.
  std::string message;
};

struct CheatCheckOptions {
  /// Host arguments below this index are inputs, the others outputs. When
  /// unset, a kf.problem in the module gives it, else only kf.role
  /// attributes assign roles.
  std::optional<unsigned> numInputs;
  /// Floating-point arithmetic narrower than this many bits is lower
  /// precision than the problem allows (32 for an f32 problem).
  unsigned minFloatBits = 32;
};

/// Runs every check on the kernels of `module`, most severe first.
llvm::SmallVector<CheatFinding> detectCheats(mlir::ModuleOp module,
                                             const CheatCheckOptions &options);

/// "rejected [code]: message (kernel @k, file:line:col)".
std::string formatRejection(const CheatFinding &finding);

llvm::json::Value toJSON(const CheatFinding &finding);

} // namespace kf

#endif // KF_ANALYSIS_CHEATDETECTION_H
