//===- ContractionSchedule.cpp - The pipelined GEMM kernel kind -----------===//

#include "kf/Schedule/ContractionSchedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;

namespace {
/// SMs of the H200 (and H100 SXM): the waves the model counts.
constexpr int64_t kNumSMs = 132;
/// Static shared memory per block (ptxas refuses more).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// Elements of one 16-byte copy of 4-byte elements.
constexpr int64_t kCopyVector = 4;
/// Per SM: registers, shared memory (228 KB, 1 KB of it reserved per
/// block), and at most 2048 threads.
constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kSharedBytesPerSM = 228 * 1024;
constexpr int64_t kThreadsPerSM = 2048;

/// Registers per thread of the GEMM kernel, as ptxas (CUDA 13, sm_90)
/// allocated them on the 4096^3 matmul: the accumulators, plus the operand
/// fragments of a K step, plus addressing; fitted on 128x128x16 (166),
/// 128x128x8 (128), 128x64x16 (108-112) and 64x64x16 (65). An estimate:
/// it decides how many blocks share an SM.
int64_t estimatedRegisters(const kf::ContractionTile &tile) {
  return tile.threadM * tile.threadN +
         (tile.threadM + tile.threadN) * (tile.blockK / 4 + 1) + 6;
}

/// Blocks of `tile` resident on one SM, limited by registers (allocated in
/// units of 8 per thread), shared memory and threads.
int64_t residentBlocks(const kf::ContractionTile &tile) {
  int64_t registers = (estimatedRegisters(tile) + 7) / 8 * 8;
  int64_t byRegisters = kRegistersPerSM / (registers * tile.numThreads());
  int64_t byShared = kSharedBytesPerSM / (tile.sharedBytes() + 1024);
  int64_t byThreads = kThreadsPerSM / tile.numThreads();
  return std::max<int64_t>(1, std::min({byRegisters, byShared, byThreads}));
}

std::string mapping(StringRef kind, char dim) {
  return llvm::formatv("#gpu.{0}<{1}>", kind, dim).str();
}
} // namespace

llvm::json::Value kf::toJSON(const ContractionTile &tile) {
  llvm::json::Object object{{"bm", tile.blockM},  {"bn", tile.blockN},
                            {"bk", tile.blockK},  {"tm", tile.threadM},
                            {"tn", tile.threadN}, {"stages", tile.stages}};
  if (tile.minBlocksPerSM > 0)
    object["min_blocks"] = tile.minBlocksPerSM;
  if (tile.blockGroup > 0)
    object["group"] = tile.blockGroup;
  if (!tile.interleave)
    object["interleave"] = false;
  return object;
}

bool kf::fromJSON(const llvm::json::Value &value, ContractionTile &tile,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("bm", tile.blockM) &&
         mapper.map("bn", tile.blockN) && mapper.map("bk", tile.blockK) &&
         mapper.map("tm", tile.threadM) && mapper.map("tn", tile.threadN) &&
         mapper.map("stages", tile.stages) &&
         mapper.mapOptional("min_blocks", tile.minBlocksPerSM) &&
         mapper.mapOptional("group", tile.blockGroup) &&
         mapper.mapOptional("interleave", tile.interleave);
}

