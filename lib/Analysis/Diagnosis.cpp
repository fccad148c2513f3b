//===- Diagnosis.cpp - Findings and JSON from kernel analyses -------------===//

#include "kf/Analysis/KernelAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kf;

/// H200: 132 SMs x 2048 resident threads.
static constexpr int64_t kThreadSlots = 132 * 2048;
/// Bytes that must be in flight per SM to sustain the copy bandwidth
/// (Little's law): 4.27 TB/s x ~700 ns of DRAM latency / 132 SMs.
static constexpr int64_t kBytesInFlightPerSM = 22600;

SmallVector<Finding> kf::diagnoseKernel(const KernelAnalysis &analysis) {
  SmallVector<Finding> findings;
  auto add = [&](StringRef kind, StringRef severity, Operation *op,
                 std::string message, StringRef action,
                 llvm::json::Object evidence = llvm::json::Object()) {
    findings.push_back({kind.str(), severity.str(), op, std::move(message),
                        action.str(), std::move(evidence)});
  };

  // Parallelism and occupancy, from the launch configuration.
  if (analysis.blockSize) {
    const auto &block = *analysis.blockSize;
    int64_t threads = block[0] * block[1] * block[2];
    if (threads < 64)
      add("small-blocks", "warning", analysis.getKernel(),
          llvm::formatv("blocks of {0} threads: fewer than two warps per "
                        "block leave most of an SM idle",
                        threads),
          "increase-parallelism",
          llvm::json::Object{{"threads_per_block", threads}});
    if (analysis.gridSize) {
      const auto &grid = *analysis.gridSize;
      int64_t total = threads * grid[0] * grid[1] * grid[2];
      if (total < kThreadSlots / 4)
        add("low-parallelism", "warning", analysis.getKernel(),
            llvm::formatv("the grid has {0} threads, {1}% of the H200's {2} "
                          "resident-thread slots: too little work in flight "
                          "to hide memory latency (split the work, e.g. the "
                          "reduction, over more threads)",
                          total,
                          (100 * total + kThreadSlots / 2) / kThreadSlots,
                          kThreadSlots),
            "increase-parallelism",
            llvm::json::Object{{"grid_threads", total},
                               {"thread_slots", kThreadSlots}});
    }
    if (auto occupancy = analysis.occupancy();
        occupancy && occupancy->fraction < 0.5)
      add("low-occupancy", "info", analysis.getKernel(),
          llvm::formatv("at most {0} blocks per SM ({1}% occupancy), limited "
                        "by {2}",
                        occupancy->blocksPerSM,
                        (int)(occupancy->fraction * 100 + 0.5),
                        occupancy->limitedBy),
          "increase-occupancy",
          llvm::json::Object{{"blocks_per_sm", occupancy->blocksPerSM},
                             {"occupancy", occupancy->fraction}});
  }

  for (const MemoryAccess &access : analysis.accesses) {
    StringRef kind = access.isStore ? "store" : "load";
    if (access.space == MemorySpace::Global) {
      if (access.pattern == AccessPattern::Strided)
        add("uncoalesced-access", "warning", access.op,
            llvm::formatv("uncoalesced global {0}: consecutive threads are {1} "
                          "elements apart, about {2}% of the bytes moved are "
                          "used",
                          kind, *access.elementStride,
                          (int)(access.efficiency * 100 + 0.5)),
            "coalesce",
            llvm::json::Object{{"stride_elements", *access.elementStride},
                               {"efficiency", access.efficiency}});
      else if (access.pattern == AccessPattern::Coalesced &&
               access.vectorWidth * access.elementBytes < 16 &&
               access.elementBytes * 2 <= 16)
        add("narrow-access", "info", access.op,
            llvm::formatv("coalesced {0}-byte global {1}s: {2}-byte vector "
                          "accesses move the same bytes with fewer "
                          "instructions",
                          access.vectorWidth * access.elementBytes, kind, 16),
            "vectorize",
            llvm::json::Object{{"bytes_per_thread",
                                access.vectorWidth * access.elementBytes}});
      if (!access.isStore && access.loop) {
        std::optional<int64_t> trips;
        for (const LoopFacts &facts : analysis.loops)
          if (facts.op == access.loop)
            trips = facts.tripCount;
        if (access.loopInvariantAddress)
          add("loop-invariant-load", "warning", access.op,
              llvm::formatv("global load of the same address in every "
                            "iteration of a loop{0}: hoist it out of the loop",
                            trips ? llvm::formatv(" of {0} trips", *trips).str()
                                  : std::string()),
              "hoist",
              llvm::json::Object{
                  {"trip_count", trips ? llvm::json::Value(*trips) : nullptr}});
        else if (access.pattern == AccessPattern::Broadcast)
          add("broadcast-reload", "warning", access.op,
              llvm::formatv(
                  "every thread loads the same value in each "
                  "iteration of a loop{0}: the block re-reads data it "
                  "could stage once in shared memory",
                  trips ? llvm::formatv(" of {0} trips", *trips).str()
                        : std::string()),
              "stage-in-shared-memory",
              llvm::json::Object{
                  {"trip_count", trips ? llvm::json::Value(*trips) : nullptr}});
      }
    } else if (access.space == MemorySpace::Shared &&
               access.bankConflictWays > 1) {
      add("bank-conflict", "warning", access.op,
          llvm::formatv("{0}-way shared-memory bank conflict: consecutive "
                        "threads are {1} words apart (pad each row by one "
                        "element)",
                        access.bankConflictWays, *access.elementStride),
          "pad-shared-memory",
          llvm::json::Object{{"ways", (int64_t)access.bankConflictWays},
                             {"stride_words", *access.elementStride}});
    }
  }

  // Memory-level parallelism of loops: a loop whose iterations each issue
  // one or two global loads keeps that many requests per warp in flight
  // (the loop-carried work waits for them). Resident warps times those
  // bytes, against what the bandwidth needs in flight.
  int64_t residentWarps = 64;
  if (auto occupancy = analysis.occupancy(); occupancy && analysis.blockSize) {
    const auto &block = *analysis.blockSize;
    residentWarps =
        occupancy->blocksPerSM * ((block[0] * block[1] * block[2] + 31) / 32);
  }
  for (const LoopFacts &loop : analysis.loops) {
    if (loop.tripCount && *loop.tripCount < 16)
      continue;
    int64_t loads = 0, warpBytes = 0;
    for (const MemoryAccess &access : analysis.accesses) {
      if (access.loop != loop.op || access.isStore ||
          access.space != MemorySpace::Global || access.loopInvariantAddress)
        continue;
      ++loads;
      int64_t bytes = access.elementBytes * access.vectorWidth;
      warpBytes +=
          access.pattern == AccessPattern::Broadcast ? bytes : 32 * bytes;
    }
    if (loads == 0 || loads > 2)
      continue;
    int64_t inFlight = residentWarps * warpBytes;
    if (inFlight >= kBytesInFlightPerSM)
      continue;
    add("few-loads-in-flight", "warning", loop.op,
        llvm::formatv(
            "each iteration of this loop{0} issues {1} global "
            "load(s): {2} resident warps per SM keep about {3} "
            "bytes in flight, under the {4} the H200 needs to reach "
            "its bandwidth; unroll the loop or give each thread "
            "more independent loads",
            loop.tripCount
                ? llvm::formatv(" of {0} trips", *loop.tripCount).str()
                : std::string(),
            loads, residentWarps, inFlight, kBytesInFlightPerSM),
        "increase-memory-parallelism",
        llvm::json::Object{{"loads_per_iteration", loads},
                           {"resident_warps", residentWarps},
                           {"bytes_in_flight", inFlight},
                           {"bytes_needed", kBytesInFlightPerSM}});
  }

  for (Operation *barrier : analysis.divergentBarriers)
    add("barrier-in-divergent-branch", "warning", barrier,
        "a barrier that only some threads of the block reach: the block can "
        "deadlock or read unsynchronized data",
        "restructure-control-flow");
  for (Operation *branch : analysis.divergentBranches)
    add("divergent-branch", "info", branch,
        "the branch condition depends on the thread id: threads of a warp may "
        "take different paths",
        "restructure-control-flow");
  for (Operation *allocation : analysis.localAllocations)
    add("local-memory", "warning", allocation,
        "allocates per-thread memory that lives in local (off-chip) memory",
        "avoid-local-memory",
        llvm::json::Object{{"local_bytes", analysis.localBytes}});
  return findings;
}

