//===- EvalResult.cpp - Evaluation results as JSON, host checks -----------===//
//
// What an evaluation reports and how it travels between processes (the
// measurement worker's replies are EvalResult JSON), and the host-side
// comparison of outputs; no CUDA here.
//
//===----------------------------------------------------------------------===//

#include "kf/Runtime/Evaluator.h"

#include "EvalFailure.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace kf;
using llvm::Error;
using llvm::Expected;

char EvalError::ID = 0;

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value kf::toJSON(const EvalConfig &c) {
  return llvm::json::Object{{"device", c.device},
                            {"trials", c.trials},
                            {"seed", (int64_t)c.seed},
                            {"input_sets", c.inputSets},
                            {"warmup_runs", c.warmupRuns},
                            {"min_timed_runs", c.minTimedRuns},
                            {"max_timed_runs", c.maxTimedRuns},
                            {"time_budget_ms", c.timeBudgetMs},
                            {"flush_l2", c.flushL2},
                            {"time_reference", c.timeReference},
                            {"negated_trial", c.negatedTrial},
                            {"heavy_tailed_trial", c.heavyTailedTrial},
                            {"check_problem", c.checkProblem},
                            {"time_incorrect", c.timeIncorrect}};
}

bool kf::fromJSON(const llvm::json::Value &value, EvalConfig &c,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper m(value, path);
  int64_t seed = c.seed;
  bool ok = m && m.mapOptional("device", c.device) &&
            m.mapOptional("trials", c.trials) && m.mapOptional("seed", seed) &&
            m.mapOptional("input_sets", c.inputSets) &&
            m.mapOptional("warmup_runs", c.warmupRuns) &&
            m.mapOptional("min_timed_runs", c.minTimedRuns) &&
            m.mapOptional("max_timed_runs", c.maxTimedRuns) &&
            m.mapOptional("time_budget_ms", c.timeBudgetMs) &&
            m.mapOptional("flush_l2", c.flushL2) &&
            m.mapOptional("time_reference", c.timeReference) &&
            m.mapOptional("negated_trial", c.negatedTrial) &&
            m.mapOptional("heavy_tailed_trial", c.heavyTailedTrial) &&
            m.mapOptional("check_problem", c.checkProblem) &&
            m.mapOptional("time_incorrect", c.timeIncorrect);
  c.seed = seed;
  return ok;
}

static llvm::json::Value toJSON(const TimingStats &t) {
  return llvm::json::Object{{"runs", t.runs},    {"median_ms", t.medianMs},
                            {"min_ms", t.minMs}, {"max_ms", t.maxMs},
                            {"p10_ms", t.p10Ms}, {"p90_ms", t.p90Ms}};
}

static bool fromJSON(const llvm::json::Value &value, TimingStats &t,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper m(value, path);
  return m && m.map("runs", t.runs) && m.map("median_ms", t.medianMs) &&
         m.map("min_ms", t.minMs) && m.map("max_ms", t.maxMs) &&
         m.map("p10_ms", t.p10Ms) && m.map("p90_ms", t.p90Ms);
}

llvm::json::Value kf::toJSON(const EvalResult &r) {
  llvm::json::Object object{{"status", stringifyCandidateStatus(r.status)},
                            {"message", r.message},
                            {"problem_check", r.problemCheck},
                            {"device", r.deviceName},
                            {"driver_version", r.driverVersion},
                            {"context_lost", r.contextLost}};
  llvm::json::Array errors;
  for (const OutputErrors &e : r.errors)
    errors.push_back(llvm::json::Object{{"output", e.output},
                                        {"elements", e.elements},
                                        {"mismatches", e.mismatches},
                                        {"first_mismatch", e.firstMismatch},
                                        {"max_abs_error", e.maxAbsError},
                                        {"max_rel_error", e.maxRelError}});
  object["errors"] = std::move(errors);
  if (r.candidateTime)
    object["time"] = ::toJSON(*r.candidateTime);
  if (r.referenceTime)
    object["reference_time"] = ::toJSON(*r.referenceTime);
  llvm::json::Array kernels;
  for (const KernelResources &k : r.kernels)
    kernels.push_back(
        llvm::json::Object{{"name", k.name},
                           {"registers", k.registers},
                           {"static_shared_bytes", k.staticSharedBytes},
                           {"dynamic_shared_bytes", k.dynamicSharedBytes},
                           {"local_bytes", k.localBytes},
                           {"threads_per_block", k.threadsPerBlock},
                           {"max_threads_per_block", k.maxThreadsPerBlock}});
  object["kernels"] = std::move(kernels);
  return object;
}

