//===- ProblemAnalysis.h - Work and traffic of a problem --------*- C++ -*-===//
//
// Problem-wide facts at the linalg level: floating-point operations, the
// compulsory bytes (each input read once, each output written once), the
// bytes the computation as written must move (inputs read again after a
// reduction that is too large to keep on chip), arithmetic intensity, and
// the roofline floor on a target from measured ceilings.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_PROBLEMANALYSIS_H
#define KF_ANALYSIS_PROBLEMANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace kf {

/// Measured ceilings of a GPU. Defaults: an H200 measured in this project
/// (device-to-device copy counting bytes read and written; cuBLAS SGEMM with
/// TF32 off at 8192^3; bf16 GEMM).
struct Ceilings {
  std::string device = "NVIDIA H200 (kf defaults)";
  double copyBytesPerSecond = 4.27e12;
  double fp32FlopsPerSecond = 50.9e12;
  /// The FMA pipes' issue rate, what a kernel's shared-memory bound is a
  /// fraction of: 132 SMs x 128 lanes x 2 FLOPs x 1.98 GHz.
  double fp32PeakFlopsPerSecond = 66.9e12;
  double bf16FlopsPerSecond = 825e12;
  /// Data larger than this is not in L2 when read again (H200: 50 MiB).
  double l2Bytes = 50.0 * 1024 * 1024;
  /// What one thread block can keep on chip: the most dynamic shared memory
  /// a block may use on sm_90 (227 KiB).
  double sharedBytesPerBlock = 227.0 * 1024;

  /// Reads a JSON file {"device": ..., "copy_bytes_per_second": ...,
  /// "fp32_flops_per_second": ..., "fp32_peak_flops_per_second": ...,
  /// "bf16_flops_per_second": ..., "l2_bytes":
  /// ..., "shared_bytes_per_block": ...}; fields not given keep their
  /// defaults.
  static llvm::Expected<Ceilings> load(llvm::StringRef path);
};

/// A producer whose result an eager framework writes to memory and the
/// consumer reads back: fusing the two saves that round trip.
struct FusionChance {
  mlir::Operation *producer = nullptr;
  mlir::Operation *consumer = nullptr;
  int64_t bytes = 0; // the intermediate's size
};

/// What kind of computation a linalg op is.
llvm::StringRef classifyLinalgOp(mlir::Operation *op);

/// How often the computation as written reads one input.
struct InputPasses {
  unsigned argument = 0;
  int64_t bytes = 0;
  /// Distinct passes over the input: 1 + the reductions (each too large for
  /// one block's on-chip memory) whose results must be complete before a
  /// later use of the input; 1 for inputs that fit in L2.
  unsigned passes = 1;
};

struct ProblemAnalysis {
  /// False when the reference has no body (a CUDA kernel with no problem
  /// file is its own reference): only the inputs' and outputs' bytes are
  /// known, and flops are not (they stay 0).
  bool computationKnown = true;
  /// Floating-point operations of the reference (a multiply-add counts 2).
  int64_t flops = 0;
  /// Compulsory bytes: inputs read once plus outputs written once. Only an
  /// algebraic rewrite (an online softmax, a one-pass variance) or a kernel
  /// keeping whole reduced slices on chip (clusters) reaches this.
  int64_t minBytes = 0;
  /// Bytes the computation as written moves at least: outputs written once,
  /// each input read once per pass (`inputPasses`); intermediates are
  /// recomputed, never stored. The roofline floor uses these.
  int64_t floorBytes = 0;
  llvm::SmallVector<InputPasses> inputPasses;
  /// Bytes the reference moves when each linalg op is its own memory pass
  /// (what an eager framework does).
  int64_t unfusedBytes = 0;
  unsigned numLinalgOps = 0;
  /// Operation classes ("elementwise", "reduction", "contraction", "fill",
  /// "other") with their counts.
  llvm::StringMap<unsigned> opClasses;
  llvm::SmallVector<FusionChance> fusionChances;

  double intensity() const {
    return minBytes ? double(flops) / double(minBytes) : 0;
  }
  /// max(floor bytes / bandwidth, flops / rate) in seconds.
  double floorSeconds(const Ceilings &ceilings) const;
  /// "memory" or "compute": which term sets the floor.
  llvm::StringRef floorBound(const Ceilings &ceilings) const;
};

ProblemAnalysis analyzeProblem(mlir::func::FuncOp reference,
                               const Ceilings &ceilings = {});

llvm::json::Value toJSON(const ProblemAnalysis &analysis,
                         const Ceilings &ceilings);

} // namespace kf

#endif // KF_ANALYSIS_PROBLEMANALYSIS_H
