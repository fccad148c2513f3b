//===- Evaluator.cpp - Correctness and timing on the GPU ------------------===//

#include "kf/Runtime/Evaluator.h"

#include "kf/Runtime/RuntimeKernels.h"

#include "EvalFailure.h"
#include "LoadedPlan.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

using namespace kf;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// GpuEvaluator::Impl
//===----------------------------------------------------------------------===//

class GpuEvaluator::Impl {
public:
  Impl(CudaDriver &driver, Context context, DeviceInfo info)
      : driver(driver), context(std::move(context)), info(std::move(info)) {}
  ~Impl() {
    if (runtimeModule)
      driver.cuModuleUnload(runtimeModule);
    if (stream)
      driver.cuStreamDestroy(stream);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
  }

  Error initialize(const PlanModule &runtimeKernels);
  Expected<PlanIO> runForIO(const ProblemSpec &spec, const LaunchPlan &plan,
                            uint64_t seed, int64_t maxBytes);
  EvalResult evaluate(const ProblemSpec &spec, const LaunchPlan &reference,
                      const LaunchPlan &candidate, const EvalConfig &config);

  CudaDriver &driver;
  Context context;
  DeviceInfo info;
  CUmodule runtimeModule = nullptr;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  DeviceBuffer flushBuffer, statsBuffer;
  /// Reference outputs already computed, by (reference plan, problem,
  /// input seed and variant): the trusted reference is often far slower
  /// than the candidates (its reductions run sequentially in f64), and the
  /// same inputs come back for every candidate. Kept in host memory, where
  /// no candidate kernel can reach them.
  std::map<std::string, std::vector<std::string>> referenceCache;
  int64_t referenceCacheBytes = 0;

private:
  Error run(EvalResult &result, const ProblemSpec &spec,
            const LaunchPlan &reference, const LaunchPlan &candidate,
            const EvalConfig &config);
  Error launchRuntime(llvm::StringRef name, int64_t elements,
                      KernelArguments &args);
  Error fill(const TensorSpec &tensor, CUdeviceptr pointer, uint64_t seed);
  Expected<OutputErrors> compare(const TensorSpec &tensor, CUdeviceptr out,
                                 CUdeviceptr ref, double atol, double rtol);
  Expected<int64_t> countDifferentWords(CUdeviceptr a, CUdeviceptr b,
                                        int64_t bytes);
  Error synchronize(llvm::StringRef what);
  Expected<std::vector<double>>
  timeRuns(LoadedPlan &plan,
           llvm::ArrayRef<llvm::SmallVector<CUdeviceptr>> argumentSets,
           const EvalConfig &config);
};

Error GpuEvaluator::Impl::initialize(const PlanModule &runtimeKernels) {
  std::string image = runtimeKernels.image;
  if (runtimeKernels.format == PlanModule::Format::PTX)
    image.push_back('\0');
  if (Error error =
          driver.check(driver.cuModuleLoadDataEx(&runtimeModule, image.data(),
                                                 0, nullptr, nullptr),
                       "cuModuleLoadDataEx(kf runtime kernels)"))
    return error;
  // Everything runs on the legacy default stream: the synchronous copies
  // and memsets the evaluator uses between kernels are ordered with the
  // kernels only there (a non-blocking stream would race with them).
  stream = nullptr;
  if (Error error = driver.check(driver.cuEventCreate(&start, CU_EVENT_DEFAULT),
                                 "cuEventCreate"))
    return error;
  if (Error error = driver.check(driver.cuEventCreate(&stop, CU_EVENT_DEFAULT),
                                 "cuEventCreate"))
    return error;
  // Writing twice the L2's size evicts whatever a previous run left there.
  Expected<DeviceBuffer> flush = DeviceBuffer::allocate(
      driver,
      roundUp(std::max(2 * (int64_t)info.l2CacheBytes, int64_t(1) << 20), 256));
  if (!flush)
    return flush.takeError();
  flushBuffer = std::move(*flush);
  Expected<DeviceBuffer> stats = DeviceBuffer::allocate(driver, 256);
  if (!stats)
    return stats.takeError();
  statsBuffer = std::move(*stats);
  return Error::success();
}

