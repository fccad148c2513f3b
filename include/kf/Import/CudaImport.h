//===- CudaImport.h - CUDA device code into MLIR -----------------*- C++
//-*-===//
//
// CUDA input meets MLIR input at the common level: a gpu.module of llvm +
// nvvm kernels. Device code is compiled by clang (-x cuda
// --cuda-device-only) to LLVM IR, which MLIR's LLVM IR importer turns into
// llvm and nvvm ops; the importer wraps them in a gpu.module with an NVVM
// target, so kf-diagnose, kf-detect-cheats and the PTX pipeline run on it
// unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef KF_IMPORT_CUDAIMPORT_H
#define KF_IMPORT_CUDAIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kf {

struct CudaImportOptions {
  /// The clang driver (default: the clang++-22 found at configure time,
  /// else on PATH; $KF_CLANG overrides).
  std::string clang;
  /// The CUDA toolkit (default: the one found at configure time, else
  /// /usr/local/cuda; $CUDA_HOME overrides).
  std::string cudaPath;
  std::string chip = "sm_90";
  /// Roles of each kernel's pointer parameters, in order ("input",
  /// "output", "scratch"), written as kf.role argument attributes for the
  /// cheat checks; empty: none.
  std::vector<std::string> pointerRoles;
  /// Device code from an untrusted source (a candidate): it may reach no
  /// file but itself, the CUDA toolkit's headers and the system's (clang's
  /// dependency list decides), and inline assembly is refused.
  bool untrusted = false;
  /// Preprocessor definitions (-DNAME=VALUE): a launch plan's parameters,
  /// so that device code can use them (tile sizes, unroll factors).
  std::vector<std::pair<std::string, std::string>> defines;
  /// A directory of imported modules, keyed by a SHA-256 of what the import
  /// depends on (the source text, chip, definitions, trust): a hit needs no
  /// clang, so a machine without one (the GPU host) can use imports made
  /// elsewhere; every successful import is stored. Empty: no cache.
  std::string cacheDir;
  /// Seconds clang may take.
  unsigned timeoutSeconds = 120;
  /// Memory clang may take for untrusted source, in MiB (setrlimit).
  unsigned memoryLimitMB = 4096;
};

/// Compiles and imports `sourcePath`. On failure the error holds what went
/// wrong: the compiler's own diagnostics for code that does not compile, a
/// located reason for refused code.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importCuda(llvm::StringRef sourcePath, mlir::MLIRContext *context,
           const CudaImportOptions &options);

/// A first screen of untrusted CUDA source text (see
/// CudaImportOptions::untrusted) for inline PTX, for an early located
/// message: returns the reasons it is refused, "file:line: ..." each. The
/// import's guarantees come from clang's dependency list and the IR.
std::vector<std::string> checkUntrustedCuda(llvm::StringRef source,
                                            llvm::StringRef name);

} // namespace kf

#endif // KF_IMPORT_CUDAIMPORT_H
