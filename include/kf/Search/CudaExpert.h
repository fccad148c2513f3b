//===- CudaExpert.h - Rule-based experts for CUDA candidates ----*- C++ -*-===//
//
// Without an LLM, a CUDA kernel is tuned through what kf owns: its launch
// plan's parameters (block sizes, tiles, unroll factors: each parameter is
// also a preprocessor macro of the device code), __launch_bounds__, and a
// register cap. The experts propose neighbours of a parent's tuning as
// kernel candidates (script experts of the search), each island by its
// focus: parallelism and memory step a parameter through its choices,
// compute changes launch bounds and the register cap, structure jumps to
// any choice.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_CUDAEXPERT_H
#define KF_SEARCH_CUDAEXPERT_H

#include "kf/Import/CudaImport.h"
#include "kf/Import/CudaLaunch.h"
#include "kf/Search/Search.h"

#include <string>

namespace kf {

struct CudaExpertSetup {
  mlir::MLIRContext *context = nullptr;
  std::string sourcePath;
  CudaLaunchSpec plan;
  ProblemSpec spec;
  /// How the device code is compiled (chip, untrusted); the parameters are
  /// added as -D definitions.
  CudaImportOptions importOptions;
  uint64_t seed = 1;
};

/// The kernel-candidate text of `tuning` (the CUDA source compiled with
/// every plan parameter as a macro, at the tuning's value or the plan's,
/// bound by the plan), printed with the .cu locations.
llvm::Expected<std::string> renderCudaCandidate(const CudaExpertSetup &setup,
                                                const CudaTuning &tuning);

/// The tuning of the plan as written: every parameter at its value, no
/// launch bounds, no register cap.
CudaTuning defaultCudaTuning(const CudaLaunchSpec &plan);

/// Script experts proposing CUDA tunings (see above). The first proposal of
/// a search is the kernel as written (change "as written"), rendered here:
/// when it does not compile or bind, the error comes back instead. A parent
/// that is not one of theirs is replaced by the best CUDA candidate so far.
/// Proposals never repeat a tuning; a tuning whose source does not compile
/// is no proposal (its error goes to `onFailure`).
llvm::Expected<ScriptExpertFn>
makeCudaScriptExperts(CudaExpertSetup setup,
                      std::function<void(const std::string &)> onFailure);

} // namespace kf

#endif // KF_SEARCH_CUDAEXPERT_H