Error GpuEvaluator::Impl::launchRuntime(llvm::StringRef name, int64_t elements,
                                        KernelArguments &args) {
  CUfunction function = nullptr;
  if (Error error =
          driver.check(driver.cuModuleGetFunction(&function, runtimeModule,
                                                  name.str().c_str()),
                       "cuModuleGetFunction(" + name.str() + ")"))
    return error;
  int64_t threads = 256;
  int64_t blocks = std::clamp<int64_t>((elements + threads - 1) / threads, 1,
                                       (int64_t)info.multiprocessors * 16);
  return driver.check(driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1,
                                            1, 0, stream, args.pointers(),
                                            nullptr),
                      "cuLaunchKernel(" + name.str() + ")");
}

Error GpuEvaluator::Impl::synchronize(llvm::StringRef what) {
  CUresult result = driver.cuStreamSynchronize(stream);
  if (result == CUDA_SUCCESS)
    return Error::success();
  return evalError(isFaultCode(result) ? EvalStatus::Fault
                                       : EvalStatus::InternalError,
                   llvm::toString(driver.check(result, what)));
}

Error GpuEvaluator::Impl::fill(const TensorSpec &tensor, CUdeviceptr pointer,
                               uint64_t seed) {
  KernelArguments args;
  int64_t n = tensor.numElements();
  args.addVector(pointer, n);
  args.addI64(n);
  args.addI64((int64_t)seed);
  std::string kernel;
  switch (tensor.distribution.kind) {
  case Distribution::Kind::Uniform:
    kernel = runtimeKernelName("fill_uniform", tensor.elementType);
    args.addF64(tensor.distribution.a);
    args.addF64(tensor.distribution.b);
    break;
  case Distribution::Kind::Normal:
    kernel = runtimeKernelName("fill_normal", tensor.elementType);
    args.addF64(tensor.distribution.a);
    args.addF64(tensor.distribution.b);
    break;
  case Distribution::Kind::IntRange:
    kernel = runtimeKernelName("fill_int", tensor.elementType);
    args.addI64((int64_t)tensor.distribution.a);
    args.addI64((int64_t)(tensor.distribution.b - tensor.distribution.a));
    break;
  }
  return launchRuntime(kernel, n, args);
}

Expected<OutputErrors> GpuEvaluator::Impl::compare(const TensorSpec &tensor,
                                                   CUdeviceptr out,
                                                   CUdeviceptr ref, double atol,
                                                   double rtol) {
  int64_t n = tensor.numElements();
  int64_t initial[4] = {0, n, 0, 0};
  if (Error error = driver.check(
          driver.cuMemcpyHtoD(statsBuffer.get(), initial, sizeof(initial)),
          "cuMemcpyHtoD(stats)"))
    return std::move(error);
  KernelArguments args;
  args.addVector(out, n);
  args.addVector(ref, n);
  args.addI64(n);
  args.addF64(atol);
  args.addF64(rtol);
  args.addVector(statsBuffer.get(), 4);
  if (Error error = launchRuntime(
          runtimeKernelName("compare", tensor.elementType), n, args))
    return std::move(error);
  if (Error error = synchronize("comparing outputs"))
    return std::move(error);
  int64_t stats[4];
  if (Error error = driver.check(
          driver.cuMemcpyDtoH(stats, statsBuffer.get(), sizeof(stats)),
          "cuMemcpyDtoH(stats)"))
    return std::move(error);
  OutputErrors errors;
  errors.elements = n;
  errors.mismatches = stats[0];
  errors.firstMismatch = stats[1] < n ? stats[1] : -1;
  std::memcpy(&errors.maxAbsError, &stats[2], 8);
  std::memcpy(&errors.maxRelError, &stats[3], 8);
  return errors;
}

Expected<int64_t> GpuEvaluator::Impl::countDifferentWords(CUdeviceptr a,
                                                          CUdeviceptr b,
                                                          int64_t bytes) {
  int64_t words = roundUp(bytes, 4) / 4;
  int64_t zero = 0;
  if (Error error = driver.check(
          driver.cuMemcpyHtoD(statsBuffer.get(), &zero, sizeof(zero)),
          "cuMemcpyHtoD(stats)"))
    return std::move(error);
  KernelArguments args;
  args.addVector(a, words);
  args.addVector(b, words);
  args.addI64(words);
  args.addVector(statsBuffer.get(), 1);
  if (Error error = launchRuntime("count_diff_i32", words, args))
    return std::move(error);
  if (Error error = synchronize("checking inputs"))
    return std::move(error);
  int64_t count = 0;
  if (Error error = driver.check(
          driver.cuMemcpyDtoH(&count, statsBuffer.get(), sizeof(count)),
          "cuMemcpyDtoH(stats)"))
    return std::move(error);
  return count;
}

