//===- RankEvaluator.cpp - Candidates evaluated on an MPI job's ranks -----===//
//
// Rank 0 sends candidates to the evaluating ranks and reads their replies;
// each evaluating rank serves them with its LocalEvaluator. The wire format
// of both lives here: a request is a CandidateSource's JSON ({"kind",
// "text"}); a reply is {"outcome", "evaluator", "rank", "host"} and, where
// the rank measures on GPUs, "gpus" and "gpu_busy_seconds".
//
//===----------------------------------------------------------------------===//

#include "kf/Search/CandidateEvaluator.h"

#include "kf/Runtime/MpiCluster.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace kf {

RankEvaluator::RankEvaluator(MpiCluster &cluster, EvaluatorName &name)
    : cluster(cluster), name(name) {}

RankEvaluator::~RankEvaluator() = default;

unsigned RankEvaluator::width() const { return cluster.size() - 1; }

std::vector<Outcome>
RankEvaluator::evaluate(ArrayRef<CandidateSource> candidates) {
  std::vector<std::string> requests;
  for (const CandidateSource &candidate : candidates) {
    std::string text;
    raw_string_ostream(text) << toJSON(candidate);
    requests.push_back(std::move(text));
  }
  std::vector<std::optional<std::string>> replies = cluster.dispatch(requests);
  {
    std::lock_guard<std::mutex> lock(ranksMutex);
    unsigned dead = cluster.deadServers();
    if (dead > deathsSaid)
      WithColor::warning(errs(), "kf-evolve")
          << dead - deathsSaid
          << " evaluating rank(s) stopped answering; their candidates "
             "went to the others ("
          << cluster.liveServers() << " left)\n";
    deathsSaid = std::max(deathsSaid, dead);
    // Ranks that evaluate with another GPU model (or chip) than the job's
    // get no work: said once, when the job's evaluator is settled.
    if (!exclusionsSaid)
      if (std::optional<std::string> chosen = cluster.jobEvaluator()) {
        exclusionsSaid = true;
        for (auto &[rank, other] : cluster.excludedServers())
          WithColor::warning(errs(), "kf-evolve")
              << "evaluating rank " << rank << " evaluates with "
              << (other.empty() ? "nothing (it could not set the problem "
                                  "up)"
                                : other)
              << ", the job with " << *chosen
              << " (most ranks): it gets no candidates, so that results "
                 "are not compared across GPU models\n";
      }
  }
  std::vector<Outcome> outcomes;
  for (const std::optional<std::string> &reply : replies) {
    Outcome outcome = Outcome::failed(CandidateStatus::EvaluatorLost,
                                      "no evaluating rank is alive");
    Expected<json::Value> parsed =
        reply ? json::parse(*reply) : Expected<json::Value>(nullptr);
    if (!parsed) {
      outcome.error = "unreadable reply: " + toString(parsed.takeError());
    } else if (const json::Object *object = parsed->getAsObject()) {
      if (std::optional<int64_t> rank = object->getInteger("rank")) {
        std::lock_guard<std::mutex> lock(ranksMutex);
        RankUse &use = rankUses[*rank];
        ++use.evaluations;
        if (std::optional<StringRef> host = object->getString("host"))
          use.host = host->str();
        if (std::optional<double> busy = object->getNumber("gpu_busy_seconds"))
          use.busySeconds = std::max(use.busySeconds.value_or(0), *busy);
        if (const json::Array *devices = object->getArray("gpus"))
          use.gpus = *devices;
      }
      json::Path::Root root;
      const json::Value *value = object->get("outcome");
      if (value && fromJSON(*value, outcome, root))
        if (std::optional<StringRef> evaluator = object->getString("evaluator"))
          if (!evaluator->empty()) {
            name.set(evaluator->str());
            outcome.evaluator = evaluator->str();
          }
    }
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

/// Where each evaluating rank ran, how many candidates it answered, and
/// with GPUs which ones and how busy they were over rank 0's run.
void RankEvaluator::describeThroughput(json::Object &throughput,
                                       std::string &line,
                                       std::chrono::steady_clock::time_point,
                                       double wallSeconds) const {
  std::lock_guard<std::mutex> lock(ranksMutex);
  json::Array ranks;
  for (auto &[rank, use] : rankUses) {
    json::Object entry{
        {"rank", rank}, {"host", use.host}, {"evaluations", use.evaluations}};
    line += formatv("; rank {0} on {1}: {2} evaluations", rank, use.host,
                    use.evaluations)
                .str();
    if (use.busySeconds) {
      entry["gpus"] = json::Array(use.gpus);
      entry["busy_fraction"] = *use.busySeconds / wallSeconds;
      std::string gpuList;
      for (const json::Value &gpu : use.gpus)
        gpuList += (gpuList.empty() ? "" : ",") +
                   std::to_string(gpu.getAsInteger().value_or(-1));
      line += formatv(", GPU {0} busy {1:P0}", gpuList,
                      *use.busySeconds / wallSeconds)
                  .str();
    }
    ranks.push_back(std::move(entry));
  }
  if (!ranks.empty())
    throughput["ranks"] = std::move(ranks);
}

LogicalResult serveCandidates(MpiCluster &cluster, LocalEvaluator &evaluator,
                              const EvaluatorName &name, double mpiSilence) {
  // Rank 0 may leave an evaluating rank idle for a round's slowest
  // candidate or while it writes the report; far longer means it died.
  std::chrono::milliseconds idleLimit(
      (int64_t)(std::max(600.0, 20 * mpiSilence) * 1000));
  std::string host = cluster.hostName();
  bool stopped = cluster.serve(
      [&](StringRef request) -> std::string {
        CandidateSource candidate;
        Expected<json::Value> parsed = json::parse(request);
        json::Path::Root root;
        if (!parsed)
          consumeError(parsed.takeError());
        Outcome outcome = Outcome::failed(CandidateStatus::CompileError,
                                          "malformed request", "request");
        if (parsed && fromJSON(*parsed, candidate, root))
          outcome = evaluator.evaluate({candidate}).front();
        json::Object object{{"outcome", toJSON(outcome)},
                            {"evaluator", outcome.evaluator.empty()
                                              ? name.get()
                                              : outcome.evaluator},
                            {"rank", cluster.rank()},
                            {"host", host}};
        // How long this rank's GPUs have measured so far: rank 0 reports
        // each rank's busy fraction.
        if (auto use = evaluator.gpuUse()) {
          object["gpus"] = json::Array(use->first);
          object["gpu_busy_seconds"] = use->second;
        }
        std::string reply;
        raw_string_ostream(reply) << json::Value(std::move(object));
        return reply;
      },
      idleLimit, evaluator.measuredOn());
  if (stopped)
    return success();
  reportError(formatv("rank {0}: {1}; rank 0 is taken for dead and the job "
                      "ends",
                      cluster.rank(), cluster.abandonReason())
                  .str());
  return failure();
}

void serveSetupFailure(MpiCluster &cluster) {
  std::string reply;
  raw_string_ostream(reply) << json::Value(json::Object{
      {"outcome", toJSON(Outcome::failed(
                      CandidateStatus::CompileError,
                      "this rank could not set the problem up", "rank"))},
      {"evaluator", ""}});
  cluster.serve([&](StringRef) { return reply; }, std::chrono::seconds(600),
                /*evaluator=*/"");
}

void releaseEvaluatingRanks(MpiCluster &cluster) {
  // A rank that died holding no candidate is found only here, when it does
  // not answer the stop: the search lost nothing, but the user is told
  // (deaths found earlier were said after their dispatch).
  unsigned deadBefore = cluster.deadServers();
  cluster.releaseServers();
  if (unsigned dead = cluster.deadServers(); dead > deadBefore)
    WithColor::warning(errs(), "kf-evolve")
        << dead - deadBefore
        << " evaluating rank(s) stopped answering while they held no "
           "candidate; none was lost ("
        << cluster.liveServers() << " left)\n";
}

} // namespace kf
