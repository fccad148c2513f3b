//===- MpiCluster.cpp - Evaluating ranks of an MPI job --------------------===//

#include "kf/Runtime/MpiCluster.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

using Clock = std::chrono::steady_clock;

namespace {

enum Tag : int {
  kRequest = 1,
  kReply = 2,
  kHeartbeat = 3,
  kStop = 4,
  kStopped = 5,
  // On MPI_COMM_WORLD, between the groups' driving ranks at the end.
  kDriverDone = 6,
  kVerdict = 7,
  // An evaluating rank's first words when it serves: what it evaluates
  // with.
  kHello = 8
};

/// How often an evaluating rank says it is alive: often while it has room
/// for more work (rank 0 sends work only to a rank it has just heard from),
/// less often while it is full.
constexpr std::chrono::milliseconds kReadyInterval{50};
constexpr std::chrono::milliseconds kHeartbeatInterval{500};
/// Rank 0 sends to a rank only this soon after hearing from it. Open MPI
/// 4.1 (without ULFM) has no defined behavior for a send to a process that
/// died, and its TCP transport can spin forever inside the next MPI call
/// when a send meets the closed socket; a rank heard from this recently is
/// almost surely alive.
constexpr std::chrono::milliseconds kFresh = 3 * kReadyInterval;

/// Receives the message `status` announced (already probed) on `comm`.
std::string receive(MPI_Comm comm, const MPI_Status &probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_CHAR, &count);
  std::string buffer(std::max(count, 0), '\0');
  MPI_Status status;
  MPI_Recv(buffer.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG,
           comm, &status);
  return buffer;
}

int64_t nanoseconds(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             time.time_since_epoch())
      .count();
}

/// Requests and replies carry their request's id: "<id>\n<text>".
std::string withId(uint64_t id, llvm::StringRef text) {
  return (llvm::Twine(id) + "\n" + text).str();
}
std::pair<uint64_t, llvm::StringRef> splitId(llvm::StringRef message) {
  auto [head, text] = message.split('\n');
  uint64_t id = 0;
  if (head.getAsInteger(10, id))
    return {0, message};
  return {id, text};
}

} // namespace

/// Rank 0's side: the requests of every dispatch in progress, the ranks
/// holding them, and every MPI call (one thread at a time, under `mutex`).
struct kf::MpiCluster::Dispatcher {
  /// One dispatch call's replies, and how many are still to come.
  struct Batch {
    std::vector<std::optional<std::string>> replies;
    size_t remaining = 0;
  };
  struct Pending {
    const std::string *text;
    Batch *batch;
    size_t index;
  };
  /// A request sent to a rank: its message lives until the send completes.
  struct Sent {
    std::string message;
    MPI_Request send = MPI_REQUEST_NULL;
  };

  Dispatcher(int numRanks, Limits limits)
      : numRanks(numRanks), limits(limits), dead(numRanks, false),
        excluded(numRanks, false), held(numRanks), lastHeard(numRanks),
        wantedSince(numRanks), hellos(numRanks) {}

  bool fresh(int rank, Clock::time_point now) const {
    return now - lastHeard[rank] <= kFresh;
  }

  unsigned live() const { return numRanks - 1 - numDead; }
  /// Live ranks that may be sent work.
  unsigned usable() const {
    unsigned count = 0;
    for (int rank = 1; rank < numRanks; ++rank)
      count += !dead[rank] && !excluded[rank];
    return count;
  }

