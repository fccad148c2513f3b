//===- ProblemAnalysis.cpp - Work and traffic of a problem ----------------===//

#include "kf/Analysis/ProblemAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

llvm::Expected<kf::Ceilings> kf::Ceilings::load(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError(
        file.getError(), "cannot read ceilings file '%s': %s",
        path.str().c_str(), file.getError().message().c_str());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "ceilings file '%s' is not JSON: %s",
        path.str().c_str(), llvm::toString(json.takeError()).c_str());
  Ceilings ceilings;
  llvm::json::Path::Root root(path);
  llvm::json::ObjectMapper mapper(*json, root);
  if (!mapper || !mapper.mapOptional("device", ceilings.device) ||
      !mapper.mapOptional("copy_bytes_per_second",
                          ceilings.copyBytesPerSecond) ||
      !mapper.mapOptional("fp32_flops_per_second",
                          ceilings.fp32FlopsPerSecond) ||
      !mapper.mapOptional("fp32_peak_flops_per_second",
                          ceilings.fp32PeakFlopsPerSecond) ||
      !mapper.mapOptional("bf16_flops_per_second",
                          ceilings.bf16FlopsPerSecond) ||
      !mapper.mapOptional("l2_bytes", ceilings.l2Bytes) ||
      !mapper.mapOptional("shared_bytes_per_block",
                          ceilings.sharedBytesPerBlock))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ceilings file '%s': %s", path.str().c_str(),
                                   llvm::toString(root.getError()).c_str());
  if (ceilings.copyBytesPerSecond <= 0 || ceilings.fp32FlopsPerSecond <= 0 ||
      ceilings.fp32PeakFlopsPerSecond <= 0 || ceilings.l2Bytes < 0 ||
      ceilings.sharedBytesPerBlock < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ceilings file '%s': rates must be positive",
                                   path.str().c_str());
  return ceilings;
}

static int64_t bytesOf(Type type) {
  auto shaped = cast<ShapedType>(type);
  unsigned bits = shaped.getElementType().getIntOrFloatBitWidth();
  return shaped.getNumElements() * std::max(1u, bits / 8);
}

/// Floating-point operations one iteration of a linalg body performs.
static int64_t flopsPerIteration(linalg::LinalgOp op) {
  int64_t flops = 0;
  op.getBlock()->walk([&](Operation *inner) {
    if (inner->getNumResults() != 1 ||
        !isa<FloatType>(inner->getResult(0).getType()))
      return;
    if (isa<math::FmaOp>(inner))
      flops += 2;
    else if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
                 arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp,
                 arith::MaxNumFOp, arith::MinNumFOp, arith::NegFOp>(inner) ||
             inner->getDialect()->getNamespace() == "math")
      flops += 1;
  });
  return flops;
}

llvm::StringRef kf::classifyLinalgOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return "other";
  if (isa<linalg::FillOp>(op))
    return "fill";
  if (linalg::isaContractionOpInterface(linalgOp) ||
      isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return "contraction";
  if (linalgOp.getNumReductionLoops() > 0)
    return "reduction";
  if (linalgOp.getNumLoops() == linalgOp.getNumParallelLoops())
    return "elementwise";
  return "other";
}

namespace {
/// Counts the passes over each input that the computation as written needs.
/// Ops run in stages: a stage ends where a reduction whose reduced slice
/// (per result element) exceeds one block's on-chip memory must complete
/// before its result is used; everything else fuses into the stage of its
/// consumer, recomputed there rather than stored (elementwise producers and
/// reshapes cost nothing to recompute next to the traffic they would save).
class PassCounter {
public:
  PassCounter(const kf::Ceilings &ceilings) : ceilings(ceilings) {}

  /// Records the inputs `value` reads when computed in `stage`.
  void visit(Value value, unsigned stage) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (isa<ShapedType>(arg.getType()))
        stagesOfInput[arg.getArgNumber()].insert(stage);
      return;
    }
    Operation *producer = value.getDefiningOp();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
        linalgOp && linalgOp.getNumReductionLoops() > 0) {
      // A reduction runs in its own stage, once, whoever uses it.
      unsigned own = stageOf(producer);
      if (visitedReductions.insert(producer).second)
        for (Value operand : producer->getOperands())
          visit(operand, own);
      return;
    }
    for (Value operand : producer->getOperands())
      visit(operand, stage);
  }

  /// The stage an op's result is complete in.
  unsigned stageOf(Operation *op) {
    if (auto it = stages.find(op); it != stages.end())
      return it->second;
    unsigned stage = 0;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer)
        continue;
      unsigned after = stageOf(producer);
      if (isBarrier(producer))
        ++after;
      stage = std::max(stage, after);
    }
    return stages[op] = stage;
  }

  llvm::DenseMap<unsigned, llvm::SmallSet<unsigned, 4>> stagesOfInput;

private:
  /// A reduction whose reduced slice one block cannot hold: its consumers
  /// must wait for all of it, so they read their inputs in a later pass.
  bool isBarrier(Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || linalgOp.getNumReductionLoops() == 0)
      return false;
    int64_t sliceElements = 1;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    for (auto [range, kind] :
         llvm::zip(ranges, linalgOp.getIteratorTypesArray()))
      if (kind == utils::IteratorType::reduction)
        sliceElements *= ShapedType::isDynamic(range) ? 1 : range;
    double sliceBytes = 0;
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      if (auto shaped = dyn_cast<ShapedType>(input->get().getType()))
        sliceBytes += double(sliceElements) *
                      std::max(1u, shaped.getElementTypeBitWidth() / 8);
    return sliceBytes > ceilings.sharedBytesPerBlock;
  }

  const kf::Ceilings &ceilings;
  llvm::DenseMap<Operation *, unsigned> stages;
  llvm::SmallPtrSet<Operation *, 8> visitedReductions;
};
} // namespace

