//===- Evaluation.cpp - One candidate judged against the reference --------===//
//
// The phases of GpuEvaluator::evaluate, in the order they run: check that
// both plans fit the problem and the device, allocate the buffers,
// correctness trials on fresh inputs (each comparing every output, checking
// the inputs unchanged and the outputs following the inputs), the
// degenerate-problem verdict, timing over rotated input sets, a final
// comparison of the last timed run, and the reference's timing. Each phase
// is a method of Evaluation; the state they share (buffers, the reference's
// identity, the trivial kernels' verdicts) lives in it for one evaluation.
//
//===----------------------------------------------------------------------===//

#include "EvalFailure.h"
#include "EvaluatorImpl.h"

#include "kf/Runtime/RuntimeKernels.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <chrono>

using namespace kf;
using llvm::Error;
using llvm::Expected;

namespace {

/// What identifies a reference's outputs across candidates: its plan with
/// its kernel images, and the problem (shapes, distributions).
std::string identify(const LaunchPlan &reference, const ProblemSpec &spec) {
  llvm::SHA256 hash;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << toJSON(reference) << toJSON(spec);
  hash.update(text);
  for (const auto &module : reference.modules) {
    hash.update(module.getKey());
    hash.update(module.getValue().image);
  }
  return llvm::toHex(hash.final());
}

/// Whether the evaluation goes on after a phase, or the phase gave the
/// verdict.
enum class Next { Continue, Done };

class Evaluation {
public:
  Evaluation(GpuEvaluator::Impl &gpu, EvalResult &result,
             const ProblemSpec &spec, const LaunchPlan &reference,
             const LaunchPlan &candidate, const EvalConfig &config)
      : gpu(gpu), driver(gpu.driver), result(result), spec(spec),
        reference(reference), candidate(candidate), config(config),
        numSets(std::max(1u, config.inputSets)),
        referenceIdentity(identify(reference, spec)), trivials(spec) {}

  Error run();

private:
  // Phases.
  Error loadPlans();
  Error allocateBuffers();
  Expected<Next> runTrials();
  Expected<Next> runTrial(unsigned trial);
  Next judgeProblem();
  Expected<Next> timeCandidate();
  Expected<Next> checkLastTimedRun();
  Error timeReference();

  // Checks within a trial.
  Expected<Next> checkInputsUnchanged();
  Expected<Next> checkOutputsFollowInputs(unsigned trial);
  Error rememberOutputs();
  Error checkTrivials();

  // Steps the phases share.
  Expected<DeviceBuffer> allocate(int64_t bytes);
  llvm::SmallVector<CUdeviceptr> arguments(unsigned set,
                                           std::vector<DeviceBuffer> &outputs);
  std::string referenceKey(uint64_t seed, bool negated, bool heavyTailed);
  Error runReference(unsigned set, const std::string &key);
  Error fillSet(unsigned set, uint64_t seed, bool negated = false,
                bool heavyTailed = false);
  Error poison(unsigned trial);
  Expected<bool> compareAll();
  std::string mismatchMessage(llvm::StringRef when);
  Expected<std::vector<double>> timeRuns(LoadedPlan &plan,
                                         std::vector<DeviceBuffer> &outputs);

  GpuEvaluator::Impl &gpu;
  CudaDriver &driver;
  EvalResult &result;
  const ProblemSpec &spec;
  const LaunchPlan &reference, &candidate;
  const EvalConfig &config;
  unsigned numSets;

  std::unique_ptr<LoadedPlan> referencePlan, candidatePlan;
  // Buffers: input sets (rotated in timing), a pristine copy of set 0's
  // inputs, reference outputs, candidate outputs, and the previous trial's
  // outputs (for the check that outputs change when the inputs do).
  std::vector<std::vector<DeviceBuffer>> inputSets;
  std::vector<DeviceBuffer> pristine, referenceOutputs, candidateOutputs;
  std::vector<DeviceBuffer> previousCandidate, previousReference;
  /// What identifies a reference run's outputs across candidates.
  std::string referenceIdentity;
  /// Trivial kernels the problem must reject (the degenerate-problem
  /// check). Each stays a candidate while it passes on every trial with the
  /// declared distributions.
  TrivialKernelVerdicts trivials;
  bool anyDeclaredTrial = false;
  std::vector<double> times;
};

} // namespace