std::optional<std::string>
kf::checkContractionTile(const ContractionLoops &loops,
                         const ContractionTile &tile) {
  auto say = [](const Twine &text) { return std::optional(text.str()); };
  if (tile.blockM <= 0 || tile.blockN <= 0 || tile.blockK <= 0 ||
      tile.threadM <= 0 || tile.threadN <= 0 || tile.stages < 2)
    return say("tiles must be positive and stages at least 2");
  if (loops.m % tile.blockM || loops.n % tile.blockN || loops.k % tile.blockK)
    return say(llvm::formatv("the block tile {0}x{1}x{2} does not divide the "
                             "contraction {3}x{4}x{5} (M x N x K)",
                             tile.blockM, tile.blockN, tile.blockK, loops.m,
                             loops.n, loops.k));
  if (tile.blockM % tile.threadM || tile.blockN % tile.threadN)
    return say("the thread tile must divide the block tile");
  int64_t threads = tile.numThreads();
  if (threads < 32 || threads > 1024)
    return say(
        llvm::formatv("{0} threads per block (32 to 1024 allowed)", threads));
  if (loops.k / tile.blockK < tile.stages)
    return say(llvm::formatv("{0} K steps are fewer than the {1} stages",
                             loops.k / tile.blockK, tile.stages));
  if (tile.minBlocksPerSM < 0 || tile.minBlocksPerSM > 4 ||
      tile.minBlocksPerSM * threads > 2048 ||
      tile.minBlocksPerSM * tile.sharedBytes() > 227 * 1024)
    return say(llvm::formatv("{0} blocks of {1} threads and {2} bytes of "
                             "shared memory do not fit on one SM",
                             tile.minBlocksPerSM, threads, tile.sharedBytes()));
  if (tile.blockGroup < 0 || tile.blockGroup > 64)
    return say(llvm::formatv("a block group of {0} tile rows (0 to 64 allowed)",
                             tile.blockGroup));
  if (tile.sharedBytes() > kMaxStaticSharedBytes)
    return say(llvm::formatv("the stages need {0} bytes of shared memory; at "
                             "most {1} can be declared statically",
                             tile.sharedBytes(), kMaxStaticSharedBytes));
  // Every thread copies whole 16-byte vectors of each operand tile.
  int64_t aElements = tile.blockM * tile.blockK;
  int64_t bElements = tile.blockK * tile.blockN;
  if (aElements % (threads * kCopyVector) ||
      bElements % (threads * kCopyVector))
    return say(llvm::formatv(
        "each operand tile ({0} and {1} elements) must split into 16-byte "
        "copies over the {2} threads",
        aElements, bElements, threads));
  auto tileOf = [&](unsigned loop) {
    return loop == loops.mLoop   ? tile.blockM
           : loop == loops.nLoop ? tile.blockN
           : loop == loops.kLoop ? tile.blockK
                                 : 1;
  };
  if (tileOf(loops.aContiguousLoop) % kCopyVector ||
      tileOf(loops.bContiguousLoop) % kCopyVector)
    return say("the contiguous side of each operand tile must be a multiple "
               "of 4 elements (16-byte copies)");
  if (loops.aRowLength % kCopyVector || loops.bRowLength % kCopyVector)
    return say(llvm::formatv("operand rows of {0} and {1} elements do not "
                             "all start 16-byte aligned (16-byte copies need "
                             "multiples of 4)",
                             loops.aRowLength, loops.bRowLength));
  return std::nullopt;
}

std::optional<kf::ContractionTile>
kf::defaultContractionTile(const ContractionLoops &loops) {
  SmallVector<ContractionTile> tiles = alternativeContractionTiles(loops);
  if (tiles.empty())
    return std::nullopt;
  return tiles.front();
}

