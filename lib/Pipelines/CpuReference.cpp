//===- CpuReference.cpp - The reference function run on the CPU -----------===//

#include "kf/Pipelines/CpuReference.h"
#include "kf/Transforms/Passes.h"

#include "kf/Runtime/Evaluator.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Runtime/RuntimeKernels.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <functional>

using namespace mlir;

kf::CpuReference::CpuReference(CpuReference &&) = default;
kf::CpuReference::~CpuReference() = default;

llvm::Expected<kf::CpuReference> kf::CpuReference::compile(ProblemOp problem) {
  CpuReference reference;
  reference.spec = buildProblemSpec(problem);
  MLIRContext *context = problem.getContext();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(problem.getLoc());
  Operation *function = problem.getReferenceFunc()->clone();
  module->getBody()->push_back(function);
  function->setAttr("llvm.emit_c_interface", UnitAttr::get(context));
  reference.functionName = problem.getReferenceFunc().getSymName().str();

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
  // Math functions without an LLVM intrinsic (erf, erfc, ...) become calls
  // into the host's libm, which is also an implementation independent of
  // the GPU's libdevice. libm has no rsqrt: 1 / sqrt first.
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"rsqrt"};
  pm.addPass(math::createMathExpandOpsPass(expand));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(*module)))
    return llvm::createStringError("cannot lower the reference for the CPU:\n" +
                                   diagnostics);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive create() (assigned the temporary that
  // makeOptimizingTransformer returns, it dangled: AddressSanitizer's
  // stack-use-after-scope in every CPU reference check).
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return llvm::createStringError(
        "cannot compile the reference for the CPU: " +
        llvm::toString(engine.takeError()) +
        (diagnostics.empty() ? "" : ":\n" + diagnostics));
  reference.engine = std::move(*engine);
  return std::move(reference);
}

llvm::Expected<std::vector<std::string>>
kf::CpuReference::run(const std::vector<std::string> &inputs) const {
  if (inputs.size() != spec.inputs.size())
    return llvm::createStringError("expected %zu inputs, got %zu",
                                   spec.inputs.size(), inputs.size());
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    if ((int64_t)inputs[index].size() != input.bytes())
      return llvm::createStringError("input %zu has %zu bytes, expected %lld",
                                     index, inputs[index].size(),
                                     (long long)input.bytes());

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
          engine->invokePacked("_mlir_ciface_" + functionName, arguments))
    return std::move(error);
  return outputs;
}

llvm::Expected<std::vector<std::string>>
kf::runReferenceOnCPU(ProblemOp problem,
                      const std::vector<std::string> &inputs) {
  llvm::Expected<CpuReference> reference = CpuReference::compile(problem);
  if (!reference)
    return reference.takeError();
  return reference->run(inputs);
}

llvm::Expected<kf::HostProblemCheck>
kf::checkProblemOnCPU(ProblemOp problem, unsigned trials, uint64_t seed) {
  // Inputs, and each output as the reference's result, the expected copy
  // and the trivial kernel's try: refused before any of it is allocated.
  if (llvm::Error error =
          checkHostMemory(buildProblemSpec(problem), /*outputCopies=*/3,
                          physicalMemoryBytes(), "the CPU check"))
    return std::move(error);
  llvm::Expected<CpuReference> reference = CpuReference::compile(problem);
  if (!reference)
    return reference.takeError();
  const ProblemSpec &spec = reference->getSpec();
  TrivialKernelVerdicts trivials(spec);

  HostProblemCheck check;
  for (unsigned trial = 0; trial < trials; ++trial) {
    // The GPU evaluator's seeds: trial seed * 1000003 + input index.
    uint64_t trialSeed = seed + trial;
    std::vector<std::string> inputs;
    for (auto [index, input] : llvm::enumerate(spec.inputs))
      inputs.push_back(drawOnHost(input, trialSeed * 1000003ull + index));
    llvm::Expected<std::vector<std::string>> outputs = reference->run(inputs);
    if (!outputs)
      return outputs.takeError();
    for (TrivialKernelVerdicts::Verdict &trivial : trivials.verdicts) {
      if (!trivial.passes)
        continue; // already refuted: no need to compare again
      const TensorSpec &output = spec.outputs[trivial.kernel.output];
      const std::string &expected = (*outputs)[trivial.kernel.output];
      std::string tried;
      switch (trivial.kernel.kind) {
      case TrivialKernel::Kind::Zeros:
        tried.assign(output.bytes(), '\0');
        break;
      case TrivialKernel::Kind::Constant:
        if (!trivial.constant) {
          // Taken from this trial, judged on the later ones.
          uint32_t word;
          std::memcpy(&word, &expected[output.numElements() / 2 * 4], 4);
          trivial.constant = word;
          continue;
        }
        tried.resize(output.bytes());
        for (int64_t i = 0; i < output.numElements(); ++i)
          std::memcpy(&tried[i * 4], &*trivial.constant, 4);
        break;
      case TrivialKernel::Kind::CopyOfInput:
        tried = inputs[trivial.kernel.input];
        break;
      }
      OutputErrors errors =
          compareOnHost(output, tried, expected, spec.atol, spec.rtol);
      trivial.passes = errors.mismatches == 0;
      ++trivial.judged;
    }
    if (trial == 0) {
      check.inputs = std::move(inputs);
      check.outputs = std::move(*outputs);
    }
  }
  check.degenerate = trivials.degenerate();
  return std::move(check);
}