  /// Once every live rank has said what it evaluates with: the job's
  /// evaluator is the one most ranks have (the lowest rank's among equals;
  /// a rank that could not set its problem up says nothing and is chosen
  /// only when all are alike), and the others get no work.
  void settleEvaluator() {
    if (accepted)
      return;
    std::map<std::string, std::pair<unsigned, int>> votes; // count, rank
    for (int rank = numRanks - 1; rank >= 1; --rank) {
      if (dead[rank])
        continue;
      if (!hellos[rank])
        return; // not yet
      auto &[count, lowest] = votes[*hellos[rank]];
      ++count;
      lowest = rank;
    }
    if (votes.empty())
      return;
    auto better = [](const auto &a, const auto &b) {
      bool aSet = !a.first.empty(), bSet = !b.first.empty();
      if (aSet != bSet)
        return aSet;
      if (a.second.first != b.second.first)
        return a.second.first > b.second.first;
      return a.second.second < b.second.second;
    };
    accepted = std::min_element(votes.begin(), votes.end(), better)->first;
    for (int rank = 1; rank < numRanks; ++rank)
      if (!dead[rank] && *hellos[rank] != *accepted)
        excluded[rank] = true;
  }

  /// `id` is answered (std::nullopt: by no rank).
  void deliver(uint64_t id, std::optional<std::string> reply) {
    auto it = pending.find(id);
    if (it == pending.end())
      return;
    Batch &batch = *it->second.batch;
    batch.replies[it->second.index] = std::move(reply);
    --batch.remaining;
    pending.erase(it);
  }

  /// `rank` is dead: what it held goes back to the front of the queue, in
  /// the order it was sent.
  void bury(int rank) {
    dead[rank] = true;
    ++numDead;
    for (auto it = held[rank].rbegin(); it != held[rank].rend(); ++it) {
      queue.push_front(it->first);
      // The send may never complete; its buffer is kept for MPI.
      MPI_Request_free(&it->second.send);
      unsent.push_back(std::move(it->second.message));
    }
    held[rank].clear();
  }

  /// Takes in the messages that arrived, sends what fits, and finds silent
  /// ranks dead. Returns whether anything happened.
  bool progress() {
    bool moved = false;
    // Messages first, so that a rank that just answered or said it has
    // room is heard from before anything is sent to it.
    for (unsigned taken = 0; taken < 64; ++taken) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &status);
      if (!flag)
        break;
      std::string message = receive(comm, status);
      moved = true;
      int rank = status.MPI_SOURCE;
      if (rank <= 0 || rank >= numRanks)
        continue;
      lastHeard[rank] = Clock::now();
      if (status.MPI_TAG == kHello && !hellos[rank])
        hellos[rank] = message;
      // Late words of a rank taken for dead are ignored.
      if (dead[rank] || status.MPI_TAG != kReply)
        continue;
      auto [id, text] = splitId(message);
      auto it = held[rank].find(id);
      if (it != held[rank].end()) {
        MPI_Wait(&it->second.send, MPI_STATUS_IGNORE);
        held[rank].erase(it);
        deliver(id, text.str());
      }
    }
    settleEvaluator();
    Clock::time_point now = Clock::now();
    // The ranks take one request each in turn while they have room, so
    // that work spreads over them; only ranks just heard from (see kFresh)
    // whose evaluator is the job's.
    for (bool sent = accepted.has_value(); sent && !queue.empty();) {
      sent = false;
      for (int rank = 1; rank < numRanks && !queue.empty(); ++rank) {
        if (dead[rank] || excluded[rank] || held[rank].size() >= limits.depth ||
            !fresh(rank, now))
          continue;
        uint64_t id = queue.front();
        queue.pop_front();
        Sent &sentRequest = held[rank][id];
        sentRequest.message = withId(id, *pending.at(id).text);
        MPI_Isend(sentRequest.message.data(), (int)sentRequest.message.size(),
                  MPI_CHAR, rank, kRequest, comm, &sentRequest.send);
        sent = moved = true;
      }
    }
    // A rank is wanted while it holds work or work waits for a rank; one
    // silent that long (counted from when it was first wanted: a rank may
    // take a while to set its problem up) is dead.
    for (int rank = 1; rank < numRanks; ++rank) {
      if (dead[rank] || excluded[rank])
        continue;
      if (held[rank].empty() && queue.empty()) {
        wantedSince[rank].reset();
        continue;
      }
      if (!wantedSince[rank])
        wantedSince[rank] = now;
      if (now - std::max(lastHeard[rank], *wantedSince[rank]) >
          limits.silence) {
        bury(rank);
        moved = true;
      }
    }
    // Requests left when no rank may take them: answered by none.
    if (!usable() && !queue.empty()) {
      for (uint64_t id : queue)
        deliver(id, std::nullopt);
      queue.clear();
      moved = true;
    }
    return moved;
  }

  int numRanks;
  Limits limits;
  /// The group's communicator (its rank 0 drives).
  MPI_Comm comm = MPI_COMM_WORLD;
  std::mutex mutex;
  uint64_t nextId = 1;
  std::map<uint64_t, Pending> pending;
  /// Requests not sent yet: those of dead ranks first, then in the order
  /// they were dispatched.
  std::deque<uint64_t> queue;
  /// Per rank (index: rank): found dead, the requests it holds, when it
  /// was last heard from, and since when it has been wanted (see progress).
  std::vector<bool> dead, excluded;
  std::vector<std::map<uint64_t, Sent>> held;
  std::vector<Clock::time_point> lastHeard;
  std::vector<std::optional<Clock::time_point>> wantedSince;
  /// What each rank said it evaluates with, and the job's evaluator once
  /// settled (settleEvaluator).
  std::vector<std::optional<std::string>> hellos;
  std::optional<std::string> accepted;
  /// Messages of sends to dead ranks, which may never complete.
  std::vector<std::string> unsent;
  unsigned numDead = 0;

  /// When the MPI calls in progress on this rank began (nanoseconds of the
  /// steady clock; 0: none), for the stall watchdog (watchForStalls).
  std::atomic<int64_t> callsSince{0};
  struct InCalls {
    explicit InCalls(Dispatcher &d) : d(d) {
      d.callsSince = nanoseconds(Clock::now());
    }
    ~InCalls() { d.callsSince = 0; }
    Dispatcher &d;
  };
  std::thread watchdog;
  std::mutex watchdogMutex;
  std::condition_variable watchdogWake;
  bool watchdogStop = false;
};

