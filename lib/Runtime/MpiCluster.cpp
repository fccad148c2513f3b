//===- MpiCluster.cpp - Evaluating ranks of an MPI job --------------------===//

#include "kf/Runtime/MpiCluster.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <atomic>
#include <deque>
#include <map>
#include <thread>

using Clock = std::chrono::steady_clock;

namespace {

enum Tag : int {
  kRequest = 1,
  kReply = 2,
  kHeartbeat = 3,
  kStop = 4,
  kStopped = 5
};

/// How often a busy evaluating rank says it is alive.
constexpr std::chrono::milliseconds kHeartbeatInterval{500};

/// Receives the message `status` announced (already probed).
std::string receive(const MPI_Status &probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_CHAR, &count);
  std::string buffer(std::max(count, 0), '\0');
  MPI_Status status;
  MPI_Recv(buffer.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG,
           MPI_COMM_WORLD, &status);
  return buffer;
}

} // namespace

llvm::Expected<std::unique_ptr<kf::MpiCluster>> kf::MpiCluster::create() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Rank 0 dispatches from the search's evaluation threads, one batch at
    // a time (kf-evolve serializes them): MPI is called from more than one
    // thread, never from two at once.
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS)
      return llvm::createStringError("--mpi: MPI does not initialize");
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      return llvm::createStringError(
          "--mpi: this MPI library does not let more than one thread call it "
          "(MPI_THREAD_SERIALIZED); use an MPI built with thread support, "
          "such as Debian's Open MPI");
    }
  }
  // A rank that dies must not end the job: errors are returned, and dead
  // ranks are found by their silence.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    return llvm::createStringError(
        "--mpi needs at least two ranks (mpirun -n 2 or more, or srun): rank "
        "0 drives the search and the others evaluate candidates");
  }
  return std::unique_ptr<MpiCluster>(new MpiCluster(rank, size));
}

kf::MpiCluster::MpiCluster(int rank, int size)
    : myRank(rank), numRanks(size), dead(size, false) {}

void kf::MpiCluster::releaseServers() {
  if (myRank == 0) {
    // Every rank but this one is told to stop, the dead ones too (one
    // taken for dead may only have been slow), and each live one answers;
    // one that does not within the silence limit is dead too.
    char none = 0;
    std::vector<MPI_Request> sends(numRanks, MPI_REQUEST_NULL);
    std::vector<bool> answered(numRanks, false);
    for (int rank = 1; rank < numRanks; ++rank)
      MPI_Isend(&none, 0, MPI_CHAR, rank, kStop, MPI_COMM_WORLD, &sends[rank]);
    Clock::time_point deadline = Clock::now() + silence;
    unsigned waiting = liveServers();
    while (waiting && Clock::now() < deadline) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
      if (!flag) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      receive(status);
      int rank = status.MPI_SOURCE;
      if (status.MPI_TAG == kStopped && !dead[rank] && !answered[rank]) {
        answered[rank] = true;
        --waiting;
      }
    }
    for (int rank = 1; rank < numRanks; ++rank) {
      if (!dead[rank] && !answered[rank]) {
        dead[rank] = true;
        ++numDead;
      }
      if (dead[rank])
        MPI_Request_free(&sends[rank]);
      else
        MPI_Wait(&sends[rank], MPI_STATUS_IGNORE);
    }
    stopped = true;
  }
}

kf::MpiCluster::~MpiCluster() {
  if (!stopped)
    releaseServers();
  if (myRank == 0) {
    if (numDead) {
      // MPI_Finalize is collective: Open MPI (4.1, without ULFM) can wait
      // in it forever for a rank that died. Everything is written by now,
      // so the job ends here, with exit status 0.
      llvm::outs().flush();
      llvm::errs().flush();
      MPI_Abort(MPI_COMM_WORLD, 0);
    }
  }
  // An evaluating rank that gave up on rank 0 cannot finalize with it.
  if (abandoned) {
    llvm::errs().flush();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
}

int kf::MpiCluster::localRank() const {
  MPI_Comm local;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, myRank,
                          MPI_INFO_NULL, &local) != MPI_SUCCESS)
    return myRank;
  int rank = myRank;
  MPI_Comm_rank(local, &rank);
  MPI_Comm_free(&local);
  return rank;
}

