//===- ProblemSpec.h - A problem's I/O contract as plain data ---*- C++ -*-===//
//
// What the runtime needs to know about a problem, with no MLIR context: the
// inputs (element type, shape, distribution), the outputs and the tolerance.
// It crosses the process boundary to the measurement worker as JSON.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_PROBLEMSPEC_H
#define KF_RUNTIME_PROBLEMSPEC_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kf {
class ProblemOp;

struct Distribution {
  enum class Kind { Uniform, Normal, IntRange };
  Kind kind = Kind::Uniform;
  /// Uniform: [a, b). Normal: mean a, standard deviation b. IntRange:
  /// [a, b) as integers.
  double a = -1.0, b = 1.0;
};

/// The distribution mirrored through zero: uniform [a, b) becomes [-b, -a),
/// normal (m, s) becomes (-m, s); integer ranges stay as they are.
Distribution negate(const Distribution &distribution);

struct TensorSpec {
  /// MLIR spelling of the element type: f32, f16, bf16, f64, i1 ... i64.
  std::string elementType;
  llvm::SmallVector<int64_t> shape;
  Distribution distribution;

  int64_t numElements() const;
  /// Bytes per element as the kernels store them (i1 takes a byte).
  unsigned elementBytes() const;
  int64_t bytes() const { return numElements() * elementBytes(); }
  bool isFloat() const;
};

struct ProblemSpec {
  std::string name;
  llvm::SmallVector<TensorSpec> inputs;
  llvm::SmallVector<TensorSpec> outputs;
  double atol = 0, rtol = 0;
};

/// Reads a verified kf.problem.
ProblemSpec buildProblemSpec(ProblemOp problem);

/// Bytes that every input once and every output `outputCopies` times take
/// on the host; an error naming the first tensor whose size does not fit in
/// 64 bits.
llvm::Expected<uint64_t> hostBytes(const ProblemSpec &spec,
                                   unsigned outputCopies);

/// This machine's physical memory in bytes (0 when it cannot be read).
uint64_t physicalMemoryBytes();

/// Refuses, before anything is allocated, a problem whose tensors
/// (`outputCopies` copies of each output) would take more than half of
/// `memoryBytes` (0: no limit known); `what` names the work ("the CPU
/// check").
llvm::Error checkHostMemory(const ProblemSpec &spec, unsigned outputCopies,
                            uint64_t memoryBytes, llvm::StringRef what);

/// A trivial kernel of the degenerate-problem check: one the problem's
/// tolerance must reject, or passing it proves nothing.
struct TrivialKernel {
  enum class Kind {
    /// Writes zeros.
    Zeros,
    /// Writes one fixed value everywhere: the middle element of the first
    /// checked trial's reference output, judged on the later trials (a
    /// kernel cannot know each trial's reference: judged on the trial it
    /// came from, it would pass every scalar output).
    Constant,
    /// Copies input `input` (same element type and size as the output).
    CopyOfInput
  };
  Kind kind;
  unsigned output;
  unsigned input = 0;

  /// "zeros", "a constant", "a copy of input 1".
  std::string describe() const;
};

/// The trivial kernels for `spec`'s floating-point outputs: zeros, a
/// constant (4-byte elements), and a copy of each input of the output's
/// element type and size.
llvm::SmallVector<TrivialKernel> trivialKernels(const ProblemSpec &spec);

/// The degenerate-problem check's verdicts, kept the same way by the GPU
/// evaluator and the host check (which compare outputs on their own side):
/// each trivial kernel of `spec` passes until a judged trial fails it; the
/// constant kernel's value is taken from the first checked trial and judged
/// on the later ones.
struct TrivialKernelVerdicts {
  struct Verdict {
    TrivialKernel kernel;
    /// The constant kernel's value (4-byte elements); set on the first
    /// checked trial.
    std::optional<uint32_t> constant;
    bool passes = true;
    /// Trials it was compared on.
    unsigned judged = 0;
  };
  std::vector<Verdict> verdicts;

  explicit TrivialKernelVerdicts(const ProblemSpec &spec);
  /// The first trivial kernel that passed every trial it was judged on.
  std::optional<TrivialKernel> degenerate() const;
};

/// Says that `kernel` passes every trial of `spec` and what to do about it.
std::string degenerateProblemMessage(const ProblemSpec &spec,
                                     const TrivialKernel &kernel);

llvm::json::Value toJSON(const ProblemSpec &spec);
bool fromJSON(const llvm::json::Value &value, ProblemSpec &spec,
              llvm::json::Path path);

} // namespace kf

#endif // KF_RUNTIME_PROBLEMSPEC_H