EvalResult GpuEvaluator::Impl::evaluate(const ProblemSpec &spec,
                                        const LaunchPlan &reference,
                                        const LaunchPlan &candidate,
                                        const EvalConfig &config) {
  EvalResult result;
  result.deviceName = info.name;
  result.driverVersion = info.driverVersion;
  Evaluation evaluation(*this, result, spec, reference, candidate, config);
  if (Error error = evaluation.run())
    recordFailure(std::move(error), result);
  return result;
}

Error Evaluation::run() {
  if (Error error = loadPlans())
    return error;
  if (Error error = allocateBuffers())
    return error;
  Expected<Next> next = runTrials();
  if (!next || *next == Next::Done)
    return next.takeError();
  if (judgeProblem() == Next::Done)
    return Error::success();
  next = timeCandidate();
  if (!next || *next == Next::Done)
    return next.takeError();
  next = checkLastTimedRun();
  if (!next || *next == Next::Done)
    return next.takeError();
  if (Error error = timeReference())
    return error;
  result.status = CandidateStatus::Correct;
  result.message = "correct";
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Loading and buffers
//===----------------------------------------------------------------------===//

/// Both plans must take the problem's buffers, and both are loaded before
/// anything runs: a candidate over the device's limits never runs.
Error Evaluation::loadPlans() {
  if (Error error = checkBufferCount(reference, spec, "reference"))
    return error;
  if (Error error = checkBufferCount(candidate, spec, "candidate"))
    return error;
  llvm::SmallVector<KernelResources> ignored;
  Expected<std::unique_ptr<LoadedPlan>> loadedReference =
      LoadedPlan::load(driver, reference, gpu.info, "reference", ignored);
  if (!loadedReference)
    return loadedReference.takeError();
  referencePlan = std::move(*loadedReference);
  Expected<std::unique_ptr<LoadedPlan>> loadedCandidate = LoadedPlan::load(
      driver, candidate, gpu.info, "candidate", result.kernels);
  if (!loadedCandidate)
    return loadedCandidate.takeError();
  candidatePlan = std::move(*loadedCandidate);
  return Error::success();
}

/// Sizes are rounded up to 256 bytes and zero-filled so that raw-word
/// comparisons see whole words.
Expected<DeviceBuffer> Evaluation::allocate(int64_t bytes) {
  Expected<DeviceBuffer> buffer =
      DeviceBuffer::allocate(driver, roundUp(std::max<int64_t>(bytes, 1), 256));
  if (!buffer)
    return withStatus(buffer.takeError(), CandidateStatus::ResourceLimit);
  if (Error error = driver.check(
          driver.cuMemsetD8(buffer->get(), 0, buffer->size()), "cuMemsetD8"))
    return std::move(error);
  return buffer;
}

Error Evaluation::allocateBuffers() {
  auto allocateInto = [&](std::vector<DeviceBuffer> &buffers,
                          const TensorSpec &tensor) -> Error {
    Expected<DeviceBuffer> buffer = allocate(tensor.bytes());
    if (!buffer)
      return buffer.takeError();
    buffers.push_back(std::move(*buffer));
    return Error::success();
  };
  inputSets.resize(numSets);
  for (unsigned set = 0; set < numSets; ++set)
    for (const TensorSpec &input : spec.inputs)
      if (Error error = allocateInto(inputSets[set], input))
        return error;
  for (const TensorSpec &input : spec.inputs)
    if (Error error = allocateInto(pristine, input))
      return error;
  for (const TensorSpec &output : spec.outputs) {
    if (Error error = allocateInto(referenceOutputs, output))
      return error;
    if (Error error = allocateInto(candidateOutputs, output))
      return error;
  }
  result.errors.assign(spec.outputs.size(), OutputErrors());
  if (config.trials >= 2)
    for (const TensorSpec &output : spec.outputs) {
      if (Error error = allocateInto(previousCandidate, output))
        return error;
      if (Error error = allocateInto(previousReference, output))
        return error;
    }
  if (!config.checkProblem)
    trivials.verdicts.clear();
  return Error::success();
}

llvm::SmallVector<CUdeviceptr>
Evaluation::arguments(unsigned set, std::vector<DeviceBuffer> &outputs) {
  llvm::SmallVector<CUdeviceptr> args;
  for (DeviceBuffer &buffer : inputSets[set])
    args.push_back(buffer.get());
  for (DeviceBuffer &buffer : outputs)
    args.push_back(buffer.get());
  return args;
}

//===----------------------------------------------------------------------===//
// The reference, inputs and outputs
//===----------------------------------------------------------------------===//

std::string Evaluation::referenceKey(uint64_t seed, bool negated,
                                     bool heavyTailed) {
  return llvm::formatv("{0}/{1}/{2}{3}", referenceIdentity, seed,
                       negated ? "n" : "", heavyTailed ? "h" : "")
      .str();
}

/// Runs the reference on input set `set` (drawn as `key` says), or copies
/// its outputs back from the cache.
Error Evaluation::runReference(unsigned set, const std::string &key) {
  auto &cache = gpu.referenceCache;
  if (auto it = cache.find(key); it != cache.end()) {
    for (auto [index, output] : llvm::enumerate(spec.outputs))
      if (Error error =
              driver.check(driver.cuMemcpyHtoD(referenceOutputs[index].get(),
                                               it->second[index].data(),
                                               it->second[index].size()),
                           "cuMemcpyHtoD(cached reference outputs)"))
        return error;
    return Error::success();
  }
  auto began = std::chrono::steady_clock::now();
  if (Error error =
          referencePlan->enqueue(gpu.stream, arguments(set, referenceOutputs)))
    return error;
  if (Error error = gpu.synchronize("running the reference"))
    return error;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began)
          .count();
  int64_t bytes = 0;
  for (const TensorSpec &output : spec.outputs)
    bytes += output.bytes();
  // Worth keeping when the run took longer than copying back and forth
  // would (about 5 GB/s each way through pageable memory), within 16 GiB.
  constexpr int64_t kCacheLimit = int64_t(16) << 30;
  if (seconds < 2.0 * bytes / 5e9 ||
      gpu.referenceCacheBytes + bytes > kCacheLimit)
    return Error::success();
  std::vector<std::string> copies;
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    std::string copy(output.bytes(), '\0');
    if (Error error = driver.check(
            driver.cuMemcpyDtoH(copy.data(), referenceOutputs[index].get(),
                                copy.size()),
            "cuMemcpyDtoH(reference outputs)"))
      return error;
    copies.push_back(std::move(copy));
  }
  gpu.referenceCacheBytes += bytes;
  cache[key] = std::move(copies);
  return Error::success();
}