Expected<std::vector<double>> GpuEvaluator::Impl::timeRuns(
    LoadedPlan &plan,
    llvm::ArrayRef<llvm::SmallVector<CUdeviceptr>> argumentSets,
    const EvalConfig &config) {
  for (unsigned i = 0; i < config.warmupRuns; ++i)
    if (Error error =
            plan.enqueue(stream, argumentSets[i % argumentSets.size()]))
      return std::move(error);
  if (Error error = synchronize("warm-up runs"))
    return std::move(error);
  std::vector<double> times;
  double spent = 0;
  for (unsigned run = 0; run < config.maxTimedRuns; ++run) {
    if (run >= config.minTimedRuns && spent >= config.timeBudgetMs)
      break;
    if (config.flushL2)
      if (Error error = driver.check(driver.cuMemsetD32(flushBuffer.get(), run,
                                                        flushBuffer.size() / 4),
                                     "cuMemsetD32(L2 flush)"))
        return std::move(error);
    driver.cuEventRecord(start, stream);
    if (Error error =
            plan.enqueue(stream, argumentSets[run % argumentSets.size()]))
      return std::move(error);
    driver.cuEventRecord(stop, stream);
    CUresult result = driver.cuEventSynchronize(stop);
    if (result != CUDA_SUCCESS)
      return evalError(isFaultCode(result) ? EvalStatus::Fault
                                           : EvalStatus::InternalError,
                       llvm::toString(driver.check(result, "timed run")));
    float ms = 0;
    driver.cuEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
    spent += ms;
  }
  return times;
}

EvalResult GpuEvaluator::Impl::evaluate(const ProblemSpec &spec,
                                        const LaunchPlan &reference,
                                        const LaunchPlan &candidate,
                                        const EvalConfig &config) {
  EvalResult result;
  result.deviceName = info.name;
  result.driverVersion = info.driverVersion;
  if (Error error = run(result, spec, reference, candidate, config))
    recordFailure(std::move(error), result);
  return result;
}