bool kf::fromJSON(const llvm::json::Value &value, EvalResult &r,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper m(value, path);
  std::string status;
  if (!m || !m.map("status", status) || !m.map("message", r.message) ||
      !m.mapOptional("problem_check", r.problemCheck))
    return false;
  std::optional<CandidateStatus> parsed = symbolizeCandidateStatus(status);
  if (!parsed || !isEvaluatorStatus(*parsed)) {
    path.field("status").report("unknown status");
    return false;
  }
  r.status = *parsed;
  m.mapOptional("device", r.deviceName);
  m.mapOptional("driver_version", r.driverVersion);
  m.mapOptional("context_lost", r.contextLost);
  const llvm::json::Object *object = value.getAsObject();
  if (const llvm::json::Array *errors = object->getArray("errors")) {
    for (const llvm::json::Value &e : *errors) {
      llvm::json::ObjectMapper em(e, path.field("errors"));
      OutputErrors out;
      if (!em || !em.map("output", out.output) ||
          !em.map("elements", out.elements) ||
          !em.map("mismatches", out.mismatches) ||
          !em.map("first_mismatch", out.firstMismatch) ||
          !em.map("max_abs_error", out.maxAbsError) ||
          !em.map("max_rel_error", out.maxRelError))
        return false;
      r.errors.push_back(out);
    }
  }
  if (const llvm::json::Value *t = object->get("time")) {
    TimingStats stats;
    if (!::fromJSON(*t, stats, path.field("time")))
      return false;
    r.candidateTime = stats;
  }
  if (const llvm::json::Value *t = object->get("reference_time")) {
    TimingStats stats;
    if (!::fromJSON(*t, stats, path.field("reference_time")))
      return false;
    r.referenceTime = stats;
  }
  if (const llvm::json::Array *kernels = object->getArray("kernels")) {
    for (const llvm::json::Value &k : *kernels) {
      llvm::json::ObjectMapper km(k, path.field("kernels"));
      KernelResources res;
      if (!km || !km.map("name", res.name) ||
          !km.map("registers", res.registers) ||
          !km.map("static_shared_bytes", res.staticSharedBytes) ||
          !km.map("dynamic_shared_bytes", res.dynamicSharedBytes) ||
          !km.map("local_bytes", res.localBytes) ||
          !km.map("threads_per_block", res.threadsPerBlock) ||
          !km.map("max_threads_per_block", res.maxThreadsPerBlock))
        return false;
      r.kernels.push_back(res);
    }
  }
  return true;
}

TimingStats kf::summarizeTimes(llvm::ArrayRef<double> times) {
  TimingStats stats;
  if (times.empty())
    return stats;
  std::vector<double> sorted(times.begin(), times.end());
  std::sort(sorted.begin(), sorted.end());
  auto quantile = [&](double q) {
    double pos = q * (sorted.size() - 1);
    size_t lo = (size_t)std::floor(pos), hi = (size_t)std::ceil(pos);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  };
  stats.runs = sorted.size();
  stats.minMs = sorted.front();
  stats.maxMs = sorted.back();
  stats.medianMs = quantile(0.5);
  stats.p10Ms = quantile(0.1);
  stats.p90Ms = quantile(0.9);
  return stats;
}

//===----------------------------------------------------------------------===//
// Host comparison
//===----------------------------------------------------------------------===//

/// Element `index` of raw bytes of `type`, widened to double.
static double loadElement(llvm::StringRef type, const char *data,
                          int64_t index) {
  auto read = [&](auto value) {
    std::memcpy(&value, data + index * sizeof(value), sizeof(value));
    return value;
  };
  if (type == "f32")
    return read(float());
  if (type == "f64")
    return read(double());
  if (type == "f16" || type == "bf16") {
    uint16_t bits = read(uint16_t());
    llvm::APFloat value(type == "f16" ? llvm::APFloat::IEEEhalf()
                                      : llvm::APFloat::BFloat(),
                        llvm::APInt(16, bits));
    return value.convertToDouble();
  }
  if (type == "i64")
    return (double)read(int64_t());
  if (type == "i32")
    return (double)read(int32_t());
  if (type == "i16")
    return (double)read(int16_t());
  if (type == "i1")
    return (double)(read(uint8_t()) & 1);
  return (double)read(int8_t());
}

OutputErrors kf::compareOnHost(const TensorSpec &tensor, llvm::StringRef out,
                               llvm::StringRef ref, double atol, double rtol) {
  OutputErrors errors;
  errors.elements = tensor.numElements();
  for (int64_t i = 0; i < errors.elements; ++i) {
    double o = loadElement(tensor.elementType, out.data(), i);
    double r = loadElement(tensor.elementType, ref.data(), i);
    bool ok = o == r || (std::isnan(o) && std::isnan(r)) ||
              std::fabs(o - r) <= atol + rtol * std::fabs(r);
    double absError = std::fabs(o - r);
    if (absError >= 0) {
      errors.maxAbsError = std::max(errors.maxAbsError, absError);
      // Relative errors only where the reference is not zero.
      if (std::fabs(r) > 0)
        errors.maxRelError =
            std::max(errors.maxRelError, absError / std::fabs(r));
    }
    if (!ok) {
      if (errors.mismatches == 0)
        errors.firstMismatch = i;
      ++errors.mismatches;
    }
  }
  return errors;
}