SmallVector<kf::ContractionTile>
kf::alternativeContractionTiles(const ContractionLoops &loops) {
  int64_t batches = 1;
  for (int64_t size : loops.outerSizes)
    batches *= size;
  struct Scored {
    ContractionTile tile;
    double score;
  };
  SmallVector<Scored> scored;
  // 64x128 (4x8 outputs per thread) is left out: on the H200 it ran at
  // 0.53-0.70 of eager on every Level 1 contraction where 128x64 ran at
  // 0.82-1.18 (gpu/gemm-tile-sweep.sh, docs/perf-notes.md).
  for (auto [bm, bn] :
       {std::pair<int64_t, int64_t>{128, 128}, {128, 64}, {64, 64}}) {
    for (int64_t bk : {16, 8}) {
      ContractionTile tile;
      tile.blockM = bm;
      tile.blockN = bn;
      tile.blockK = bk;
      // 16 x 16 threads: 8 x 8 outputs each on 128 x 128.
      tile.threadM = bm / 16;
      tile.threadN = bn / 16;
      // As many stages as fit, up to 4.
      tile.stages = 4;
      while (tile.stages > 2 && (tile.sharedBytes() > kMaxStaticSharedBytes ||
                                 loops.k / bk < tile.stages))
        --tile.stages;
      if (checkContractionTile(loops, tile))
        continue;
      // The model, calibrated on the H200 (gpu/gemm-tile-sweep.sh): a
      // wave is as many blocks as the SMs hold at once; a grid that leaves
      // slots idle in its last wave wastes that fraction. A lone block per
      // SM (8 warps) hides too little latency: 128x128x16 (166 registers,
      // one block) ran 5% slower than 128x64x16 (two blocks) at 4096^3,
      // and 1.4-2x slower where the grid is short (large or small K).
      // Larger tiles re-read operands less (intensity ~ bm*bn/(bm+bn)),
      // which L2 mostly absorbs; a K step of 16 halves the barriers per FMA.
      int64_t blocks = batches * (loops.m / bm) * (loops.n / bn);
      int64_t resident = residentBlocks(tile);
      int64_t slots = kNumSMs * resident;
      int64_t waves = (blocks + slots - 1) / slots;
      double efficiency = double(blocks) / double(waves * slots);
      double intensity = double(bm * bn) / double(bm + bn) / 64.0;
      // Two stages hide less of the copies' latency than three, where
      // K has more steps than the ring buffer holds; where it holds all of
      // K (L1-9: K = 32, two steps of 16) there is nothing to hide, and the
      // 128x64x16 two-stage tile ran in 1.93 ms on the H100 against 3.21
      // for the 128x128x8 four-stage tile the penalty made the default.
      bool pipelineLimits = loops.k / bk > tile.stages;
      double score = efficiency * (0.8 + 0.2 * intensity) *
                     (resident >= 2 ? 1.0 : 0.85) * (bk == 16 ? 1.0 : 0.93) *
                     (tile.stages >= 3 || !pipelineLimits ? 1.0 : 0.85);
      // A K-major A tile (A's rows along M: a transposed input, or the
      // K-outer copy the default makes) is read by each thread as two
      // 16-byte vectors per k (as given, each thread holds its 8 rows
      // across 4 k). With it, 8x8 outputs per thread on
      // 128x128x8 ran the 4096^3 GEMM in 2.806 ms on the H100 against
      // 2.985 for 128x64x16 (8x4), where with A as [M, K] 128x64x16 was
      // the faster (3.124 against 3.366). Two blocks per SM are asked of
      // ptxas (128 registers): without the cap it takes 129, and one block.
      // Only where the GEMM is compute-bound (K of 1024 and more: with a
      // short K the output's writes dominate, as in L1-7 and L1-9).
      if (loops.aContiguousLoop == loops.mLoop &&
          loops.k >= kf::kMinComputeBoundK && tile.threadM == 8 &&
          tile.threadN == 8) {
        score *= 1.06;
        if (resident >= 2)
          tile.minBlocksPerSM = 2;
      }
      scored.push_back({tile, score});
    }
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const Scored &a, const Scored &b) { return a.score > b.score; });
  SmallVector<ContractionTile> tiles;
  for (const Scored &entry : scored)
    tiles.push_back(entry.tile);
  return tiles;
}

int64_t kf::splitKFactor(const ContractionLoops &loops,
                         const ContractionTile &tile) {
  int64_t blocks = (loops.m / tile.blockM) * (loops.n / tile.blockN);
  for (int64_t size : loops.outerSizes)
    blocks *= size;
  if (blocks >= kNumSMs || !loops.outerLoops.empty())
    return 0;
  // Two waves of blocks, each part keeping at least 512 of K (32 steps of
  // 16: enough for the pipeline to reach its steady state).
  int64_t factor = 1;
  while (blocks * factor < 2 * kNumSMs && loops.k % (factor * 2) == 0 &&
         loops.k / (factor * 2) >= 512)
    factor *= 2;
  return factor > 1 ? factor : 0;
}

