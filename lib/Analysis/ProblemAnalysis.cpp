//===- ProblemAnalysis.cpp - Work and traffic of a problem ----------------===//

#include "kf/Analysis/ProblemAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
      !mapper.mapOptional("bf16_flops_per_second", ceilings.bf16FlopsPerSecond))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ceilings file '%s': %s", path.str().c_str(),
                                   llvm::toString(root.getError()).c_str());
  if (ceilings.copyBytesPerSecond <= 0 || ceilings.fp32FlopsPerSecond <= 0)
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

kf::ProblemAnalysis kf::analyzeProblem(func::FuncOp reference) {
  ProblemAnalysis analysis;
  for (Type type : reference.getArgumentTypes())
    analysis.minBytes += bytesOf(type);
  for (Type type : reference.getResultTypes())
    analysis.minBytes += bytesOf(type);
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
  return std::max(double(minBytes) / ceilings.copyBytesPerSecond,
                  double(flops) / ceilings.fp32FlopsPerSecond);
}

llvm::StringRef
kf::ProblemAnalysis::floorBound(const Ceilings &ceilings) const {
  return double(minBytes) / ceilings.copyBytesPerSecond >=
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
  return llvm::json::Object{
      {"op_classes", std::move(classes)},
      {"fusion_chances", std::move(fusion)},
      {"flops", analysis.flops},
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
           {"bf16_flops_per_second", ceilings.bf16FlopsPerSecond}}}};
}