llvm::Expected<std::unique_ptr<kf::MpiCluster>>
kf::MpiCluster::create(Limits limits) {
  // Rank 0 dispatches from the search's evaluation threads, one at a time
  // (under the dispatcher's lock): MPI is called from more than one thread,
  // never from two at once.
  int initialized = 0, provided = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS)
      return llvm::createStringError("--mpi: MPI does not initialize");
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    if (!initialized)
      MPI_Finalize();
    return llvm::createStringError(
        "--mpi: this MPI library does not let more than one thread call it "
        "(MPI_THREAD_SERIALIZED); use an MPI built with thread support, "
        "such as Debian's Open MPI");
  }
  // A rank that dies must not end the job: errors are returned, and dead
  // ranks are found by their silence. A send to a rank that died, before
  // its silence says so, writes to a closed socket: the write must fail
  // (Open MPI then returns an error), not kill this process with SIGPIPE.
  // (Subprocesses get the default disposition back; Subprocess.cpp.)
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::signal(SIGPIPE, SIG_IGN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned groups = std::max(1u, limits.groups);
  if (size < 2 * (int)groups) {
    MPI_Finalize();
    if (groups == 1)
      return llvm::createStringError(
          "--mpi needs at least two ranks (mpirun -n 2 or more, or srun): "
          "rank 0 drives the search and the others evaluate candidates");
    return llvm::createStringError(
        llvm::Twine("--mpi-groups ") + llvm::Twine(groups) +
        " needs at least " + llvm::Twine(2 * groups) +
        " ranks (each group: one rank that drives its searches and at least "
        "one that evaluates); this job has " +
        llvm::Twine(size));
  }
  limits.depth = std::max(1u, limits.depth);
  // Groups of consecutive ranks whose sizes differ by at most one.
  std::vector<int> firstRanks;
  int base = size / groups, extra = size % groups, group = 0;
  for (unsigned index = 0, first = 0; index < groups; ++index) {
    firstRanks.push_back(first);
    first += base + (int(index) < extra ? 1 : 0);
    if (rank >= int(first))
      group = index + 1;
  }
  MPI_Comm comm;
  if (MPI_Comm_split(MPI_COMM_WORLD, group, rank, &comm) != MPI_SUCCESS) {
    MPI_Finalize();
    return llvm::createStringError("--mpi: the job's ranks do not split "
                                   "into groups");
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int groupRank = 0, groupSize = 1;
  MPI_Comm_rank(comm, &groupRank);
  MPI_Comm_size(comm, &groupSize);
  std::unique_ptr<MpiCluster> cluster(
      new MpiCluster(groupRank, groupSize, limits));
  cluster->dispatcher->comm = comm;
  cluster->worldRank = rank;
  cluster->myGroup = group;
  cluster->groupFirstRanks = std::move(firstRanks);
  // Each evaluating rank's place among those of its host: collective
  // calls, made here where every rank makes them.
  MPI_Comm host;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                          MPI_INFO_NULL, &host) == MPI_SUCCESS) {
    int evaluating = groupRank != 0, before = 0, hostRank = 0;
    MPI_Exscan(&evaluating, &before, 1, MPI_INT, MPI_SUM, host);
    MPI_Comm_rank(host, &hostRank);
    // MPI_Exscan leaves the first rank's result undefined.
    cluster->myHostEvaluatorIndex = hostRank == 0 ? 0 : before;
    MPI_Comm_free(&host);
  }
  return cluster;
}