llvm::json::Value kf::toJSON(const KernelAnalysis &analysis,
                             ArrayRef<Finding> findings) {
  auto dims =
      [](const std::optional<std::array<int64_t, 3>> &d) -> llvm::json::Value {
    if (!d)
      return nullptr;
    return llvm::json::Array{(*d)[0], (*d)[1], (*d)[2]};
  };
  llvm::json::Array accesses, loops, findingsJSON;
  for (const MemoryAccess &access : analysis.accesses)
    accesses.push_back(llvm::json::Object{
        {"location", locationString(access.op)},
        {"kind", access.isStore ? "store" : "load"},
        {"space", stringifyMemorySpace(access.space)},
        {"type", access.typeName},
        {"pattern", stringifyAccessPattern(access.pattern)},
        {"stride_elements", access.elementStride
                                ? llvm::json::Value(*access.elementStride)
                                : nullptr},
        {"vector_width", access.vectorWidth},
        {"element_bytes", access.elementBytes},
        {"efficiency", access.efficiency},
        {"bank_conflict_ways", access.bankConflictWays},
        {"in_loop", access.loop != nullptr},
        {"loop_invariant_address", access.loopInvariantAddress}});
  for (const LoopFacts &loop : analysis.loops)
    loops.push_back(llvm::json::Object{
        {"location", locationString(loop.op)},
        {"trip_count",
         loop.tripCount ? llvm::json::Value(*loop.tripCount) : nullptr},
        {"thread_dependent_bounds", loop.threadDependentBounds},
        {"global_loads", loop.globalLoads}});
  for (const Finding &finding : findings)
    findingsJSON.push_back(
        llvm::json::Object{{"kind", finding.kind},
                           {"severity", finding.severity},
                           {"location", locationString(finding.op)},
                           {"message", finding.message},
                           {"action", finding.action},
                           {"evidence", llvm::json::Object(finding.evidence)}});
  llvm::json::Object object{
      {"kernel", analysis.getName().str()},
      {"form", analysis.isLLVMForm() ? "llvm" : "gpu"},
      {"location", locationString(analysis.getKernel())},
      {"block", dims(analysis.blockSize)},
      {"grid", dims(analysis.gridSize)},
      {"shared_bytes", analysis.sharedBytes},
      {"local_bytes", analysis.localBytes},
      {"barriers", analysis.barriers},
      {"divergent_branches", (int64_t)analysis.divergentBranches.size()},
      {"loops", std::move(loops)},
      {"accesses", std::move(accesses)},
      {"findings", std::move(findingsJSON)}};
  if (auto occupancy = analysis.occupancy())
    object["occupancy"] =
        llvm::json::Object{{"blocks_per_sm", occupancy->blocksPerSM},
                           {"fraction", occupancy->fraction},
                           {"limited_by", occupancy->limitedBy}};
  return object;
}
