//===- Evaluator.cpp - Correctness and timing on the GPU ------------------===//

#include "kf/Runtime/Evaluator.h"

#include "kf/Runtime/RuntimeKernels.h"

#include "EvalFailure.h"
#include "EvaluatorImpl.h"

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
  return evalError(isFaultCode(result) ? CandidateStatus::Fault
                                       : CandidateStatus::InternalError,
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
      return evalError(isFaultCode(result) ? CandidateStatus::Fault
                                           : CandidateStatus::InternalError,
                       llvm::toString(driver.check(result, "timed run")));
    float ms = 0;
    driver.cuEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
    spent += ms;
  }
  return times;
}

Expected<PlanIO> GpuEvaluator::Impl::runForIO(const ProblemSpec &spec,
                                              const LaunchPlan &plan,
                                              uint64_t seed, int64_t maxBytes) {
  if (Error error = checkBufferCount(plan, spec, "plan"))
    return std::move(error);
  int64_t total = 0;
  for (const TensorSpec &tensor :
       llvm::concat<const TensorSpec>(spec.inputs, spec.outputs))
    total += tensor.bytes();
  if (total > maxBytes)
    return evalError(CandidateStatus::ResourceLimit,
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
