//===- MpiCluster.cpp - Evaluating ranks of an MPI job --------------------===//

#include "kf/Runtime/MpiCluster.h"
#include "kf/Runtime/WorkChannel.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
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
using kf::ChannelConnection;
using kf::ChannelMessage;

namespace {

enum Tag : uint8_t {
  kRequest = 1,
  kReply = 2,
  kHeartbeat = 3,
  kStop = 4,
  kStopped = 5,
  // Between the groups' driving ranks at the end.
  kDriverDone = 6,
  kVerdict = 7,
  // An evaluating rank's first words when it serves: what it evaluates
  // with.
  kHello = 8
};

/// How often an evaluating rank says it is alive (rank 0 takes a rank
/// silent for --mpi-silence for dead; at least a second).
constexpr std::chrono::milliseconds kHeartbeatInterval{250};
/// How long a rank tries each of its rank 0's addresses (connect, then the
/// welcome).
constexpr std::chrono::milliseconds kJoinPerAddress{5000};

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

/// `text` on `comm`'s rank 0, on every rank of `comm` (collective).
std::string broadcast(const std::string &text, MPI_Comm comm) {
  int size = (int)text.size();
  MPI_Bcast(&size, 1, MPI_INT, 0, comm);
  std::string received = text;
  received.resize(size);
  MPI_Bcast(received.data(), size, MPI_CHAR, 0, comm);
  return received;
}

std::string evaluatorRole(int rank) { return "rank " + std::to_string(rank); }
std::string driverRole(int group) { return "group " + std::to_string(group); }

} // namespace

/// Rank 0's side: the requests of every dispatch in progress, the ranks
/// holding them and their connections (one thread at a time, under
/// `mutex`). On an evaluating rank, only `link` and the stall watch.
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

  Dispatcher(int numRanks, Limits limits)
      : numRanks(numRanks), limits(limits), links(numRanks),
        dead(numRanks, false), excluded(numRanks, false), held(numRanks),
        lastHeard(numRanks), wantedSince(numRanks), hellos(numRanks) {}

  unsigned live() const { return numRanks - 1 - numDead; }
  /// Live ranks that may be sent work.
  unsigned usable() const {
    unsigned count = 0;
    for (int rank = 1; rank < numRanks; ++rank)
      count += !dead[rank] && !excluded[rank];
    return count;
  }

  std::vector<ChannelConnection *> openLinks() const {
    std::vector<ChannelConnection *> open;
    for (const auto &link : links)
      if (link && !link->closed())
        open.push_back(link.get());
    return open;
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
  /// the order it was sent. Its connection stays open (a rank taken for
  /// dead that was only slow is told to stop at the release, and its late
  /// words are ignored).
  void bury(int rank) {
    if (dead[rank])
      return;
    dead[rank] = true;
    ++numDead;
    for (auto it = held[rank].rbegin(); it != held[rank].rend(); ++it)
      queue.push_front(*it);
    held[rank].clear();
  }

  /// The messages that arrived on `rank`'s connection (and its death, when
  /// it closed).
  std::vector<ChannelMessage> receiveFrom(int rank) {
    ChannelConnection *link = links[rank].get();
    if (!link)
      return {};
    std::vector<ChannelMessage> messages = link->receive();
    if (!messages.empty())
      lastHeard[rank] = Clock::now();
    if (link->closed())
      bury(rank);
    return messages;
  }

  /// Takes in the messages that arrived, sends what fits, and finds dead
  /// ranks: a closed connection at once, a silent one after the silence
  /// limit. Returns whether anything happened. Nothing here waits.
  bool progress() {
    bool moved = false;
    unsigned deadBefore = numDead;
    // Messages first, so that a rank that just answered has room again.
    waitForChannels(openLinks(), std::chrono::milliseconds(0));
    for (int rank = 1; rank < numRanks; ++rank) {
      for (ChannelMessage &message : receiveFrom(rank)) {
        moved = true;
        if (message.tag == kHello && !hellos[rank])
          hellos[rank] = message.payload;
        // Late words of a rank taken for dead are ignored.
        if (dead[rank] || message.tag != kReply)
          continue;
        auto [id, text] = splitId(message.payload);
        auto it = llvm::find(held[rank], id);
        if (it != held[rank].end()) {
          held[rank].erase(it);
          deliver(id, text.str());
        }
      }
    }
    settleEvaluator();
    Clock::time_point now = Clock::now();
    // The ranks take one request each in turn while they have room, so
    // that work spreads over them; only ranks whose evaluator is the job's.
    for (bool sent = accepted.has_value(); sent && !queue.empty();) {
      sent = false;
      for (int rank = 1; rank < numRanks && !queue.empty(); ++rank) {
        if (dead[rank] || excluded[rank] || held[rank].size() >= limits.depth)
          continue;
        uint64_t id = queue.front();
        queue.pop_front();
        held[rank].push_back(id);
        links[rank]->send(kRequest, withId(id, *pending.at(id).text));
        if (links[rank]->closed())
          bury(rank);
        sent = moved = true;
      }
    }
    for (ChannelConnection *link : openLinks())
      link->flush();
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
      if (now - std::max(lastHeard[rank], *wantedSince[rank]) > limits.silence)
        bury(rank);
    }
    moved = moved || numDead != deadBefore;
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
  /// The group's communicator (its rank 0 drives); used only while the job
  /// starts and ends.
  MPI_Comm comm = MPI_COMM_WORLD;
  std::mutex mutex;
  uint64_t nextId = 1;
  std::map<uint64_t, Pending> pending;
  /// Requests not sent yet: those of dead ranks first, then in the order
  /// they were dispatched.
  std::deque<uint64_t> queue;
  /// Rank 0: the connection to each evaluating rank (index: rank). An
  /// evaluating rank: links[0], its connection to rank 0.
  std::vector<std::unique_ptr<ChannelConnection>> links;
  /// The job's first rank: a connection to every other group's rank 0
  /// (index: group). Another group's rank 0: links to the first rank at
  /// index 0.
  std::vector<std::unique_ptr<ChannelConnection>> driverLinks;
  /// Per rank (index: rank): found dead, the requests it holds (in the
  /// order sent), when it was last heard from, and since when it has been
  /// wanted (see progress).
  std::vector<bool> dead, excluded;
  std::vector<std::vector<uint64_t>> held;
  std::vector<Clock::time_point> lastHeard;
  std::vector<std::optional<Clock::time_point>> wantedSince;
  /// What each rank said it evaluates with, and the job's evaluator once
  /// settled (settleEvaluator).
  std::vector<std::optional<std::string>> hellos;
  std::optional<std::string> accepted;
  unsigned numDead = 0;

  /// When the channel calls in progress on this rank began (nanoseconds of
  /// the steady clock; 0: none), for the stall watchdog (watchForStalls).
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
  // A rank that dies must not end the job: MPI's errors are returned.
  // Writing to a peer that died must fail, not kill this process with
  // SIGPIPE (the work channel writes with MSG_NOSIGNAL; this covers MPI's
  // own sockets). (Subprocesses get the default disposition back;
  // Subprocess.cpp.)
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
  if (llvm::Error error = cluster->connectChannel()) {
    // Every rank knows (the verdict is collective) and ends its part.
    cluster->finished = true;
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return std::move(error);
  }
  return cluster;
}