SmallVector<int64_t, 3> kf::contractionBlockDims(const ContractionTile &tile) {
  return {tile.blockN / tile.threadN, tile.blockM / tile.threadM, 1};
}

namespace {
/// The per-thread vector shape of the copy of an operand tile of `shape`
/// (the contiguous dimension last) distributed by
/// transform.structured.gpu.map_copy_to_threads over `threads` threads with
/// 16-byte copies: threads go to the contiguous dimension first (4 elements
/// each), the rest to the next dimensions outwards.
SmallVector<int64_t> copyVectorShape(ArrayRef<int64_t> shape, int64_t threads) {
  SmallVector<int64_t> perThread(shape.begin(), shape.end());
  int64_t left = threads;
  for (int dim = shape.size() - 1; dim >= 0 && left > 1; --dim) {
    int64_t units =
        dim + 1 == (int)shape.size() ? shape[dim] / kCopyVector : shape[dim];
    // checkContractionTile guarantees whole vectors; never divide by 0.
    int64_t here = std::max<int64_t>(1, std::min(units, left));
    perThread[dim] =
        (units / here) * (dim + 1 == (int)shape.size() ? kCopyVector : 1);
    left /= here;
  }
  return perThread;
}

/// The 16-byte chunks of a row of operand `index`'s shared tile that one
/// thread reads together, when consecutive lanes read consecutive pieces
/// of that row: the thread tile along N (mapped to thread x) when N is the
/// operand's contiguous dimension (B), in chunks. 1 otherwise: rows along
/// K or M are read by lanes of one thread row (M goes to thread y), all at
/// one address per quarter-warp pass, which no layout can improve.
int64_t interleavedChunks(linalg::LinalgOp op, unsigned index,
                          const kf::ContractionLoops &loops,
                          const kf::ContractionTile &tile) {
  OpOperand *operand = op.getDpsInputOperand(index);
  AffineMap map = op.getMatchingIndexingMap(operand);
  auto type = dyn_cast<ShapedType>(operand->get().getType());
  if (!tile.interleave || map.getNumResults() == 0 || !type ||
      !type.getElementType().isIntOrFloat())
    return 1;
  int64_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (elementBytes == 0 || 16 % elementBytes)
    return 1;
  int64_t chunk = 16 / elementBytes;
  unsigned loop = cast<AffineDimExpr>(map.getResults().back()).getPosition();
  if (loop != loops.nLoop || tile.threadN % chunk)
    return 1;
  return tile.threadN / chunk;
}

/// The tile of operand `index` of the contraction as the block copies it.
SmallVector<int64_t> operandTile(linalg::LinalgOp op, unsigned index,
                                 const kf::ContractionLoops &loops,
                                 const kf::ContractionTile &tile) {
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(index));
  SmallVector<int64_t> shape;
  for (AffineExpr result : map.getResults()) {
    unsigned loop = cast<AffineDimExpr>(result).getPosition();
    if (loop == loops.mLoop)
      shape.push_back(tile.blockM);
    else if (loop == loops.nLoop)
      shape.push_back(tile.blockN);
    else if (loop == loops.kLoop)
      shape.push_back(tile.blockK);
    else
      shape.push_back(1);
  }
  return shape;
}
} // namespace

