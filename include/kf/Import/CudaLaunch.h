//===- CudaLaunch.h - Launch plans bind CUDA kernels to problems -*- C++
//-*-===//
//
// A CUDA candidate is device code plus a launch plan: the kernel launches
// (grid, block and dynamic shared memory as expressions of the problem's
// sizes and of tunable parameters), each kernel argument bound to one of
// the problem's inputs or outputs, a scratch buffer, or a size. kf owns the
// host side: the plan and the imported kernels become a kernel candidate
// (a module whose host function takes the problem's inputs then outputs as
// memrefs and launches the kernels), evaluated like any other.
// docs/cuda-input.md describes the JSON form.
//
//===----------------------------------------------------------------------===//

#ifndef KF_IMPORT_CUDALAUNCH_H
#define KF_IMPORT_CUDALAUNCH_H

#include "kf/Runtime/ProblemSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kf {

/// A tunable integer of the plan (a block size, a tile): its value and the
/// values the CUDA experts may try.
struct CudaLaunchParameter {
  std::string name;
  int64_t value = 0;
  std::vector<int64_t> choices;
};

/// A device buffer the kernels need besides the problem's tensors.
struct CudaScratch {
  std::string name;
  std::string elementType = "f32";
  std::string elements; // an expression
};

/// One argument of a launch: a buffer (`in0`, `out1`, a scratch name), or
/// an expression for an integer or floating-point parameter.
struct CudaLaunchArgument {
  std::string text;
  bool isNumber = false; // a JSON number (for float parameters)
  double number = 0;
};

struct CudaLaunch {
  std::string kernel;
  std::string grid[3] = {"1", "1", "1"};
  std::string block[3] = {"1", "1", "1"};
  std::string sharedBytes = "0";
  std::vector<CudaLaunchArgument> arguments;
};

struct CudaLaunchSpec {
  std::vector<CudaLaunchParameter> parameters;
  std::vector<CudaScratch> scratch;
  std::vector<CudaLaunch> launches;
  /// The plan's "problem" section, for a kernel with no problem file: the
  /// inputs (shape, element type, distribution), the outputs and the
  /// tolerance. The kernel as written is then the reference ("make this
  /// faster, same results"). The name is empty when the plan gives none.
  std::optional<ProblemSpec> problem;
};

/// Reads a launch plan (JSON); errors name the file and the field.
llvm::Expected<CudaLaunchSpec> parseCudaLaunchSpec(llvm::StringRef text,
                                                   llvm::StringRef fileName);

/// A module holding one external function with the problem's signature
/// (`func.func private @<name>(inputs...) -> (outputs...)` on tensors): what
/// kernel candidates of a problem with no reference function are checked
/// against (kf::compileKernelCandidate).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildProblemSignature(mlir::MLIRContext *context, const ProblemSpec &spec);

/// Evaluates an integer expression over `symbols`: decimal integers, names
/// (letters, digits, '_' and '.'), + - * / % (division and remainder of
/// non-negative operands, truncating), parentheses, and the functions
/// ceildiv(a, b), min(a, b), max(a, b).
llvm::Expected<int64_t>
evaluateLaunchExpression(llvm::StringRef expression,
                         const llvm::StringMap<int64_t> &symbols);

/// The values a plan's expressions may use: in<i>.d<k> and out<i>.d<k> (the
/// problem's tensors' dimensions), in<i>.size and out<i>.size (their
/// element counts), and each parameter, with `overrides` replacing values.
llvm::StringMap<int64_t>
launchSymbols(const ProblemSpec &spec, const CudaLaunchSpec &plan,
              const std::map<std::string, int64_t> &overrides = {});

/// What the CUDA experts change in a candidate besides parameter values.
struct CudaTuning {
  std::map<std::string, int64_t> parameters;
  /// __launch_bounds__: each kernel's nvvm.maxntid is its launch's block.
  bool launchBounds = false;
  /// A register cap per thread (nvvm.maxnreg); 0: none.
  unsigned maxRegisters = 0;

  /// "A=2 BLOCK=128 launch_bounds maxnreg=64", or "as written".
  std::string describe() const;
};

/// Builds the kernel candidate for `spec` from `imported` (kf::importCuda's
/// module; consumed): a module holding its gpu.module and a host function
/// @kf_cuda_host(inputs..., outputs...) that allocates the scratch
/// buffers, launches every kernel of the plan in order, and frees them.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildCudaCandidate(mlir::OwningOpRef<mlir::ModuleOp> imported,
                   const ProblemSpec &spec, const CudaLaunchSpec &plan,
                   const CudaTuning &tuning);

} // namespace kf

#endif // KF_IMPORT_CUDALAUNCH_H
