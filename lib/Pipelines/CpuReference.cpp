//===- CpuReference.cpp - The reference function run on the CPU -----------===//

#include "kf/Pipelines/CpuReference.h"
#include "kf/Transforms/Passes.h"

#include "kf/Runtime/ProblemSpec.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;

llvm::Expected<std::vector<std::string>>
kf::runReferenceOnCPU(ProblemOp problem,
                      const std::vector<std::string> &inputs) {
  ProblemSpec spec = buildProblemSpec(problem);
  if (inputs.size() != spec.inputs.size())
    return llvm::createStringError("expected %zu inputs, got %zu",
                                   spec.inputs.size(), inputs.size());
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    if ((int64_t)inputs[index].size() != input.bytes())
      return llvm::createStringError("input %zu has %zu bytes, expected %lld",
                                     index, inputs[index].size(),
                                     (long long)input.bytes());

  MLIRContext *context = problem.getContext();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(problem.getLoc());
  Operation *reference = problem.getReferenceFunc()->clone();
  module->getBody()->push_back(reference);
  reference->setAttr("llvm.emit_c_interface", UnitAttr::get(context));
  std::string name = problem.getReferenceFunc().getSymName().str();

  PassManager pm(context);
  // The same f64 accumulation as the GPU reference (kf-widen-accumulators).
  pm.addNestedPass<func::FuncOp>(kf::createKFWidenAccumulators());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(*module)))
    return llvm::createStringError("cannot lower the reference for the CPU:\n" +
                                   diagnostics);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(2, 0, nullptr);
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return engine.takeError();

  // Arguments: one strided memref descriptor per input and output
  // {allocated, aligned, offset, sizes[rank], strides[rank]}.
  std::vector<std::string> outputs;
  for (const TensorSpec &output : spec.outputs)
    outputs.emplace_back(output.bytes(), '\0');
  std::vector<std::string> inputCopies = inputs;
  std::vector<std::vector<int64_t>> descriptors;
  auto describe = [&](const TensorSpec &tensor, char *data) {
    std::vector<int64_t> words = {(int64_t)(intptr_t)data,
                                  (int64_t)(intptr_t)data, 0};
    for (int64_t size : tensor.shape)
      words.push_back(size);
    int64_t stride = 1;
    std::vector<int64_t> strides(tensor.shape.size());
    for (int i = (int)tensor.shape.size() - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= tensor.shape[i];
    }
    words.insert(words.end(), strides.begin(), strides.end());
    descriptors.push_back(std::move(words));
  };
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    describe(input, inputCopies[index].data());
  for (auto [index, output] : llvm::enumerate(spec.outputs))
    describe(output, outputs[index].data());
  std::vector<void *> descriptorPointers, arguments;
  for (std::vector<int64_t> &words : descriptors)
    descriptorPointers.push_back(words.data());
  for (void *&pointer : descriptorPointers)
    arguments.push_back(&pointer);
  if (llvm::Error error =
          (*engine)->invokePacked("_mlir_ciface_" + name, arguments))
    return std::move(error);
  return outputs;
}
