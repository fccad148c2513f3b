//===- KernelAnalysis.h - Structural facts about one GPU kernel -*- C++ -*-===//
//
// The analyses kf's diagnosis is built from, on one kernel at the common
// level where MLIR and CUDA input meet: a gpu.func (gpu/scf/memref/vector
// form) or an llvm.func kernel with nvvm ops (lowered by kf or imported from
// CUDA). For every memory access: its space and, for a warp of consecutive
// threadIdx.x, its pattern (coalesced, strided with the stride, broadcast)
// and vector width; shared-memory footprint and bank conflicts; barriers;
// branches that diverge on thread ids; loops with trip counts and the global
// loads inside them that do not change across iterations or across threads;
// local memory; the launch configuration.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_KERNELANALYSIS_H
#define KF_ANALYSIS_KERNELANALYSIS_H

#include "kf/Analysis/SharedMemoryBanks.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace kf {

enum class MemorySpace { Global, Shared, Local, Unknown };
enum class AccessPattern { Coalesced, Strided, Broadcast, Unknown };
llvm::StringRef stringifyMemorySpace(MemorySpace space);
llvm::StringRef stringifyAccessPattern(AccessPattern pattern);

struct MemoryAccess {
  mlir::Operation *op = nullptr;
  bool isStore = false;
  MemorySpace space = MemorySpace::Unknown;
  /// Bytes of one scalar element; elements per thread per access.
  unsigned elementBytes = 0, vectorWidth = 1;
  /// The accessed type as MLIR prints it (e.g. f32, vector<4xf32>).
  std::string typeName;
  /// Elements between the addresses of consecutive threads along x; along
  /// y for shared memory (a warp of a block narrower than 32 threads spans
  /// several thread rows).
  std::optional<int64_t> elementStride, elementStrideY;
  AccessPattern pattern = AccessPattern::Unknown;
  /// Global memory: bytes used over bytes moved for a warp (1 = ideal).
  double efficiency = 0;
  /// Shared memory: the wavefronts one warp's access takes
  /// (SharedMemoryBanks.h), and their ratio to the conflict-free count
  /// (1 = no conflict; 0 when unknown).
  std::optional<SharedWavefronts> wavefronts;
  unsigned bankConflictWays = 0;
  /// The innermost enclosing loop, and whether the address is the same in
  /// every iteration of it.
  mlir::Operation *loop = nullptr;
  bool loopInvariantAddress = false;
  /// For llvm-form kernels: how many adjacent scalar accesses this one
  /// stands for (the NVPTX backend merges them into one vector access);
  /// 0 when it is a single access.
  unsigned mergedScalars = 0;
};

struct LoopFacts {
  mlir::Operation *op = nullptr;
  std::optional<int64_t> tripCount;
  bool threadDependentBounds = false;
  unsigned globalLoads = 0;
  /// Per iteration (ops directly in this loop, not in inner loops): fused
  /// multiply-adds per thread (a vector FMA counts its lanes), and the
  /// shared-memory wavefronts of one warp's loads (when every shared load
  /// of the loop is modelled).
  int64_t fmaPerThread = 0;
  std::optional<int64_t> sharedLoadWavefronts;

  /// Warp-wide FMA instructions an SM issues per cycle (4 x 32 lanes).
  static constexpr int64_t kWarpFmasPerCycle = 4;
  /// Cycles of an SM's FMA pipes one warp's iteration takes.
  double fmaCycles() const { return fmaPerThread / double(kWarpFmasPerCycle); }
  /// The fraction of the FMA peak the shared-memory loads allow (one
  /// wavefront per cycle): min(1, fmaCycles / wavefronts); 1 when the
  /// loads are not modelled or there are none.
  double fmaPeakBound() const {
    if (!sharedLoadWavefronts || *sharedLoadWavefronts == 0)
      return 1;
    return std::min(1.0, fmaCycles() / double(*sharedLoadWavefronts));
  }
};

class KernelAnalysis {
public:
  /// Analyses `kernel`, a gpu.func or an llvm.func.
  explicit KernelAnalysis(mlir::Operation *kernel);

  mlir::Operation *getKernel() const { return kernel; }
  llvm::StringRef getName() const { return name; }
  bool isLLVMForm() const { return llvmForm; }