void kf::renderContractionTiling(llvm::raw_ostream &os, unsigned index,
                                 linalg::LinalgOp op,
                                 const ContractionLoops &loops,
                                 const ContractionTile &tile,
                                 StringRef fillHandle,
                                 StringRef epilogueHandle) {
  // Loops are mapped N -> x, M -> y, the larger outer loop -> z; tile sizes
  // and mapping entries follow the loop order.
  SmallVector<int64_t> blockTile(loops.numLoops, 0),
      threadTile(loops.numLoops, 0);
  SmallVector<int64_t> kTile(loops.numLoops, 0);
  SmallVector<std::string> blockMapping, threadMapping;
  for (unsigned loop = 0; loop < loops.numLoops; ++loop) {
    if (loop == loops.mLoop) {
      blockTile[loop] = tile.blockM;
      threadTile[loop] = tile.threadM;
      blockMapping.push_back(mapping("block", 'y'));
      threadMapping.push_back(mapping("thread", 'y'));
    } else if (loop == loops.nLoop) {
      blockTile[loop] = tile.blockN;
      threadTile[loop] = tile.threadN;
      blockMapping.push_back(mapping("block", 'x'));
      threadMapping.push_back(mapping("thread", 'x'));
    } else if (loop == loops.kLoop) {
      kTile[loop] = tile.blockK;
    } else {
      auto it = llvm::find(loops.outerLoops, loop);
      int64_t size = loops.outerSizes[it - loops.outerLoops.begin()];
      if (size > 1) {
        blockTile[loop] = 1;
        blockMapping.push_back(mapping("block", 'z'));
      }
    }
  }
  // The fill is tiled like the output (its dimensions are the output's):
  // each thread zeroes its own register tile.
  SmallVector<int64_t> fillTile;
  SmallVector<std::string> fillMapping;
  unsigned rank =
      cast<ShapedType>(op.getDpsInitOperand(0)->get().getType()).getRank();
  fillTile.assign(rank, 0);
  fillTile[loops.outputMDim] = tile.threadM;
  fillTile[loops.outputNDim] = tile.threadN;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (dim == loops.outputMDim)
      fillMapping.push_back(mapping("thread", 'y'));
    else if (dim == loops.outputNDim)
      fillMapping.push_back(mapping("thread", 'x'));

  int64_t threads = tile.numThreads();
  std::string i = std::to_string(index);
  // The epilogue's loops are the output's dimensions: it is tiled like the
  // output over blocks, then like the fill over threads.
  SmallVector<int64_t> epilogueBlockTile(rank, 0);
  SmallVector<std::string> epilogueBlockMapping;
  ArrayRef<int64_t> outputShape =
      cast<ShapedType>(op.getDpsInitOperand(0)->get().getType()).getShape();
  for (unsigned dim = 0; dim < rank; ++dim) {
    if (dim == loops.outputMDim) {
      epilogueBlockTile[dim] = tile.blockM;
      epilogueBlockMapping.push_back(mapping("block", 'y'));
    } else if (dim == loops.outputNDim) {
      epilogueBlockTile[dim] = tile.blockN;
      epilogueBlockMapping.push_back(mapping("block", 'x'));
    } else if (outputShape[dim] > 1) {
      epilogueBlockTile[dim] = 1;
      epilogueBlockMapping.push_back(mapping("block", 'z'));
    }
  }
  if (epilogueHandle.empty()) {
    os << "    %block" << i << ", %bforall" << i
       << " = transform.structured.tile_using_forall %op" << i
       << " tile_sizes [" << llvm::interleaved(blockTile) << "] (mapping = ["
       << llvm::interleaved(blockMapping)
       << "]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n";
  } else {
    // The contraction's tile is fused into each block's tile of the
    // epilogue through the tile's destination (the epilogue computes in
    // place on the contraction's result).
    os << "    %eblock" << i << ", %ebforall" << i
       << " = transform.structured.tile_using_forall " << epilogueHandle
       << " tile_sizes [" << llvm::interleaved(epilogueBlockTile)
       << "] (mapping = [" << llvm::interleaved(epilogueBlockMapping)
       << "]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n"
       << "    %block" << i << ", %bforall" << i
       << " = transform.structured.fuse_into_containing_op %op" << i
       << " into %ebforall" << i
       << " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n";
  }
  os << "    %gfill" << i << ", %gbforall" << i
     << " = transform.structured.fuse_into_containing_op " << fillHandle
     << " into %bforall" << i
     << " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, "
        "!transform.any_op)\n";
  os << "    %gfillt" << i << ", %gfforall" << i
     << " = transform.structured.tile_using_forall %gfill" << i
     << " tile_sizes [" << llvm::interleaved(fillTile) << "] (mapping = ["
     << llvm::interleaved(fillMapping)
     << "]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
  os << "    %gk" << i << ", %gkloop" << i
     << " = transform.structured.tile_using_for %block" << i << " tile_sizes ["
     << llvm::interleaved(kTile)
     << "] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
  // A and B tiles become static-shaped copies (nofold) in workgroup memory;
  // the output tile is written in place.
  auto padDims = llvm::to_vector(llvm::seq<int64_t>(0, loops.numLoops));
  os << "    %gpadded" << i << ", %gpad" << i << ", %gcopy" << i
     << " = transform.structured.pad %gk" << i
     << " {padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], "
        "padding_dimensions = ["
     << llvm::interleaved(padDims)
     << "], nofold_flags = [1, 1, 0], copy_back_op = \"none\"} : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op, "
        "!transform.any_op)\n";
  for (unsigned operand = 0; operand < 2; ++operand) {
    std::string name = (operand ? "B" : "A") + i;
    os << "    %gpad" << name << " = transform.get_producer_of_operand %gpadded"
       << i << "[" << operand
       << "] : (!transform.any_op) -> !transform.any_op\n";
    os << "    %gcopyforall" << name << ", %gcopytile" << name
       << " = transform.structured.gpu.map_copy_to_threads %gpad" << name
       << " total_num_threads = " << threads
       << " desired_bit_alignment = 128 : (!transform.any_op) -> "
          "(!transform.any_op, !transform.any_op)\n";
    os << "    transform.structured.vectorize %gcopytile" << name
       << " vector_sizes ["
       << llvm::interleaved(
              copyVectorShape(operandTile(op, operand, loops, tile), threads))
       << "] : !transform.any_op\n";
    os << "    %gsmem" << name << ", %gsmemops" << name
       << " = transform.structured.bufferize_to_allocation %gcopyforall" << name
       << " {memory_space = 3, bufferize_destination_only} : "
          "!transform.any_op\n";
    // Threads reading several 16-byte chunks of one row of this tile (8
    // contiguous columns of B) would start T x 16 bytes apart in a
    // quarter-warp: kf-interleave-shared-columns stores the chunks
    // interleaved (CUTLASS interleaves the thread's columns instead).
    if (int64_t chunks = interleavedChunks(op, operand, loops, tile);
        chunks > 1)
      os << "    %gsmemop" << name << " = transform.get_defining_op %gsmem"
         << name << " : (!transform.any_value) -> !transform.any_op\n"
         << "    %gilv" << name << " = transform.param.constant " << chunks
         << " : i64 -> !transform.any_param\n"
         << "    transform.annotate %gsmemop" << name
         << " \"kf.interleave_columns\" = %gilv" << name
         << " : !transform.any_op, !transform.any_param\n";
  }
  os << "    %gthread" << i << ", %gtforall" << i
     << " = transform.structured.tile_using_forall %gpadded" << i
     << " tile_sizes [" << llvm::interleaved(threadTile) << "] (mapping = ["
     << llvm::interleaved(threadMapping)
     << "]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
  os << "    transform.structured.vectorize %gthread" << i
     << " : !transform.any_op\n";
  os << "    transform.structured.vectorize %gfillt" << i
     << " : !transform.any_op\n";
  if (!epilogueHandle.empty())
    os << "    %ethread" << i << ", %etforall" << i
       << " = transform.structured.tile_using_forall %eblock" << i
       << " tile_sizes [" << llvm::interleaved(fillTile) << "] (mapping = ["
       << llvm::interleaved(fillMapping)
       << "]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n"
       << "    transform.structured.vectorize %ethread" << i
       << " : !transform.any_op\n";
  os << "    transform.apply_patterns to %gtforall" << i << " {\n"
     << "      transform.apply_patterns.vector.reduction_to_contract\n"
     << "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
     << "    } : !transform.any_op\n";
}