llvm::Error kf::MpiCluster::connectChannel() {
  Dispatcher &d = *dispatcher;
  bool jobFirst = worldRank == 0;
  bool otherDriver = myRank == 0 && !jobFirst;
  // Every group's rank 0 listens; the job's first rank also takes the
  // other groups' rank 0s (for the end of the job).
  std::unique_ptr<ChannelListener> listener;
  std::optional<ChannelInvitation> invitation;
  std::string problem;
  if (myRank == 0) {
    llvm::Expected<std::unique_ptr<ChannelListener>> opened =
        ChannelListener::open();
    if (opened) {
      listener = std::move(*opened);
      invitation = ChannelInvitation::to(*listener);
      if (invitation->addresses.empty())
        problem = "rank 0 found no IPv4 address of its host to be reached at";
    } else {
      problem = llvm::toString(opened.takeError());
    }
  }
  std::string mine = invitation ? invitation->format() : "";
  std::string groupText = broadcast(mine, d.comm);
  std::string jobText = broadcast(jobFirst ? mine : "", MPI_COMM_WORLD);
  // Joining takes a few milliseconds, each rank 0 accepting while its own
  // joins the job's first rank; a rank tries every address of its rank 0
  // for at most kJoinPerAddress.
  auto join = [&](llvm::StringRef text, llvm::StringRef role,
                  llvm::StringRef whom) -> std::unique_ptr<ChannelConnection> {
    std::optional<ChannelInvitation> parsed = ChannelInvitation::parse(text);
    if (!parsed) {
      problem = (whom + " could not open the work channel").str();
      return nullptr;
    }
    llvm::Expected<std::unique_ptr<ChannelConnection>> joined =
        joinChannel(*parsed, role, kJoinPerAddress);
    if (!joined) {
      problem = llvm::formatv("rank {0} of group {1} on {2} cannot reach {3}: "
                              "{4}",
                              myRank, myGroup, hostName(), whom,
                              llvm::toString(joined.takeError()))
                    .str();
      return nullptr;
    }
    return std::move(*joined);
  };
  if (myRank != 0) {
    d.links[0] = join(groupText, evaluatorRole(myRank), "its rank 0");
  } else if (otherDriver) {
    d.driverLinks.resize(1);
    d.driverLinks[0] = join(jobText, driverRole(myGroup), "the job's rank 0");
  }
  std::string missing;
  if (listener) {
    std::vector<std::string> roles;
    for (int rank = 1; rank < numRanks; ++rank)
      roles.push_back(evaluatorRole(rank));
    if (jobFirst)
      for (int group = 1; group < groups(); ++group)
        roles.push_back(driverRole(group));
    auto deadline = Clock::now() + std::chrono::seconds(10) +
                    kJoinPerAddress * invitation->addresses.size();
    auto joined = acceptJoins(*listener, invitation->cookie, roles, deadline);
    for (int rank = 1; rank < numRanks; ++rank) {
      auto it = joined.find(evaluatorRole(rank));
      if (it == joined.end())
        missing += " " + evaluatorRole(rank);
      else
        d.links[rank] = std::move(it->second);
    }
    if (jobFirst) {
      d.driverLinks.resize(groups());
      for (int group = 1; group < groups(); ++group) {
        auto it = joined.find(driverRole(group));
        if (it == joined.end())
          missing += " " + driverRole(group) + "'s rank 0";
        else
          d.driverLinks[group] = std::move(it->second);
      }
    }
    if (!missing.empty() && problem.empty())
      problem = llvm::formatv("rank 0 of group {0} on {1} was not joined by "
                              "(ranks of its group):{2}",
                              myGroup, hostName(), missing)
                    .str();
  }
  // Everyone is alive here: the verdict is collective, so that every rank
  // goes on or every rank ends.
  int ok = problem.empty(), allOk = 0;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (allOk)
    return llvm::Error::success();
  if (problem.empty())
    problem = "another rank could not join the work channel (it says why)";
  return llvm::createStringError(
      "--mpi: the ranks cannot reach each other over TCP: " + problem +
      " (docs/search.md)");
}

