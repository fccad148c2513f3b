//===- TargetRequirements.h - What a module needs of its target -*- C++ -*-===//
//
// LLVM's NVPTX backend ends the process (report_fatal_error, no location)
// when a module asks for something its target cannot do: a PTX version
// older than the chip, a chip it does not know (after only a warning), or an
// operation the chip lacks (wmma before sm_70: "Cannot select"). kf checks
// the target options and the operations a module uses before lowering, so
// that each refusal is a located error instead.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_TARGETREQUIREMENTS_H
#define KF_ANALYSIS_TARGETREQUIREMENTS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kf {

/// The processors of LLVM's NVPTX backend (sm_20 ... sm_121f), ordered by
/// their SM number, as its subtarget table lists them.
std::vector<std::string> nvptxProcessors();

/// The PTX ISA versions (times ten) the NVPTX backend can emit.
std::vector<unsigned> nvptxPTXVersions();

/// The oldest PTX version (times ten) with which LLVM 22's NVPTX backend
/// compiles for `chip`, or 0 for a chip it does not know. (The backend
/// checks this only while compiling, and ends the process when it fails.)
unsigned backendMinimumPTXVersion(llvm::StringRef chip);

/// The SM number of a chip name ("sm_90a" -> 90), or nullopt.
std::optional<unsigned> smNumber(llvm::StringRef chip);

/// What one operation needs of the chip.
struct TargetRequirement {
  /// The oldest SM number with the feature or, when `archSpecific`, the
  /// SM numbers whose architecture-specific variant has it (sm_90a for
  /// wgmma).
  llvm::SmallVector<unsigned, 1> sms;
  bool archSpecific = false;
  /// The feature, as a user knows it ("wmma", "cp.async").
  std::string feature;

  /// "sm_70 or newer", "sm_90a", "sm_100a or sm_110a".
  std::string describe() const;
};

/// What `op` needs of the chip, or nullopt when any NVPTX processor
/// compiles it: upstream's NVVM::RequiresSMInterface where the op has it,
/// otherwise kf's table (gpu.subgroup_mma, nvgpu, cp.async, clusters...).
std::optional<TargetRequirement> requirementOf(mlir::Operation *op);

/// Whether `chip` has what `requirement` asks for.
bool chipSatisfies(llvm::StringRef chip, const TargetRequirement &requirement);

/// Checks the target options (a chip of the NVPTX backend, a PTX version it
/// knows and that supports the chip) and every operation of `module`
/// against the chip it will be compiled for: the chip of the gpu.module's
/// own #nvvm.target attributes when it has them, otherwise `chip`. Emits a
/// located error for each problem and fails when there is one. `ptxVersion`
/// 0 means the default (not checked).
mlir::LogicalResult checkTargetRequirements(mlir::ModuleOp module,
                                            llvm::StringRef chip,
                                            unsigned ptxVersion);

} // namespace kf

#endif // KF_ANALYSIS_TARGETREQUIREMENTS_H