Error Evaluation::fillSet(unsigned set, uint64_t seed, bool negated,
                          bool heavyTailed) {
  for (auto [index, input] : llvm::enumerate(spec.inputs)) {
    TensorSpec drawn = input;
    if (negated)
      drawn.distribution = negate(input.distribution);
    if (Error error = gpu.fill(drawn, inputSets[set][index].get(),
                               seed * 1000003ull + index))
      return error;
    if (heavyTailed && input.isFloat()) {
      KernelArguments args;
      int64_t n = input.numElements();
      args.addVector(inputSets[set][index].get(), n);
      args.addI64(n);
      args.addI64((int64_t)(seed * 1000003ull + index + 17));
      args.addF64(8.0);
      if (Error error = gpu.launchRuntime(
              runtimeKernelName("scale_outliers", input.elementType), n, args))
        return error;
    }
  }
  return Error::success();
}

/// Poison: all-ones bytes are NaN in every float format; integer outputs
/// alternate between two patterns so that no single value passes unwritten.
Error Evaluation::poison(unsigned trial) {
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    unsigned char pattern = output.isFloat() || trial % 2 == 0 ? 0xFF : 0x5A;
    if (Error error =
            driver.check(driver.cuMemsetD8(candidateOutputs[index].get(),
                                           pattern, output.bytes()),
                         "cuMemsetD8(poison)"))
      return error;
  }
  return Error::success();
}