kf::MpiCluster::MpiCluster(int rank, int size, Limits limits)
    : myRank(rank), numRanks(size),
      dispatcher(std::make_unique<Dispatcher>(size, limits)) {}

void kf::MpiCluster::releaseServers() {
  if (myRank != 0)
    return;
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  Dispatcher &d = *dispatcher;
  // Every rank but this one is told to stop once it is heard from (see
  // kFresh), the dead ones too if they speak (one taken for dead may only
  // have been slow), and each live one answers once it has answered what
  // it holds; one that does not within the silence limit is dead too.
  char none = 0;
  std::vector<MPI_Request> sends(numRanks, MPI_REQUEST_NULL);
  std::vector<bool> told(numRanks, false), answered(numRanks, false);
  Clock::time_point deadline = Clock::now() + d.limits.silence;
  unsigned waiting = d.live();
  while (waiting && Clock::now() < deadline) {
    Dispatcher::InCalls inCalls(d);
    Clock::time_point now = Clock::now();
    for (int rank = 1; rank < numRanks; ++rank)
      if (!told[rank] && d.fresh(rank, now)) {
        MPI_Isend(&none, 0, MPI_CHAR, rank, kStop, d.comm, &sends[rank]);
        told[rank] = true;
      }
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d.comm, &flag, &status);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    receive(d.comm, status);
    int rank = status.MPI_SOURCE;
    if (rank <= 0 || rank >= numRanks)
      continue;
    d.lastHeard[rank] = Clock::now();
    if (status.MPI_TAG == kStopped && told[rank] && !d.dead[rank] &&
        !answered[rank]) {
      answered[rank] = true;
      --waiting;
    }
  }
  for (int rank = 1; rank < numRanks; ++rank) {
    if (!d.dead[rank] && !answered[rank]) {
      d.dead[rank] = true;
      ++d.numDead;
    }
    if (sends[rank] == MPI_REQUEST_NULL)
      continue;
    if (d.dead[rank])
      MPI_Request_free(&sends[rank]);
    else
      MPI_Wait(&sends[rank], MPI_STATUS_IGNORE);
  }
  stopped = true;
}

kf::MpiCluster::~MpiCluster() { finish(0); }

