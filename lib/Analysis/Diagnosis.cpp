//===- Diagnosis.cpp - Findings and JSON from kernel analyses -------------===//

#include "kf/Analysis/KernelAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kf;

/// H200: 132 SMs x 2048 resident threads.
static constexpr int64_t kThreadSlots = 132 * 2048;
/// Bytes that must be in flight per SM to sustain the copy bandwidth
/// (Little's law): 4.27 TB/s x ~700 ns of DRAM latency / 132 SMs.
static constexpr int64_t kBytesInFlightPerSM = 22600;
/// A loop whose shared-memory wavefronts cap it below this fraction of the
/// FMA peak is reported.
static constexpr double kSharedBoundFraction = 0.9;

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
               access.bankConflictWays > 1 && access.wavefronts) {
      add("bank-conflict", "warning", access.op,
          llvm::formatv("{0}-way shared-memory bank conflict: a warp's {1} "
                        "{2} takes {3} wavefronts where {4} would do "
                        "(threads {5} elements apart along x, {6} along y); "
                        "pad or swizzle the shared tile, or interleave the "
                        "elements each thread reads",
                        access.bankConflictWays, access.typeName, kind,
                        access.wavefronts->wavefronts,
                        access.wavefronts->passes, *access.elementStride,
                        access.elementStrideY.value_or(0)),
          "pad-shared-memory",
          llvm::json::Object{
              {"ways", (int64_t)access.bankConflictWays},
              {"wavefronts", access.wavefronts->wavefronts},
              {"passes", access.wavefronts->passes},
              {"stride_elements", *access.elementStride},
              {"stride_y_elements", access.elementStrideY.value_or(0)}});
    }
  }

  // Issue balance of loops that multiply operands read from shared memory
  // (register-tiled GEMMs): an SM issues four warp-wide FMAs per cycle (128
  // lanes) and serves one shared-memory wavefront per cycle, so a loop whose
  // warps need more wavefronts than a quarter of their FMAs cannot keep the
  // FMA pipes busy, whatever the occupancy.
  for (const LoopFacts &loop : analysis.loops) {
    if (loop.fmaPerThread == 0 || !loop.sharedLoadWavefronts)
      continue;
    double fmaCycles = loop.fmaCycles();
    double bound = loop.fmaPeakBound();
    if (bound >= kSharedBoundFraction)
      continue;
    add("shared-memory-bound", "warning", loop.op,
        llvm::formatv("each iteration of this loop does {0} FMAs per thread "
                      "({1:F0} cycles of the SM's FMA pipes per warp) but its "
                      "shared-memory loads take {2} wavefronts per warp: at "
                      "most {3}% of the FMA peak; compute more outputs per "
                      "thread from each operand read (a larger register "
                      "tile) or read fewer bytes per FMA",
                      loop.fmaPerThread, fmaCycles, *loop.sharedLoadWavefronts,
                      (int)(bound * 100 + 0.5)),
        "enlarge-register-tile",
        llvm::json::Object{{"fma_per_thread", loop.fmaPerThread},
                           {"shared_wavefronts", *loop.sharedLoadWavefronts},
                           {"fma_peak_bound", bound}});
  }

  // Asynchronous copies waited for as soon as they are issued overlap
  // nothing with the arithmetic.
  if (analysis.asyncCopies > 0 && analysis.asyncPipelineDepth == 1u)
    add("unpipelined-async-copy", "info", analysis.getKernel(),
        llvm::formatv("{0} cp.async copies, each waited for before the next "
                      "group is issued: a pipeline of 2 or more stages "
                      "overlaps the copies with the arithmetic",
                      analysis.asyncCopies),
        "pipeline-copies",
        llvm::json::Object{{"async_copies", (int64_t)analysis.asyncCopies}});

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

  // Unrolled and peeled code repeats an access many times at one source
  // location: one finding per kind, location and message, with the count.
  SmallVector<Finding> distinct;
  llvm::StringMap<size_t> firstOf;
  llvm::SmallVector<int64_t> occurrences;
  for (Finding &finding : findings) {
    std::string key = finding.kind + "\n" +
                      (finding.op ? locationString(finding.op) : "") + "\n" +
                      finding.message;
    auto [it, inserted] = firstOf.try_emplace(key, distinct.size());
    if (inserted) {
      distinct.push_back(std::move(finding));
      occurrences.push_back(1);
    } else {
      ++occurrences[it->second];
    }
  }
  for (auto [finding, count] : llvm::zip(distinct, occurrences))
    if (count > 1)
      finding.evidence["occurrences"] = count;
  return distinct;
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
        {"stride_y_elements", access.elementStrideY
                                  ? llvm::json::Value(*access.elementStrideY)
                                  : nullptr},
        {"wavefronts", access.wavefronts
                           ? llvm::json::Value(access.wavefronts->wavefronts)
                           : nullptr},
        {"bank_conflict_ways", access.bankConflictWays},
        {"in_loop", access.loop != nullptr},
        {"loop_invariant_address", access.loopInvariantAddress}});
  for (const LoopFacts &loop : analysis.loops)
    loops.push_back(llvm::json::Object{
        {"location", locationString(loop.op)},
        {"trip_count",
         loop.tripCount ? llvm::json::Value(*loop.tripCount) : nullptr},
        {"thread_dependent_bounds", loop.threadDependentBounds},
        {"global_loads", loop.globalLoads},
        {"fma_per_thread", loop.fmaPerThread},
        {"shared_wavefronts",
         loop.sharedLoadWavefronts
             ? llvm::json::Value(*loop.sharedLoadWavefronts)
             : nullptr}});
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
      {"async_copies", analysis.asyncCopies},
      {"pipeline_depth", analysis.asyncPipelineDepth
                             ? llvm::json::Value(*analysis.asyncPipelineDepth)
                             : nullptr},
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

unsigned kf::addCompiledKernelFindings(llvm::json::Array &diagnosis,
                                       llvm::ArrayRef<CompiledKernel> kernels) {
  unsigned added = 0;
  for (const CompiledKernel &kernel : kernels) {
    llvm::StringRef name = kernel.name;
    if (size_t colons = name.rfind("::"); colons != llvm::StringRef::npos)
      name = name.drop_front(colons + 2);
    for (llvm::json::Value &value : diagnosis) {
      llvm::json::Object *document = value.getAsObject();
      if (!document || document->getString("kernel") != name)
        continue;
      int64_t allocated = document->getInteger("local_bytes").value_or(0);
      int64_t spilled = kernel.localBytes - allocated;
      if (spilled <= 0)
        break;
      llvm::json::Array *findings = document->getArray("findings");
      if (!findings)
        break;
      findings->push_back(llvm::json::Object{
          {"kind", "register-spill"},
          {"severity", "warning"},
          {"location", document->getString("location").value_or("unknown")},
          {"message",
           llvm::formatv("the compiled kernel keeps {0} bytes per thread in "
                         "local (off-chip) memory beyond its own allocations "
                         "({1} registers): ptxas spilled registers",
                         spilled, kernel.registers)
               .str()},
          {"action", "shrink-register-tile"},
          {"evidence", llvm::json::Object{{"registers", kernel.registers},
                                          {"local_bytes", kernel.localBytes},
                                          {"spilled_bytes", spilled}}}});
      ++added;
      break;
    }
  }
  return added;
}