kf::MpiCluster::MpiCluster(int rank, int size, Limits limits)
    : myRank(rank), numRanks(size),
      dispatcher(std::make_unique<Dispatcher>(size, limits)) {}

void kf::MpiCluster::releaseServers() {
  if (myRank != 0)
    return;
  std::lock_guard<std::mutex> lock(dispatcher->mutex);
  Dispatcher &d = *dispatcher;
  // Every rank is told to stop, the dead ones too while their connection
  // is open (one taken for dead may only have been slow), and each live
  // one answers once it has answered what it holds; one that does not
  // within the silence limit, or whose connection closes, is dead too.
  std::vector<bool> answered(numRanks, false);
  for (int rank = 1; rank < numRanks; ++rank)
    if (d.links[rank])
      d.links[rank]->send(kStop, "");
  Clock::time_point deadline = Clock::now() + d.limits.silence;
  auto waiting = [&] {
    for (int rank = 1; rank < numRanks; ++rank)
      if (!d.dead[rank] && !answered[rank])
        return true;
    return false;
  };
  while (waiting() && Clock::now() < deadline) {
    Dispatcher::InCalls inCalls(d);
    waitForChannels(d.openLinks(), std::chrono::milliseconds(20));
    for (int rank = 1; rank < numRanks; ++rank) {
      ChannelConnection *link = d.links[rank].get();
      if (!link)
        continue;
      std::vector<ChannelMessage> messages = link->receive();
      if (!messages.empty())
        d.lastHeard[rank] = Clock::now();
      for (ChannelMessage &message : messages)
        if (message.tag == kStopped && !d.dead[rank])
          answered[rank] = true;
      // Closed before it answered: dead now, not after the silence limit.
      if (link->closed() && !answered[rank])
        d.bury(rank);
    }
    for (ChannelConnection *link : d.openLinks())
      link->flush();
  }
  for (int rank = 1; rank < numRanks; ++rank)
    if (!answered[rank])
      d.bury(rank);
  stopped = true;
}

kf::MpiCluster::~MpiCluster() { finish(0); }