int kf::MpiCluster::finish(int status) {
  if (finished)
    return status;
  finished = true;
  if (dispatcher->watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(dispatcher->watchdogMutex);
      dispatcher->watchdogStop = true;
    }
    dispatcher->watchdogWake.notify_all();
    dispatcher->watchdog.join();
  }
  if (myRank == 0 && !stopped)
    releaseServers();
  llvm::outs().flush();
  llvm::errs().flush();
  // An evaluating rank that gave up on its driving rank cannot finalize
  // with it.
  if (abandoned)
    MPI_Abort(MPI_COMM_WORLD, 1);
  // MPI_Finalize is collective: Open MPI (4.1, without ULFM) can wait in
  // it forever for a rank that died. A job that lost a rank ends through
  // MPI_Abort, once every group has written everything; its exit status
  // is the worst of the driving ranks'.
  bool lost = myRank == 0 && deadServers();
  int worst = status;
  if (groupFirstRanks.size() > 1 && myRank == 0) {
    // The groups' driving ranks report to the job's first rank, which
    // then ends the job for all: it says "finalize", or aborts.
    if (worldRank != 0) {
      int report[2] = {lost, status};
      MPI_Send(report, 2, MPI_INT, 0, kDriverDone, MPI_COMM_WORLD);
      int verdict = 0;
      MPI_Recv(&verdict, 1, MPI_INT, 0, kVerdict, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else {
      for (size_t others = 1; others < groupFirstRanks.size(); ++others) {
        int report[2] = {0, 0};
        MPI_Recv(report, 2, MPI_INT, MPI_ANY_SOURCE, kDriverDone,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        lost = lost || report[0];
        worst = std::max(worst, report[1]);
      }
      if (!lost)
        for (int first : llvm::ArrayRef(groupFirstRanks).drop_front()) {
          int finalize = 0;
          MPI_Send(&finalize, 1, MPI_INT, first, kVerdict, MPI_COMM_WORLD);
        }
    }
  }
  if (lost)
    MPI_Abort(MPI_COMM_WORLD, worst);
  MPI_Comm_free(&dispatcher->comm);
  MPI_Finalize();
  return worst;
}

void kf::MpiCluster::watchForStalls(std::chrono::milliseconds limit,
                                    std::function<void()> onStall) {
  if (dispatcher->watchdog.joinable())
    return;
  Dispatcher &d = *dispatcher;
  d.watchdog = std::thread([&d, limit, onStall = std::move(onStall)] {
    std::unique_lock<std::mutex> lock(d.watchdogMutex);
    while (!d.watchdogWake.wait_for(lock, std::chrono::milliseconds(500),
                                    [&] { return d.watchdogStop; })) {
      int64_t since = d.callsSince;
      if (!since ||
          nanoseconds(Clock::now()) - since <
              std::chrono::duration_cast<std::chrono::nanoseconds>(limit)
                  .count())
        continue;
      onStall();
      // MPI_Abort from this thread while another is inside MPI may itself
      // hang: the process ends without it after 10 s.
      std::thread([] {
        std::this_thread::sleep_for(std::chrono::seconds(10));
        std::_Exit(1);
      }).detach();
      MPI_Abort(MPI_COMM_WORLD, 1);
      std::_Exit(1);
    }
  });
}

std::string kf::MpiCluster::hostName() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS)
    return "";
  return std::string(name, std::max(length, 0));
}

std::optional<std::string> kf::MpiCluster::jobEvaluator() const {
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  return dispatcher->accepted;
}

std::vector<std::pair<int, std::string>>
kf::MpiCluster::excludedServers() const {
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  std::vector<std::pair<int, std::string>> excluded;
  for (int rank = 1; rank < numRanks; ++rank)
    if (dispatcher->excluded[rank])
      excluded.push_back({rank, dispatcher->hellos[rank].value_or("")});
  return excluded;
}

unsigned kf::MpiCluster::liveServers() const {
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  return dispatcher->live();
}

unsigned kf::MpiCluster::deadServers() const {
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  return dispatcher->numDead;
}