/// Compares every output; records the worst trial per output.
Expected<bool> Evaluation::compareAll() {
  bool correct = true;
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    Expected<OutputErrors> errors =
        gpu.compare(output, candidateOutputs[index].get(),
                    referenceOutputs[index].get(), spec.atol, spec.rtol);
    if (!errors)
      return errors.takeError();
    errors->output = index;
    OutputErrors &worst = result.errors[index];
    if (errors->mismatches > worst.mismatches ||
        (errors->mismatches == worst.mismatches &&
         errors->maxAbsError >= worst.maxAbsError))
      worst = *errors;
    correct &= errors->mismatches == 0;
  }
  return correct;
}

std::string Evaluation::mismatchMessage(llvm::StringRef when) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "wrong result " << when << ":";
  for (const OutputErrors &e : result.errors)
    if (e.mismatches)
      os << " output " << e.output << " has " << e.mismatches << " of "
         << e.elements << " elements outside the tolerance (first at index "
         << e.firstMismatch << ", max abs error " << e.maxAbsError
         << ", max rel error " << e.maxRelError << ")";
  return text;
}

//===----------------------------------------------------------------------===//
// Correctness trials
//===----------------------------------------------------------------------===//

/// Correctness trials on fresh inputs; trial 1 on negated distributions,
/// trial 2 with heavy tails.
Expected<Next> Evaluation::runTrials() {
  for (unsigned trial = 0; trial < config.trials; ++trial) {
    Expected<Next> next = runTrial(trial);
    if (!next || *next == Next::Done)
      return next;
    // An incorrect candidate timed anyway (config.timeIncorrect) for the
    // diagnosis: no more trials; it stays incorrect.
    if (result.status == CandidateStatus::Incorrect)
      break;
  }
  return Next::Continue;
}

Expected<Next> Evaluation::runTrial(unsigned trial) {
  uint64_t seed = config.seed + trial;
  bool negated = config.negatedTrial && trial == 1;
  bool heavyTailed = config.heavyTailedTrial && trial == 2;
  if (Error error = fillSet(0, seed, negated, heavyTailed))
    return std::move(error);
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    if (Error error =
            driver.check(driver.cuMemcpyDtoD(pristine[index].get(),
                                             inputSets[0][index].get(),
                                             inputSets[0][index].size()),
                         "cuMemcpyDtoD(pristine inputs)"))
      return std::move(error);
  if (Error error = runReference(0, referenceKey(seed, negated, heavyTailed)))
    return std::move(error);
  if (!negated && !heavyTailed) {
    anyDeclaredTrial = true;
    if (Error error = checkTrivials())
      return std::move(error);
  }
  if (Error error = poison(trial))
    return std::move(error);
  if (Error error =
          candidatePlan->enqueue(gpu.stream, arguments(0, candidateOutputs)))
    return std::move(error);
  if (Error error = gpu.synchronize("running the candidate"))
    return std::move(error);
  Expected<Next> next = checkInputsUnchanged();
  if (!next || *next == Next::Done)
    return next;
  Expected<bool> correct = compareAll();
  if (!correct)
    return correct.takeError();
  if (!*correct) {
    result.status = CandidateStatus::Incorrect;
    result.message = mismatchMessage(("in trial " + llvm::Twine(trial) +
                                      " (seed " + llvm::Twine(seed) +
                                      (negated ? ", negated input distributions"
                                       : heavyTailed ? ", heavy-tailed inputs"
                                                     : "") +
                                      ")")
                                         .str());
    return config.timeIncorrect ? Next::Continue : Next::Done;
  }
  return checkOutputsFollowInputs(trial);
}

