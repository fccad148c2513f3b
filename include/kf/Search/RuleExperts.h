//===- RuleExperts.h - kf's built-in experts: mutations and seeds ---------===//
//
// The rule-based experts of the search: each island's expert has a focus
// (memory, compute, parallelism, structure) and mutates a parent genome by
// one action of that focus; they also give the search its first seeds and
// fit genomes found for other problems (the experience library's) to this
// one. What to try is theirs; the loop that tries it is Search.h's.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_RULEEXPERTS_H
#define KF_SEARCH_RULEEXPERTS_H

#include "kf/Schedule/Schedule.h"

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kf {

/// One of `values`, drawn uniformly by `rng`.
template <typename T>
const T &pickRandom(llvm::ArrayRef<T> values, std::mt19937_64 &rng) {
  return values[std::uniform_int_distribution<size_t>(0,
                                                      values.size() - 1)(rng)];
}

/// What an expert focuses on; island i uses focus i modulo the count.
enum class ExpertFocus { Memory, Compute, Parallelism, Structure };
llvm::StringRef stringifyExpertFocus(ExpertFocus focus);

/// What one mutation changes. The experience library keeps outcome
/// statistics per (diagnosis trigger, action) and weights the actions an
/// expert tries by them.
enum class MutationAction {
  /// Vector width of an op's innermost loop (16-byte loads and stores).
  VectorWidth,
  /// Register accumulation of a reduction in vectorized steps.
  ReductionStep,
  /// Threads per block along one loop (and the block tile with it).
  Threads,
  /// Split a reduction across threads and blocks (or change the split).
  SplitReduction,
  /// Fuse elementwise producers into their consumers, or undo it.
  FuseElementwise,
  /// Collapse adjacent reduction loops, or undo it.
  CollapseReductions,
  /// Decompose reductions over several loops, or undo it.
  DecomposeReductions,
  /// Stage an op's input tiles in shared memory with a register tile per
  /// thread, or change its tiles (block, thread, reduction stage, step).
  StageOperands,
  /// Change which GEMM-kernel operands with rows along K get K-outer copies
  /// (none, B, A and B).
  TransposeOperands,
  /// Fuse the elementwise ops after each GEMM-kernel contraction into its
  /// kernel, or give them kernels of their own.
  FuseEpilogues,
  /// Compute a GEMM's row sums as matrix-vector products, or not.
  CommuteSums,
  /// Share a contiguous reduction among the lanes of a warp or a block, or
  /// change how many lanes share it.
  ReductionLanes,
  /// Compute convolutions as an im2col matrix and a GEMM, or directly.
  ConvolutionsAsGemm,
  /// Run the lane reductions a row-wise op reads in that op's kernel (row
  /// groups, Schedule::fuseReductions), or give them kernels of their own.
  FuseReductions,
  /// Compute softmax statistics per chunk of the row (the split_softmax
  /// gene, kf-split-softmax-statistics), or over whole rows.
  SplitSoftmaxStatistics,
};
llvm::StringRef stringifyMutationAction(MutationAction action);
/// The actions an expert of `focus` chooses among.
llvm::ArrayRef<MutationAction> actionsOf(ExpertFocus focus);

/// The ops a schedule's structure genes (fusion, collapsing, splits) make
/// of the reference, with their default mappings; std::nullopt when the
/// genes do not apply.
using RestructureFn =
    std::function<std::optional<Restructured>(const Schedule &)>;

/// One proposal: a mutated genome, the action and what was changed, in
/// words.
struct Proposal {
  Schedule genome;
  MutationAction action;
  std::string change;
};

/// Applies `action` to a random op of `parent` (whose ops and their shapes
/// `structure` describes). Proposals keep tiles that divide their loops
/// when a vector width or reduction step needs static tiles; others may
/// still be illegal, which compiling finds out. A structure change gives
/// the new ops the parent's mapping where an op's shape is unchanged, the
/// default mapping elsewhere. std::nullopt when the action does not apply.
std::optional<Proposal> proposeMutation(const Schedule &parent,
                                        const Restructured &structure,
                                        MutationAction action,
                                        std::mt19937_64 &rng,
                                        const RestructureFn &restructure);

/// The rule-based experts' starting points besides the default schedule:
/// every op vectorized where its loops allow ("vectorized": elementwise ops
/// 4-wide, reductions in register steps of 8), and, for reductions over
/// 8192 elements or more, elementwise producers fused, reduction loops
/// collapsed, reductions still over several loops decomposed (when that
/// applies) and each long reduction split so that outputs x split fill
/// about half the GPU's resident threads (at least 256 ways, at most 8192;
/// the largest power of two up to that which divides it, or the largest
/// divisor when no power of two does), with the other
/// ops vectorized ("split-reductions"; also made when only the
/// decomposition applies, or when a contiguous reduction gets reduction
/// lanes: those are not split, and the seed is then the fused,
/// lane-shared form). Seeds whose genes do not apply are left out.
std::vector<std::pair<std::string, Schedule>>
expertSeeds(const Schedule &defaultSchedule, const RestructureFn &restructure);

/// Fits a genome found for another problem to this one: the same
/// structure genes, with each split reduction split as the expert seeds
/// split it for this problem's parallelism (the largest factor up to the
/// old one that divides the new reduction when that rule finds none), each
/// op's threads and tiles clamped to its
/// loops, vector widths and reduction steps kept where they divide.
/// std::nullopt when the op counts or loop ranks differ.
std::optional<Schedule> adaptGenome(const Schedule &genome,
                                    const RestructureFn &restructure);

} // namespace kf

#endif // KF_SEARCH_RULEEXPERTS_H