std::vector<std::optional<std::string>>
kf::MpiCluster::dispatch(llvm::ArrayRef<std::string> requests) {
  Dispatcher::Batch batch;
  batch.replies.resize(requests.size());
  batch.remaining = requests.size();
  {
    std::lock_guard<std::mutex> lock(dispatcher->mutex);
    stopped = false; // the evaluating ranks serve until the next release
    for (auto [index, request] : llvm::enumerate(requests)) {
      uint64_t id = dispatcher->nextId++;
      dispatcher->pending[id] = {&request, &batch, index};
      dispatcher->queue.push_back(id);
    }
  }
  // Every dispatching thread moves the work along, its own and the
  // others'; each returns once its own requests are answered.
  while (true) {
    bool moved;
    {
      std::lock_guard<std::mutex> lock(dispatcher->mutex);
      if (!batch.remaining)
        break;
      Dispatcher::InCalls inCalls(*dispatcher);
      moved = dispatcher->progress();
      if (!batch.remaining)
        break;
    }
    if (!moved)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return std::move(batch.replies);
}

bool kf::MpiCluster::serve(
    const std::function<std::string(llvm::StringRef)> &handle,
    std::chrono::milliseconds idleLimit, llvm::StringRef evaluator) {
  // Each request runs on a thread of its own; this thread, the only one
  // calling MPI, sends the replies as they are ready and says every so
  // often that the rank is alive: often while it has room for more work
  // (rank 0 sends only to a rank it has just heard from), less so when
  // full.
  std::map<uint64_t, std::thread> running;
  std::mutex finishedMutex;
  std::vector<std::pair<uint64_t, std::string>> finished;
  Clock::time_point lastHeard = Clock::now(), lastSaid = Clock::now();
  bool stopAsked = false;
  std::string hello = evaluator.str();
  {
    Dispatcher::InCalls inCalls(*dispatcher);
    MPI_Send(hello.data(), (int)hello.size(), MPI_CHAR, 0, kHello,
             dispatcher->comm);
  }
  while (true) {
    // Everything but the pause calls MPI (watchForStalls).
    {
      Dispatcher::InCalls inCalls(*dispatcher);
      std::vector<std::pair<uint64_t, std::string>> ready;
      {
        std::lock_guard<std::mutex> lock(finishedMutex);
        ready.swap(finished);
      }
      for (auto &[id, reply] : ready) {
        running.at(id).join();
        running.erase(id);
        std::string message = withId(id, reply);
        MPI_Send(message.data(), (int)message.size(), MPI_CHAR, 0, kReply,
                 dispatcher->comm);
        lastHeard = lastSaid = Clock::now();
      }
      if (stopAsked && running.empty()) {
        char none = 0;
        MPI_Send(&none, 0, MPI_CHAR, 0, kStopped, dispatcher->comm);
        stopped = true;
        return true;
      }
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(0, MPI_ANY_TAG, dispatcher->comm, &flag, &status);
      if (flag) {
        std::string message = receive(dispatcher->comm, status);
        lastHeard = Clock::now();
        if (status.MPI_TAG == kStop)
          stopAsked = true;
        if (status.MPI_TAG != kRequest)
          continue;
        auto [id, text] = splitId(message);
        // Rank 0 never sends one id twice; a duplicate would lose a thread.
        if (running.count(id))
          continue;
        running.emplace(id, std::thread([&, id = id, text = text.str()] {
                          std::string reply = handle(text);
                          std::lock_guard<std::mutex> lock(finishedMutex);
                          finished.emplace_back(id, std::move(reply));
                        }));
        continue;
      }
      Clock::time_point now = Clock::now();
      if (running.empty() && now - lastHeard > idleLimit) {
        abandoned = true;
        return false;
      }
      bool full = running.size() >= dispatcher->limits.depth;
      if (now - lastSaid >= (full ? kHeartbeatInterval : kReadyInterval)) {
        char none = 0;
        MPI_Send(&none, 0, MPI_CHAR, 0, kHeartbeat, dispatcher->comm);
        lastSaid = now;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}