Expected<Next> Evaluation::checkInputsUnchanged() {
  for (auto [index, input] : llvm::enumerate(spec.inputs)) {
    Expected<int64_t> changed = gpu.countDifferentWords(
        inputSets[0][index].get(), pristine[index].get(), input.bytes());
    if (!changed)
      return changed.takeError();
    if (*changed)
      return evalError(CandidateStatus::InputsModified,
                       llvm::formatv("the candidate modified input {0} ({1} "
                                     "words changed); inputs are read-only",
                                     index, *changed));
  }
  return Next::Continue;
}

/// Outputs that stay bit-identical while the reference's change come from
/// somewhere other than the inputs (a cache, a replay).
Expected<Next> Evaluation::checkOutputsFollowInputs(unsigned trial) {
  if (previousCandidate.empty())
    return Next::Continue;
  if (trial > 0) {
    bool sameCandidate = true, sameReference = true;
    for (auto [index, output] : llvm::enumerate(spec.outputs)) {
      Expected<int64_t> candidateChanged = gpu.countDifferentWords(
          candidateOutputs[index].get(), previousCandidate[index].get(),
          output.bytes());
      if (!candidateChanged)
        return candidateChanged.takeError();
      Expected<int64_t> referenceChanged = gpu.countDifferentWords(
          referenceOutputs[index].get(), previousReference[index].get(),
          output.bytes());
      if (!referenceChanged)
        return referenceChanged.takeError();
      sameCandidate &= *candidateChanged == 0;
      sameReference &= *referenceChanged == 0;
    }
    if (sameCandidate && !sameReference) {
      result.status = CandidateStatus::Cheating;
      result.message = llvm::formatv(
          "the outputs of trial {0} are bit for bit those of trial {1} "
          "although the inputs and the reference's outputs changed: "
          "the candidate does not compute from its inputs",
          trial, trial - 1);
      return Next::Done;
    }
  }
  if (Error error = rememberOutputs())
    return std::move(error);
  return Next::Continue;
}

Error Evaluation::rememberOutputs() {
  for (auto [index, output] : llvm::enumerate(spec.outputs)) {
    if (Error error = driver.check(
            driver.cuMemcpyDtoD(previousCandidate[index].get(),
                                candidateOutputs[index].get(), output.bytes()),
            "cuMemcpyDtoD(previous outputs)"))
      return error;
    if (Error error = driver.check(
            driver.cuMemcpyDtoD(previousReference[index].get(),
                                referenceOutputs[index].get(), output.bytes()),
            "cuMemcpyDtoD(previous reference outputs)"))
      return error;
  }
  return Error::success();
}