namespace {
/// Canonicalization with memref alias folding and CSE on `handle`: the
/// clean-up between the pipeline's steps.
std::string canonicalizeAndFold(StringRef handle) {
  return ("    transform.apply_patterns to " + handle +
          " {\n"
          "      transform.apply_patterns.canonicalization\n"
          "      transform.apply_patterns.memref.fold_memref_alias_ops\n"
          "    } {apply_cse} : !transform.any_op\n")
      .str();
}
} // namespace

void kf::renderContractionPipeline(llvm::raw_ostream &os, unsigned index,
                                   const ContractionTile &tile,
                                   StringRef funcHandle) {
  std::string i = std::to_string(index);
  // Hoisting consumes the function and so every handle inside it: each
  // step finds the launch again by the mark renderSchedule gave it.
  os << "    %gpre" << i
     << " = transform.structured.match attributes{kf.gemm_kernel" << i
     << "} in " << funcHandle
     << " : (!transform.any_op) -> !transform.any_op\n";
  os << "    transform.apply_patterns to %gpre" << i << " {\n"
     << "      transform.apply_patterns.gpu.eliminate_barriers\n"
     << "    } : !transform.any_op\n"
     << canonicalizeAndFold("%gpre" + i) << "    %ghoisted" << i
     << " = transform.structured.hoist_redundant_vector_transfers "
     << funcHandle
     << " : (!transform.any_op) -> !transform.any_op\n"
     // Upstream's hoisting gives up on an output buffer that has a view
     // anywhere (the epilogue kernel's tiles of it, the reshape of a
     // collapsed output); the accumulators were then loaded and stored at
     // every K step. kf-hoist-accumulators follows views to the buffer and
     // only asks that nothing else in the loop touches it.
     << "    %gkfhoisted" << i
     << " = transform.apply_registered_pass \"kf-hoist-accumulators\" to "
        "%ghoisted"
     << i
     << " : (!transform.any_op) -> !transform.any_op\n"
     // The fill's zeros and their reload as initial accumulators vanish.
     << "    %gforwarded" << i
     << " = transform.apply_registered_pass \"kf-forward-vector-transfers\" "
        "to %gkfhoisted"
     << i << " : (!transform.any_op) -> !transform.any_op\n"
     << "    %gcontract" << i
     << " = transform.structured.match attributes{kf.gemm_kernel" << i
     << "} in %gforwarded" << i
     << " : (!transform.any_op) -> !transform.any_op\n"
     << "    transform.apply_patterns to %gcontract" << i << " {\n"
     << "      transform.apply_patterns.vector.lower_contraction "
        "lowering_strategy = \"outerproduct\"\n"
     << "      transform.apply_patterns.vector.lower_outerproduct\n"
     << "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
     << "      transform.apply_patterns.vector.lower_transfer "
        "max_transfer_rank = 1\n"
     << "      transform.apply_patterns.canonicalization\n"
     << "    } {apply_cse} : !transform.any_op\n"
     // Operand tiles marked kf.interleave_columns (renderContractionTiling)
     // take their interleaved layout, copies and reads alike, before the
     // ring buffer is made (memref.multibuffer drops the mark).
     << "    %ginterleaved" << i
     << " = transform.apply_registered_pass \"kf-interleave-shared-columns\" "
        "to %gforwarded"
     << i << " : (!transform.any_op) -> !transform.any_op\n"
     << "    %glaunch" << i
     << " = transform.structured.match attributes{kf.gemm_kernel" << i
     << "} in %ginterleaved" << i
     << " : (!transform.any_op) -> !transform.any_op\n";
  // The ring buffer: each workgroup buffer gets `stages` slots.
  os << "    %gallocs" << i
     << " = transform.structured.match ops{[\"memref.alloc\"]} in %glaunch" << i
     << " : (!transform.any_op) -> !transform.op<\"memref.alloc\">\n"
     << "    %gmulti" << i << " = transform.memref.multibuffer %gallocs" << i
     << " {factor = " << tile.stages
     << ", skip_analysis} : (!transform.op<\"memref.alloc\">) -> "
        "!transform.any_op\n"
     << "    transform.apply_patterns to %glaunch" << i << " {\n"
     << "      transform.apply_patterns.vector.transfer_to_scf "
        "max_transfer_rank = 1 full_unroll = true\n"
     << "    } : !transform.any_op\n"
     << canonicalizeAndFold("%glaunch" + i) << "    %gcopies" << i
     << " = transform.nvgpu.create_async_groups %glaunch" << i
     << " {bypass_l1} : (!transform.any_op) -> !transform.any_op\n"
     << canonicalizeAndFold("%gcopies" + i)
     // The copies of A and B are two groups between barriers, as two thread
     // mappings left them; the pipeliner counts one group per stage.
     // kf-merge-async-copy-groups (a pass: the function is isolated from
     // above, the launch is not) makes them one and drops the barrier.
     << "    %gmerged" << i
     << " = transform.apply_registered_pass \"kf-merge-async-copy-groups\" "
        "to %ginterleaved"
     << i << " : (!transform.any_op) -> !transform.any_op\n"
     << "    %gasync" << i
     << " = transform.structured.match attributes{kf.gemm_kernel" << i
     << "} in %gmerged" << i << " : (!transform.any_op) -> !transform.any_op\n"
     << "    %gkloops" << i
     << " = transform.structured.match ops{[\"scf.for\"]} in %gasync" << i
     << " : (!transform.any_op) -> !transform.op<\"scf.for\">\n"
     // kf-pipeline-async-copies, not upstream's pipeline_shared_memory_copies:
     // upstream issues a stage's copies after the compute, into the slot
     // just read, which costs a second barrier per K step; kf's pass issues
     // them right after the wait's barrier into the slot read one iteration
     // earlier (CUTLASS's multistage loop), stages - 1 in flight either way.
     << "    transform.annotate %gkloops" << i
     << " \"kf.pipeline_copies\" : !transform.op<\"scf.for\">\n"
     << "    %gpipelined" << i
     << " = transform.apply_registered_pass \"kf-pipeline-async-copies\" to "
        "%gmerged"
     << i << " : (!transform.any_op) -> !transform.any_op\n"
     << "    %gkernel" << i
     << " = transform.structured.match attributes{kf.gemm_kernel" << i
     << "} in %gpipelined" << i
     << " : (!transform.any_op) -> !transform.any_op\n";
  if (tile.minBlocksPerSM > 0)
    os << "    %gattrs" << i
       << " = transform.param.constant {nvvm.minctasm = " << tile.minBlocksPerSM
       << " : i32} -> !transform.any_param\n"
       << "    transform.annotate %gkernel" << i
       << " \"kf.kernel_attrs\" = %gattrs" << i
       << " : !transform.any_op, !transform.any_param\n";
  // The block order is renumbered after the schedule, when the launch's
  // grid is known (kf-swizzle-block-order in the lowering).
  if (tile.blockGroup > 1)
    os << "    %ggroup" << i << " = transform.param.constant "
       << tile.blockGroup << " : i64 -> !transform.any_param\n"
       << "    transform.annotate %gkernel" << i
       << " \"kf.block_group\" = %ggroup" << i
       << " : !transform.any_op, !transform.any_param\n";
  // The transfers left (the output tile's stores, the shared-memory reads)
  // become plain vector loads and stores, which kf-annotate-vector-alignment
  // can prove 16-byte aligned: 128-bit stores instead of 32-bit ones.
  os << "    transform.apply_patterns to %gkernel" << i << " {\n"
     << "      transform.apply_patterns.vector.lower_transfer "
        "max_transfer_rank = 1\n"
     << "    } : !transform.any_op\n";
}