  std::optional<std::array<int64_t, 3>> blockSize, gridSize;
  int64_t sharedBytes = 0, localBytes = 0;
  unsigned barriers = 0;
  /// Asynchronous copies to shared memory (cp.async), and the pipeline
  /// depth their waits allow: 1 + the most groups in flight while the
  /// threads compute on the stage a wait waited for (the groups the wait
  /// leaves, and one more when the next stage is committed before anything
  /// is read); 1: every copy is waited for before the next is issued.
  unsigned asyncCopies = 0;
  std::optional<unsigned> asyncPipelineDepth;
  llvm::SmallVector<mlir::Operation *> divergentBranches;
  /// Barriers nested in a divergent branch (structured form).
  llvm::SmallVector<mlir::Operation *> divergentBarriers;
  llvm::SmallVector<LoopFacts> loops;
  llvm::SmallVector<MemoryAccess> accesses;
  llvm::SmallVector<mlir::Operation *> localAllocations;

  /// Blocks per SM and the fraction of an SM's threads they keep busy, from
  /// threads per block, shared memory and (if known) registers per thread,
  /// with Hopper's limits (2048 threads, 32 blocks, 64K registers, 228 KB of
  /// shared memory per SM). std::nullopt without a known block size.
  struct Occupancy {
    int64_t blocksPerSM = 0;
    double fraction = 0;
    std::string limitedBy;
  };
  std::optional<Occupancy> occupancy(std::optional<int> registers = {}) const;

  /// The loops (structured or natural CFG loops) that contain `op`,
  /// innermost first.
  llvm::SmallVector<const LoopFacts *>
  enclosingLoops(mlir::Operation *op) const;

  /// Kernels of a module: gpu.func kernels and llvm.func with nvvm.kernel.
  static llvm::SmallVector<mlir::Operation *>
  findKernels(mlir::Operation *root);

private:
  void analyzeAccesses();
  /// Scalar llvm accesses at consecutive offsets of one pointer that the
  /// NVPTX backend merges into one vector access count as that access.
  void mergeAdjacentScalarAccesses();
  void analyzeControl();
  static std::optional<int64_t> cfgTripCount(mlir::Block *header,
                                             mlir::Operation *latch);

  /// A natural loop of an llvm-form kernel: its back edge, header and body.
  struct CFGLoop {
    mlir::Operation *latch;
    mlir::Block *header;
    llvm::SmallPtrSet<mlir::Block *, 16> blocks;
  };
  llvm::SmallVector<CFGLoop> loopBodies;

  mlir::Operation *kernel;
  std::string name;
  bool llvmForm = false;
};

/// One finding of the diagnosis.
struct Finding {
  std::string kind;     // e.g. "uncoalesced-access"
  std::string severity; // "info", "warning"
  mlir::Operation *op = nullptr;
  std::string message;
  std::string action; // suggested action category, e.g. "coalesce"
  llvm::json::Object evidence;
};

/// Turns the analysis of a kernel into findings, most important first.
llvm::SmallVector<Finding> diagnoseKernel(const KernelAnalysis &analysis);

/// The diagnosis document of a kernel (schema in docs/diagnosis.md).
llvm::json::Value toJSON(const KernelAnalysis &analysis,
                         llvm::ArrayRef<Finding> findings);

/// What the driver reports of a compiled kernel (cuFuncGetAttribute).
struct CompiledKernel {
  /// The kernel's name, with or without its module's ("module::kernel").
  std::string name;
  int64_t registers = 0;
  /// Local memory per thread: the IR's own allocations and ptxas' spills.
  int64_t localBytes = 0;
};

/// Adds to `diagnosis` (the kernels' documents, as toJSON writes them) what
/// only the compiled kernels tell: a `register-spill` warning on each kernel
/// whose local memory per thread exceeds what its IR allocates, the rest
/// being registers ptxas spilled (a GEMM kernel's epilogue past the 128
/// registers of two blocks per SM). Kernels the diagnosis does not name
/// are skipped. Returns the number of findings added.
unsigned addCompiledKernelFindings(llvm::json::Array &diagnosis,
                                   llvm::ArrayRef<CompiledKernel> kernels);

/// "file:line:col" of an operation, or "unknown".
std::string locationString(mlir::Operation *op);

} // namespace kf

#endif // KF_ANALYSIS_KERNELANALYSIS_H