/// Runs the trivial kernels against the reference outputs of this trial,
/// using the candidate's output buffers as scratch.
Error Evaluation::checkTrivials() {
  for (TrivialKernelVerdicts::Verdict &trivial : trivials.verdicts) {
    if (!trivial.passes)
      continue;
    const TensorSpec &output = spec.outputs[trivial.kernel.output];
    CUdeviceptr expected = referenceOutputs[trivial.kernel.output].get();
    CUdeviceptr scratch = candidateOutputs[trivial.kernel.output].get();
    CUdeviceptr tried = scratch;
    switch (trivial.kernel.kind) {
    case TrivialKernel::Kind::CopyOfInput:
      tried = inputSets[0][trivial.kernel.input].get();
      break;
    case TrivialKernel::Kind::Constant:
      if (!trivial.constant) {
        // Taken from this trial, judged on the later ones.
        uint32_t word = 0;
        int64_t middle = output.numElements() / 2;
        if (Error error = driver.check(
                driver.cuMemcpyDtoH(&word, expected + middle * 4, 4),
                "cuMemcpyDtoH(reference element)"))
          return error;
        trivial.constant = word;
        continue;
      }
      if (Error error =
              driver.check(driver.cuMemsetD32(scratch, *trivial.constant,
                                              output.numElements()),
                           "cuMemsetD32(constant)"))
        return error;
      break;
    case TrivialKernel::Kind::Zeros:
      if (Error error =
              driver.check(driver.cuMemsetD8(scratch, 0, output.bytes()),
                           "cuMemsetD8(zeros)"))
        return error;
      break;
    }
    Expected<OutputErrors> errors =
        gpu.compare(output, tried, expected, spec.atol, spec.rtol);
    if (!errors)
      return errors.takeError();
    trivial.passes = errors->mismatches == 0;
    ++trivial.judged;
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The problem's verdict and timing
//===----------------------------------------------------------------------===//

Next Evaluation::judgeProblem() {
  if (!config.checkProblem || !anyDeclaredTrial ||
      result.status == CandidateStatus::Incorrect)
    return Next::Continue;
  if (std::optional<TrivialKernel> trivial = trivials.degenerate()) {
    result.status = CandidateStatus::DegenerateProblem;
    result.problemCheck = "degenerate";
    result.message = degenerateProblemMessage(spec, *trivial);
    return Next::Done;
  }
  result.problemCheck = "passed";
  return Next::Continue;
}

/// Timing over rotated input sets (set 0 still holds the last trial's). An
/// incorrect candidate timed for the diagnosis ends here.
Expected<Next> Evaluation::timeCandidate() {
  for (unsigned set = 1; set < numSets; ++set)
    if (Error error = fillSet(set, config.seed + config.trials + set))
      return std::move(error);
  Expected<std::vector<double>> timed =
      timeRuns(*candidatePlan, candidateOutputs);
  if (!timed)
    return timed.takeError();
  times = std::move(*timed);
  result.candidateTime = summarizeTimes(times);
  return result.status == CandidateStatus::Incorrect ? Next::Done
                                                     : Next::Continue;
}

/// The last timed run's output must match the reference on its inputs:
/// replayed or cached results fail here.
Expected<Next> Evaluation::checkLastTimedRun() {
  unsigned lastSet = (times.size() - 1) % numSets;
  // Set 0 still holds the last trial's inputs; the others were drawn for
  // timing.
  unsigned lastTrial = std::max(1u, config.trials) - 1;
  std::string lastKey =
      lastSet != 0
          ? referenceKey(config.seed + config.trials + lastSet, false, false)
      : config.trials == 0
          ? referenceIdentity + "/no-trials"
          : referenceKey(config.seed + lastTrial,
                         config.negatedTrial && lastTrial == 1,
                         config.heavyTailedTrial && lastTrial == 2);
  if (Error error = runReference(lastSet, lastKey))
    return std::move(error);
  Expected<bool> correct = compareAll();
  if (!correct)
    return correct.takeError();
  if (!*correct) {
    result.status = CandidateStatus::Incorrect;
    result.message = mismatchMessage("after the timed runs, on rotated inputs");
    return Next::Done;
  }
  return Next::Continue;
}

Error Evaluation::timeReference() {
  if (!config.timeReference)
    return Error::success();
  Expected<std::vector<double>> referenceTimes =
      timeRuns(*referencePlan, referenceOutputs);
  if (!referenceTimes)
    return referenceTimes.takeError();
  result.referenceTime = summarizeTimes(*referenceTimes);
  return Error::success();
}

/// Times `plan` over the input sets in turn, writing into `outputs`.
Expected<std::vector<double>>
Evaluation::timeRuns(LoadedPlan &plan, std::vector<DeviceBuffer> &outputs) {
  std::vector<llvm::SmallVector<CUdeviceptr>> argumentSets;
  for (unsigned set = 0; set < numSets; ++set)
    argumentSets.push_back(arguments(set, outputs));
  return gpu.timeRuns(plan, argumentSets, config);
}