unsigned kf::MpiCluster::liveServers() const { return numRanks - 1 - numDead; }

std::vector<std::optional<std::string>>
kf::MpiCluster::dispatch(llvm::ArrayRef<std::string> requests,
                         std::chrono::milliseconds silence) {
  this->silence = silence;
  stopped = false; // the evaluating ranks serve until the next release
  std::vector<std::optional<std::string>> replies(requests.size());
  std::deque<size_t> queue;
  for (size_t index = 0; index < requests.size(); ++index)
    queue.push_back(index);
  struct InFlight {
    size_t index;
    Clock::time_point lastHeard;
    MPI_Request send;
  };
  std::map<int, InFlight> busy;
  while (!queue.empty() || !busy.empty()) {
    // Each free live rank takes the next request.
    for (int rank = 1; rank < numRanks && !queue.empty(); ++rank) {
      if (dead[rank] || busy.count(rank))
        continue;
      size_t index = queue.front();
      queue.pop_front();
      InFlight flight{index, Clock::now(), MPI_REQUEST_NULL};
      MPI_Isend(requests[index].data(), (int)requests[index].size(), MPI_CHAR,
                rank, kRequest, MPI_COMM_WORLD, &flight.send);
      busy[rank] = flight;
    }
    if (busy.empty())
      break; // requests left and no live rank to take them
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      std::string message = receive(status);
      auto it = busy.find(status.MPI_SOURCE);
      // Late words of a rank taken for dead are ignored.
      if (it == busy.end() || dead[status.MPI_SOURCE])
        continue;
      it->second.lastHeard = Clock::now();
      if (status.MPI_TAG == kReply) {
        MPI_Wait(&it->second.send, MPI_STATUS_IGNORE);
        replies[it->second.index] = std::move(message);
        busy.erase(it);
      }
      continue;
    }
    // Silent ranks are dead: their requests go back to the queue's front.
    Clock::time_point now = Clock::now();
    for (auto it = busy.begin(); it != busy.end();) {
      if (now - it->second.lastHeard <= silence) {
        ++it;
        continue;
      }
      dead[it->first] = true;
      ++numDead;
      queue.push_front(it->second.index);
      MPI_Request_free(&it->second.send);
      it = busy.erase(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return replies;
}

bool kf::MpiCluster::serve(
    const std::function<std::string(llvm::StringRef)> &handle,
    std::chrono::milliseconds idleLimit) {
  Clock::time_point lastHeard = Clock::now();
  while (true) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (!flag) {
      if (Clock::now() - lastHeard > idleLimit) {
        abandoned = true;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    std::string message = receive(status);
    if (status.MPI_TAG == kStop) {
      char none = 0;
      MPI_Send(&none, 0, MPI_CHAR, 0, kStopped, MPI_COMM_WORLD);
      stopped = true;
      return true;
    }
    if (status.MPI_TAG != kRequest)
      continue;
    // The work runs on its own thread; this one, the only one calling MPI,
    // says every so often that the rank is alive.
    std::string reply;
    std::atomic<bool> done{false};
    std::thread worker([&] {
      reply = handle(message);
      done = true;
    });
    Clock::time_point last = Clock::now();
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (Clock::now() - last >= kHeartbeatInterval) {
        char none = 0;
        MPI_Send(&none, 0, MPI_CHAR, 0, kHeartbeat, MPI_COMM_WORLD);
        last = Clock::now();
      }
    }
    worker.join();
    MPI_Send(reply.data(), (int)reply.size(), MPI_CHAR, 0, kReply,
             MPI_COMM_WORLD);
    lastHeard = Clock::now();
  }
}