int kf::MpiCluster::finish(int status) {
  if (finished)
    return status;
  finished = true;
  Dispatcher &d = *dispatcher;
  if (d.watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(d.watchdogMutex);
      d.watchdogStop = true;
    }
    d.watchdogWake.notify_all();
    d.watchdog.join();
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
    // The groups' rank 0s report to the job's first rank on the work
    // channel, which then ends the job for all: it says "finalize", or
    // aborts. A driving rank that is gone counts as a lost one.
    if (worldRank != 0) {
      ChannelConnection &first = *d.driverLinks[0];
      first.send(kDriverDone,
                 llvm::formatv("{0} {1}", int(lost), status).str());
      std::optional<ChannelMessage> verdict;
      while (!verdict && !first.closed())
        verdict = first.receiveWithin(std::chrono::seconds(1));
      if (!verdict)
        MPI_Abort(MPI_COMM_WORLD, std::max(worst, 1));
    } else {
      std::vector<bool> reported(d.driverLinks.size(), false);
      reported[0] = true;
      auto allReported = [&] {
        return llvm::all_of(reported, [](bool b) { return b; });
      };
      while (!allReported()) {
        std::vector<ChannelConnection *> open;
        for (auto &link : d.driverLinks)
          if (link && !link->closed())
            open.push_back(link.get());
        waitForChannels(open, std::chrono::milliseconds(200));
        for (size_t group = 1; group < d.driverLinks.size(); ++group) {
          if (reported[group])
            continue;
          ChannelConnection &link = *d.driverLinks[group];
          for (ChannelMessage &message : link.receive()) {
            int groupLost = 1, groupStatus = 1;
            if (message.tag != kDriverDone ||
                sscanf(message.payload.c_str(), "%d %d", &groupLost,
                       &groupStatus) != 2)
              continue;
            lost = lost || groupLost;
            worst = std::max(worst, groupStatus);
            reported[group] = true;
          }
          if (!reported[group] && link.closed()) {
            lost = true;
            worst = std::max(worst, 1);
            reported[group] = true;
          }
        }
      }
      if (!lost)
        for (size_t group = 1; group < d.driverLinks.size(); ++group) {
          d.driverLinks[group]->send(kVerdict, "finalize");
          d.driverLinks[group]->flushAll(std::nullopt);
        }
    }
  }
  if (lost)
    MPI_Abort(MPI_COMM_WORLD, worst);
  for (auto &link : d.links)
    link.reset();
  d.driverLinks.clear();
  MPI_Comm_free(&d.comm);
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
  // Each request runs on a thread of its own; this thread, the only one on
  // the connection, sends the replies as they are ready and heartbeats.
  Dispatcher &d = *dispatcher;
  ChannelConnection &link = *d.links[0];
  std::map<uint64_t, std::thread> running;
  std::mutex finishedMutex;
  std::vector<std::pair<uint64_t, std::string>> finished;
  Clock::time_point lastHeard = Clock::now(), lastSaid = Clock::now();
  bool stopAsked = false;
  link.send(kHello, evaluator);
  while (true) {
    // Everything here is a channel call (watchForStalls); none waits
    // longer than the pause.
    Dispatcher::InCalls inCalls(d);
    std::vector<std::pair<uint64_t, std::string>> ready;
    {
      std::lock_guard<std::mutex> lock(finishedMutex);
      ready.swap(finished);
    }
    for (auto &[id, reply] : ready) {
      running.at(id).join();
      running.erase(id);
      link.send(kReply, withId(id, reply));
      lastSaid = Clock::now();
    }
    if (stopAsked && running.empty()) {
      link.send(kStopped, "");
      // The answer is on its way before this rank goes on.
      link.flushAll(d.limits.silence);
      stopped = true;
      return true;
    }
    Clock::time_point now = Clock::now();
    // Rank 0 is gone: its connection closed (it died, or ended), or it
    // sent nothing for idleLimit while this rank had nothing to do (a host
    // lost without a word). What runs is finished first (its reply has
    // nowhere to go).
    if (running.empty() && (link.closed() || now - lastHeard > idleLimit)) {
      abandoned = true;
      abandonedBecause =
          link.closed()
              ? ("its connection to rank 0 closed (" + link.closeReason() + ")")
                    .str()
              : llvm::formatv("rank 0 sent nothing for {0} s",
                              idleLimit.count() / 1000)
                    .str();
      return false;
    }
    if (now - lastSaid >= kHeartbeatInterval) {
      link.send(kHeartbeat, "");
      lastSaid = now;
    }
    link.flush();
    waitForChannels(&link, std::chrono::milliseconds(5));
    for (ChannelMessage &message : link.receive()) {
      lastHeard = Clock::now();
      if (message.tag == kStop)
        stopAsked = true;
      if (message.tag != kRequest)
        continue;
      auto [id, text] = splitId(message.payload);
      // Rank 0 never sends one id twice; a duplicate would lose a thread.
      if (running.count(id))
        continue;
      running.emplace(id, std::thread([&, id = id, text = text.str()] {
                        std::string reply = handle(text);
                        std::lock_guard<std::mutex> lock(finishedMutex);
                        finished.emplace_back(id, std::move(reply));
                      }));
    }
  }
}