Error GpuEvaluator::Impl::run(EvalResult &result, const ProblemSpec &spec,
                              const LaunchPlan &reference,
                              const LaunchPlan &candidate,
                              const EvalConfig &config) {
  unsigned numInputs = spec.inputs.size(), numOutputs = spec.outputs.size();
  for (const LaunchPlan *plan : {&reference, &candidate})
    if (plan->numArguments != numInputs + numOutputs)
      return evalError(
          EvalStatus::LoadError,
          llvm::formatv("the {0} takes {1} buffers; the problem "
                        "has {2} inputs and {3} outputs",
                        plan == &reference ? "reference" : "candidate",
                        plan->numArguments, numInputs, numOutputs));

  // Load both plans first: a candidate over the device's limits never runs.
  llvm::SmallVector<KernelResources> ignored;
  Expected<std::unique_ptr<LoadedPlan>> referencePlan =
      LoadedPlan::load(driver, reference, info, "reference", ignored);
  if (!referencePlan)
    return referencePlan.takeError();
  Expected<std::unique_ptr<LoadedPlan>> candidatePlan =
      LoadedPlan::load(driver, candidate, info, "candidate", result.kernels);
  if (!candidatePlan)
    return candidatePlan.takeError();

  // Buffers: input sets (rotated in timing), a pristine copy of set 0's
  // inputs, reference outputs, candidate outputs. Sizes are rounded up to
  // 256 bytes and zero-filled so that raw-word comparisons see whole words.
  auto allocate = [&](int64_t bytes) -> Expected<DeviceBuffer> {
    Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(
        driver, roundUp(std::max<int64_t>(bytes, 1), 256));
    if (!buffer)
      return withStatus(buffer.takeError(), EvalStatus::ResourceLimit);
    if (Error error = driver.check(
            driver.cuMemsetD8(buffer->get(), 0, buffer->size()), "cuMemsetD8"))
      return std::move(error);
    return buffer;
  };
  unsigned numSets = std::max(1u, config.inputSets);
  std::vector<std::vector<DeviceBuffer>> inputSets(numSets);
  std::vector<DeviceBuffer> pristine, referenceOutputs, candidateOutputs;
  for (unsigned set = 0; set < numSets; ++set)
    for (const TensorSpec &input : spec.inputs) {
      Expected<DeviceBuffer> buffer = allocate(input.bytes());
      if (!buffer)
        return buffer.takeError();
      inputSets[set].push_back(std::move(*buffer));
    }
  for (const TensorSpec &input : spec.inputs) {
    Expected<DeviceBuffer> buffer = allocate(input.bytes());
    if (!buffer)
      return buffer.takeError();
    pristine.push_back(std::move(*buffer));
  }
  for (const TensorSpec &output : spec.outputs) {
    Expected<DeviceBuffer> ref = allocate(output.bytes());
    if (!ref)
      return ref.takeError();
    referenceOutputs.push_back(std::move(*ref));
    Expected<DeviceBuffer> cand = allocate(output.bytes());
    if (!cand)
      return cand.takeError();
    candidateOutputs.push_back(std::move(*cand));
  }
  auto arguments = [&](unsigned set, std::vector<DeviceBuffer> &outputs) {
    llvm::SmallVector<CUdeviceptr> args;
    for (DeviceBuffer &buffer : inputSets[set])
      args.push_back(buffer.get());
    for (DeviceBuffer &buffer : outputs)
      args.push_back(buffer.get());
    return args;
  };
  // What identifies a reference run's outputs across candidates.
  std::string referenceIdentity;
  {
    llvm::SHA256 hash;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << toJSON(reference) << toJSON(spec);
    hash.update(text);
    for (const auto &module : reference.modules) {
      hash.update(module.getKey());
      hash.update(module.getValue().image);
    }
    referenceIdentity = llvm::toHex(hash.final());
  }
  auto referenceKey = [&](uint64_t seed, bool negated, bool heavyTailed) {
    return llvm::formatv("{0}/{1}/{2}{3}", referenceIdentity, seed,
                         negated ? "n" : "", heavyTailed ? "h" : "")
        .str();
  };
  // Runs the reference on input set `set` (drawn as `key` says), or copies
  // its outputs back from the cache.
  auto runReference = [&](unsigned set, const std::string &key) -> Error {
    if (auto it = referenceCache.find(key); it != referenceCache.end()) {
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
            (*referencePlan)->enqueue(stream, arguments(set, referenceOutputs)))
      return error;
    if (Error error = synchronize("running the reference"))
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
        referenceCacheBytes + bytes > kCacheLimit)
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
    referenceCacheBytes += bytes;
    referenceCache[key] = std::move(copies);
    return Error::success();
  };
  auto fillSet = [&](unsigned set, uint64_t seed, bool negated = false,
                     bool heavyTailed = false) -> Error {
    for (auto [index, input] : llvm::enumerate(spec.inputs)) {
      TensorSpec drawn = input;
      if (negated)
        drawn.distribution = negate(input.distribution);
      if (Error error = fill(drawn, inputSets[set][index].get(),
                             seed * 1000003ull + index))
        return error;
      if (heavyTailed && input.isFloat()) {
        KernelArguments args;
        int64_t n = input.numElements();
        args.addVector(inputSets[set][index].get(), n);
        args.addI64(n);
        args.addI64((int64_t)(seed * 1000003ull + index + 17));
        args.addF64(8.0);
        if (Error error = launchRuntime(
                runtimeKernelName("scale_outliers", input.elementType), n,
                args))
          return error;
      }
    }
    return Error::success();
  };
  // Poison: all-ones bytes are NaN in every float format; integer outputs
  // alternate between two patterns so that no single value passes unwritten.
  auto poison = [&](unsigned trial) -> Error {
    for (auto [index, output] : llvm::enumerate(spec.outputs)) {
      unsigned char pattern = output.isFloat() || trial % 2 == 0 ? 0xFF : 0x5A;
      if (Error error =
              driver.check(driver.cuMemsetD8(candidateOutputs[index].get(),
                                             pattern, output.bytes()),
                           "cuMemsetD8(poison)"))
        return error;
    }
    return Error::success();
  };
  // Compares every output; records the worst trial per output.
  result.errors.assign(numOutputs, OutputErrors());
  auto compareAll = [&]() -> Expected<bool> {
    bool correct = true;
    for (auto [index, output] : llvm::enumerate(spec.outputs)) {
      Expected<OutputErrors> errors =
          compare(output, candidateOutputs[index].get(),
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
  };
  auto mismatchMessage = [&](llvm::StringRef when) {
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
  };

  // Trivial kernels the problem must reject (the degenerate-problem check).
  // Each stays a candidate while it passes on every trial with the
  // declared distributions.
  TrivialKernelVerdicts trivials(spec);
  if (!config.checkProblem)
    trivials.verdicts.clear();
  // Runs the trivial kernels against the reference outputs of this trial,
  // using the candidate's output buffers as scratch.
  auto checkTrivials = [&]() -> Error {
    for (TrivialKernelVerdicts::Verdict &trivial : trivials.verdicts) {
      if (!trivial.passes)
        continue;
      const TensorSpec &output = spec.outputs[trivial.kernel.output];
      CUdeviceptr reference = referenceOutputs[trivial.kernel.output].get();
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
                  driver.cuMemcpyDtoH(&word, reference + middle * 4, 4),
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
          compare(output, tried, reference, spec.atol, spec.rtol);
      if (!errors)
        return errors.takeError();
      trivial.passes = errors->mismatches == 0;
      ++trivial.judged;
    }
    return Error::success();
  };
  // The previous trial's outputs, for the check that outputs change when
  // the inputs do.
  std::vector<DeviceBuffer> previousCandidate, previousReference;
  if (config.trials >= 2)
    for (const TensorSpec &output : spec.outputs) {
      Expected<DeviceBuffer> cand = allocate(output.bytes());
      if (!cand)
        return cand.takeError();
      previousCandidate.push_back(std::move(*cand));
      Expected<DeviceBuffer> ref = allocate(output.bytes());
      if (!ref)
        return ref.takeError();
      previousReference.push_back(std::move(*ref));
    }
  bool anyDeclaredTrial = false;

  // Correctness trials on fresh inputs; trial 1 on negated distributions,
  // trial 2 with heavy tails.
  for (unsigned trial = 0; trial < config.trials; ++trial) {
    uint64_t seed = config.seed + trial;
    bool negated = config.negatedTrial && trial == 1;
    bool heavyTailed = config.heavyTailedTrial && trial == 2;
    if (Error error = fillSet(0, seed, negated, heavyTailed))
      return error;
    for (auto [index, input] : llvm::enumerate(spec.inputs))
      if (Error error =
              driver.check(driver.cuMemcpyDtoD(pristine[index].get(),
                                               inputSets[0][index].get(),
                                               inputSets[0][index].size()),
                           "cuMemcpyDtoD(pristine inputs)"))
        return error;
    if (Error error = runReference(0, referenceKey(seed, negated, heavyTailed)))
      return error;
    if (!negated && !heavyTailed) {
      anyDeclaredTrial = true;
      if (Error error = checkTrivials())
        return error;
    }
    if (Error error = poison(trial))
      return error;
    if (Error error =
            (*candidatePlan)->enqueue(stream, arguments(0, candidateOutputs)))
      return error;
    if (Error error = synchronize("running the candidate"))
      return error;
    for (auto [index, input] : llvm::enumerate(spec.inputs)) {
      Expected<int64_t> changed = countDifferentWords(
          inputSets[0][index].get(), pristine[index].get(), input.bytes());
      if (!changed)
        return changed.takeError();
      if (*changed)
        return evalError(EvalStatus::InputsModified,
                         llvm::formatv("the candidate modified input {0} ({1} "
                                       "words changed); inputs are read-only",
                                       index, *changed));
    }
    Expected<bool> correct = compareAll();
    if (!correct)
      return correct.takeError();
    if (!*correct) {
      result.status = EvalStatus::Incorrect;
      result.message = mismatchMessage(
          ("in trial " + llvm::Twine(trial) + " (seed " + llvm::Twine(seed) +
           (negated       ? ", negated input distributions"
            : heavyTailed ? ", heavy-tailed inputs"
                          : "") +
           ")")
              .str());
      if (!config.timeIncorrect)
        return Error::success();
      break; // time it anyway, for the diagnosis; it stays incorrect
    }
    // Outputs that stay bit-identical while the reference's change come
    // from somewhere other than the inputs (a cache, a replay).
    if (!previousCandidate.empty()) {
      if (trial > 0) {
        bool sameCandidate = true, sameReference = true;
        for (auto [index, output] : llvm::enumerate(spec.outputs)) {
          Expected<int64_t> candidateChanged = countDifferentWords(
              candidateOutputs[index].get(), previousCandidate[index].get(),
              output.bytes());
          if (!candidateChanged)
            return candidateChanged.takeError();
          Expected<int64_t> referenceChanged = countDifferentWords(
              referenceOutputs[index].get(), previousReference[index].get(),
              output.bytes());
          if (!referenceChanged)
            return referenceChanged.takeError();
          sameCandidate &= *candidateChanged == 0;
          sameReference &= *referenceChanged == 0;
        }
        if (sameCandidate && !sameReference) {
          result.status = EvalStatus::Cheating;
          result.message = llvm::formatv(
              "the outputs of trial {0} are bit for bit those of trial {1} "
              "although the inputs and the reference's outputs changed: "
              "the candidate does not compute from its inputs",
              trial, trial - 1);
          return Error::success();
        }
      }
      for (auto [index, output] : llvm::enumerate(spec.outputs)) {
        if (Error error =
                driver.check(driver.cuMemcpyDtoD(previousCandidate[index].get(),
                                                 candidateOutputs[index].get(),
                                                 output.bytes()),
                             "cuMemcpyDtoD(previous outputs)"))
          return error;
        if (Error error =
                driver.check(driver.cuMemcpyDtoD(previousReference[index].get(),
                                                 referenceOutputs[index].get(),
                                                 output.bytes()),
                             "cuMemcpyDtoD(previous reference outputs)"))
          return error;
      }
    }
  }

  bool incorrect = result.status == EvalStatus::Incorrect;
  if (config.checkProblem && anyDeclaredTrial && !incorrect) {
    if (std::optional<TrivialKernel> trivial = trivials.degenerate()) {
      result.status = EvalStatus::DegenerateProblem;
      result.problemCheck = "degenerate";
      result.message = degenerateProblemMessage(spec, *trivial);
      return Error::success();
    }
    result.problemCheck = "passed";
  }

  // Timing over rotated input sets (set 0 still holds the last trial's).
  for (unsigned set = 1; set < numSets; ++set)
    if (Error error = fillSet(set, config.seed + config.trials + set))
      return error;
  std::vector<llvm::SmallVector<CUdeviceptr>> candidateArgs, referenceArgs;
  for (unsigned set = 0; set < numSets; ++set) {
    candidateArgs.push_back(arguments(set, candidateOutputs));
    referenceArgs.push_back(arguments(set, referenceOutputs));
  }
  Expected<std::vector<double>> times =
      timeRuns(**candidatePlan, candidateArgs, config);
  if (!times)
    return times.takeError();
  result.candidateTime = summarizeTimes(*times);
  if (incorrect)
    return Error::success();

  // The last timed run's output must match the reference on its inputs:
  // replayed or cached results fail here.
  unsigned lastSet = (times->size() - 1) % numSets;
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
    return error;
  Expected<bool> correct = compareAll();
  if (!correct)
    return correct.takeError();
  if (!*correct) {
    result.status = EvalStatus::Incorrect;
    result.message = mismatchMessage("after the timed runs, on rotated inputs");
    return Error::success();
  }

  if (config.timeReference) {
    Expected<std::vector<double>> referenceTimes =
        timeRuns(**referencePlan, referenceArgs, config);
    if (!referenceTimes)
      return referenceTimes.takeError();
    result.referenceTime = summarizeTimes(*referenceTimes);
  }
  result.status = EvalStatus::Correct;
  result.message = "correct";
  return Error::success();
}

Expected<PlanIO> GpuEvaluator::Impl::runForIO(const ProblemSpec &spec,
                                              const LaunchPlan &plan,
                                              uint64_t seed, int64_t maxBytes) {
  int64_t total = 0;
  for (const TensorSpec &tensor :
       llvm::concat<const TensorSpec>(spec.inputs, spec.outputs))
    total += tensor.bytes();
  if (total > maxBytes)
    return evalError(EvalStatus::ResourceLimit,
                     llvm::formatv("the problem's inputs and outputs take {0} "
                                   "bytes; cross-checks are limited to {1}",
                                   total, maxBytes));
  llvm::SmallVector<KernelResources> ignored;
  Expected<std::unique_ptr<LoadedPlan>> loaded =
      LoadedPlan::load(driver, plan, info, "reference", ignored);
  if (!loaded)
    return loaded.takeError();
  std::vector<DeviceBuffer> buffers;
  llvm::SmallVector<CUdeviceptr> arguments;
  for (const TensorSpec &tensor :
       llvm::concat<const TensorSpec>(spec.inputs, spec.outputs)) {
    Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(
        driver, roundUp(std::max<int64_t>(tensor.bytes(), 1), 256));
    if (!buffer)
      return buffer.takeError();
    arguments.push_back(buffer->get());
    buffers.push_back(std::move(*buffer));
  }
  for (auto [index, input] : llvm::enumerate(spec.inputs))
    if (Error error = fill(input, arguments[index], seed * 1000003ull + index))
      return std::move(error);
  for (auto [index, output] : llvm::enumerate(spec.outputs))
    if (Error error = driver.check(
            driver.cuMemsetD8(arguments[spec.inputs.size() + index], 0xFF,
                              output.bytes()),
            "cuMemsetD8(poison)"))
      return std::move(error);
  if (Error error = (*loaded)->enqueue(stream, arguments))
    return std::move(error);
  if (Error error = synchronize("running the reference"))
    return std::move(error);
  PlanIO io;
  for (auto [index, tensor] : llvm::enumerate(
           llvm::concat<const TensorSpec>(spec.inputs, spec.outputs))) {
    std::string bytes(tensor.bytes(), '\0');
    if (Error error = driver.check(
            driver.cuMemcpyDtoH(bytes.data(), arguments[index], bytes.size()),
            "cuMemcpyDtoH"))
      return std::move(error);
    (index < spec.inputs.size() ? io.inputs : io.outputs)
        .push_back(std::move(bytes));
  }
  return io;
}

//===----------------------------------------------------------------------===//
// GpuEvaluator
//===----------------------------------------------------------------------===//

GpuEvaluator::GpuEvaluator(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
GpuEvaluator::~GpuEvaluator() = default;

Expected<std::unique_ptr<GpuEvaluator>>
GpuEvaluator::create(int device, const PlanModule &runtimeKernels) {
  Expected<CudaDriver &> driver = CudaDriver::get();
  if (!driver)
    return driver.takeError();
  Expected<Context> context = Context::retainPrimary(*driver, device);
  if (!context)
    return context.takeError();
  Expected<DeviceInfo> info = queryDevice(device);
  if (!info)
    return info.takeError();
  auto impl =
      std::make_unique<Impl>(*driver, std::move(*context), std::move(*info));
  if (Error error = impl->initialize(runtimeKernels))
    return std::move(error);
  return std::unique_ptr<GpuEvaluator>(new GpuEvaluator(std::move(impl)));
}

EvalResult GpuEvaluator::evaluate(const ProblemSpec &spec,
                                  const LaunchPlan &reference,
                                  const LaunchPlan &candidate,
                                  const EvalConfig &config) {
  return impl->evaluate(spec, reference, candidate, config);
}

std::optional<PlanIO> GpuEvaluator::runForIO(const ProblemSpec &spec,
                                             const LaunchPlan &plan,
                                             uint64_t seed, int64_t maxBytes,
                                             EvalResult &failure) {
  Expected<PlanIO> io = impl->runForIO(spec, plan, seed, maxBytes);
  if (!io) {
    recordFailure(io.takeError(), failure);
    return std::nullopt;
  }
  return std::move(*io);
}

const DeviceInfo &GpuEvaluator::device() const { return impl->info; }
