// The processes of one graphopt run. Launched by `mpirun -np N` (OpenMPI), or by
// `srun` under Slurm, a command runs as N ranks of MPI_COMM_WORLD; otherwise as a
// world of one, without initializing MPI (nothing changes for a plain run). Built
// without MPI, every run is a world of one.
//
// The messages are strings (JSON): rank 0 hands out work (bench rows) and gathers the
// results the other ranks send; rank 0 alone writes files and prints progress. Data-
// parallel training sums numbers over the ranks (gradients, counters) with
// collectives every rank calls in the same order. Only the thread that created the
// world calls MPI (MPI_THREAD_FUNNELED). A rank
// that fails aborts the whole job (MPI_Abort) with its message, so no rank waits
// forever for one that has stopped; a rank killed from outside is mpirun's to report
// (it ends the others within seconds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

class World {
 public:
  // The world of this process (MPI initialized on first use when launched as a
  // rank; finalized at exit).
  static World& Get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ranks on this machine (this one included): they share its cores.
  int local_size() const { return local_size_; }
  bool root() const { return rank_ == 0; }
  bool distributed() const { return size_ > 1; }

  // Sends `message` to another rank; SendToRoot to rank 0 (not from rank 0).
  Status SendTo(int rank, const std::string& message);
  Status SendToRoot(const std::string& message) { return SendTo(0, message); }
  // Whether a message from another rank is waiting (does not block).
  bool HasMessage();
  // The next message from any rank (blocks until one comes); its sender's rank in
  // *source if given.
  StatusOr<std::string> Receive(int* source = nullptr);
  // Waits for every rank.
  void Barrier();
  // Collectives (every rank calls them, in the same order, with as many values):
  // each value becomes its sum over the ranks (in place; nothing in a world of one).
  // With two ranks a float sum is exact (a + b == b + a), so every rank holds the
  // same bits a single process adding the two would.
  Status SumAll(std::vector<float>* values);
  Status SumAll(std::vector<int64_t>* values);
  Status SumAll(std::vector<double>* values);
  // Whether `flag` holds on any rank.
  StatusOr<bool> AnyRank(bool flag);
  // Every rank's `text` on rank 0, in rank order (empty on the other ranks); GatherAll:
  // on every rank.
  StatusOr<std::vector<std::string>> GatherToRoot(const std::string& text) { return Gather(text, false); }
  StatusOr<std::vector<std::string>> GatherAll(const std::string& text) { return Gather(text, true); }
  // Rank `from`'s `text` on every rank (in place).
  Status Broadcast(std::string* text, int from);
  // Prints `message` on this rank's standard error and ends every rank with `code`.
  [[noreturn]] void Abort(const std::string& message, int code = 1);

  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

 private:
  World();
  StatusOr<std::vector<std::string>> Gather(const std::string& text, bool to_all);
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  bool mpi_ = false;  // MPI was initialized here
};

// Threads of one rank's learned work: 0 (every core) in a plain run; under mpirun,
// the cores of the machine shared by the ranks on it.
int ThreadsPerRank();

// Whether this process was launched as a rank of an MPI job (mpirun, srun): the
// environment variables OpenMPI, PMI and PMIx set.
bool LaunchedByMpi();

}  // namespace graphopt