kf::ProblemAnalysis kf::analyzeProblem(func::FuncOp reference,
                                       const Ceilings &ceilings) {
  ProblemAnalysis analysis;
  analysis.computationKnown = !reference.isExternal();
  for (Type type : reference.getArgumentTypes())
    analysis.minBytes += bytesOf(type);
  for (Type type : reference.getResultTypes()) {
    analysis.minBytes += bytesOf(type);
    analysis.floorBytes += bytesOf(type);
  }
  PassCounter counter(ceilings);
  reference.walk([&](func::ReturnOp ret) {
    for (Value result : ret.getOperands())
      if (Operation *producer = result.getDefiningOp())
        counter.visit(result, counter.stageOf(producer));
      else
        counter.visit(result, 0);
  });
  for (auto [index, type] : llvm::enumerate(reference.getArgumentTypes())) {
    InputPasses passes;
    passes.argument = index;
    passes.bytes = bytesOf(type);
    auto it = counter.stagesOfInput.find(index);
    unsigned stages = it == counter.stagesOfInput.end() ? 1 : it->second.size();
    passes.passes = double(passes.bytes) > ceilings.l2Bytes ? stages : 1;
    analysis.floorBytes += passes.passes * passes.bytes;
    analysis.inputPasses.push_back(passes);
  }
  reference.walk([&](linalg::LinalgOp op) {
    ++analysis.numLinalgOps;
    ++analysis.opClasses[classifyLinalgOp(op)];
    // Each result another linalg op consumes is an intermediate an eager
    // framework materializes (fills feed accumulators and are free to fuse).
    if (!isa<linalg::FillOp>(op))
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (isa<linalg::LinalgOp>(user)) {
            analysis.fusionChances.push_back(
                {op, user, bytesOf(result.getType())});
            break;
          }
    int64_t iterations = 1;
    for (int64_t range : op.getStaticLoopRanges())
      iterations *= ShapedType::isDynamic(range) ? 1 : range;
    analysis.flops += iterations * flopsPerIteration(op);
    // An unfused op reads its inputs (and an output it accumulates into)
    // and writes its outputs.
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<ShapedType>(input->get().getType()))
        analysis.unfusedBytes += bytesOf(input->get().getType());
    for (OpOperand &init : op.getDpsInitsMutable()) {
      analysis.unfusedBytes += bytesOf(init.get().getType());
      if (op.payloadUsesValueFromOperand(&init))
        analysis.unfusedBytes += bytesOf(init.get().getType());
    }
  });
  return analysis;
}

double kf::ProblemAnalysis::floorSeconds(const Ceilings &ceilings) const {
  return std::max(double(floorBytes) / ceilings.copyBytesPerSecond,
                  double(flops) / ceilings.fp32FlopsPerSecond);
}

llvm::StringRef
kf::ProblemAnalysis::floorBound(const Ceilings &ceilings) const {
  return double(floorBytes) / ceilings.copyBytesPerSecond >=
                 double(flops) / ceilings.fp32FlopsPerSecond
             ? "memory"
             : "compute";
}

llvm::json::Value kf::toJSON(const ProblemAnalysis &analysis,
                             const Ceilings &ceilings) {
  llvm::json::Object classes;
  for (const auto &entry : analysis.opClasses)
    classes[entry.first().str()] = entry.second;
  llvm::json::Array fusion;
  for (const FusionChance &chance : analysis.fusionChances)
    fusion.push_back(llvm::json::Object{
        {"producer", chance.producer->getName().getStringRef()},
        {"consumer", chance.consumer->getName().getStringRef()},
        {"intermediate_bytes", chance.bytes},
        {"bytes_saved", 2 * chance.bytes}});
  llvm::json::Array passes;
  for (const InputPasses &input : analysis.inputPasses)
    passes.push_back(llvm::json::Object{{"argument", input.argument},
                                        {"bytes", input.bytes},
                                        {"passes", input.passes}});
  return llvm::json::Object{
      {"op_classes", std::move(classes)},
      {"input_passes", std::move(passes)},
      {"floor_bytes", analysis.floorBytes},
      {"fusion_chances", std::move(fusion)},
      {"flops", analysis.flops},
      {"computation_known", analysis.computationKnown},
      {"min_bytes", analysis.minBytes},
      {"unfused_bytes", analysis.unfusedBytes},
      {"linalg_ops", analysis.numLinalgOps},
      {"intensity_flops_per_byte", analysis.intensity()},
      {"floor_ms", analysis.floorSeconds(ceilings) * 1e3},
      {"floor_bound", analysis.floorBound(ceilings)},
      {"ceilings",
       llvm::json::Object{
           {"device", ceilings.device},
           {"copy_bytes_per_second", ceilings.copyBytesPerSecond},
           {"fp32_flops_per_second", ceilings.fp32FlopsPerSecond},
           {"fp32_peak_flops_per_second", ceilings.fp32PeakFlopsPerSecond},
           {"bf16_flops_per_second", ceilings.bf16FlopsPerSecond},
           {"l2_bytes", ceilings.l2Bytes},
           {"shared_bytes_per_block", ceilings.sharedBytesPerBlock}}}};
}
