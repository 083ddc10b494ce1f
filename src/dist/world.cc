#include "dist/world.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#ifdef GRAPHOPT_HAVE_MPI
#include <mpi.h>
#endif

namespace graphopt {
namespace {

constexpr int kTag = 7;  // every message of graphopt

}  // namespace

bool LaunchedByMpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

World& World::Get() {
  static World world;
  return world;
}

World::World() {
#ifdef GRAPHOPT_HAVE_MPI
  if (!LaunchedByMpi()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
#endif
}

World::~World() {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_) MPI_Finalize();
#endif
}

Status World::SendTo(int rank, const std::string& message) {
  if (rank == rank_) return InternalError("a rank sends nothing to itself");
  if (rank < 0 || rank >= size_) return InternalError("no rank " + std::to_string(rank) + " to send to");
#ifdef GRAPHOPT_HAVE_MPI
  if (message.size() > static_cast<size_t>(INT32_MAX)) return InvalidArgument("a message of more than 2 GB");
  const int rc = MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, rank, kTag, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    return IoError("rank " + std::to_string(rank_) + ": sending to rank " + std::to_string(rank) + " failed");
  }
  return Status::Ok();
#else
  (void)message;
  return InternalError("a world of one has no other rank to send to");
#endif
}

bool World::HasMessage() {
#ifdef GRAPHOPT_HAVE_MPI
  if (!mpi_) return false;
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return flag != 0;
#else
  return false;
#endif
}

StatusOr<std::string> World::Receive(int* source) {
#ifdef GRAPHOPT_HAVE_MPI
  if (!mpi_ || size_ < 2) return InternalError("a world of one receives nothing");
  MPI_Status status;
  MPI_Probe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string message(static_cast<size_t>(count), '\0');
  MPI_Recv(message.data(), count, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (source != nullptr) *source = status.MPI_SOURCE;
  return message;
#else
  (void)source;
  return InternalError("a world of one receives nothing");
#endif
}

void World::Barrier() {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

#ifdef GRAPHOPT_HAVE_MPI
namespace {

// Every rank's `n` values of `type` at `data` replaced by their sum over the ranks.
Status SumOverRanks(void* data, size_t n, MPI_Datatype type, int rank) {
  if (n > static_cast<size_t>(INT32_MAX)) return InvalidArgument("a sum of more than 2^31 values");
  if (MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), type, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
    return IoError("rank " + std::to_string(rank) + ": summing over the ranks failed");
  }
  return Status::Ok();
}

}  // namespace
#endif

Status World::SumAll(std::vector<float>* values) {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1 && !values->empty()) return SumOverRanks(values->data(), values->size(), MPI_FLOAT, rank_);
#endif
  (void)values;
  return Status::Ok();
}

Status World::SumAll(std::vector<int64_t>* values) {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1 && !values->empty()) return SumOverRanks(values->data(), values->size(), MPI_INT64_T, rank_);
#endif
  (void)values;
  return Status::Ok();
}

Status World::SumAll(std::vector<double>* values) {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1 && !values->empty()) return SumOverRanks(values->data(), values->size(), MPI_DOUBLE, rank_);
#endif
  (void)values;
  return Status::Ok();
}

StatusOr<bool> World::AnyRank(bool flag) {
  std::vector<int64_t> count{flag ? 1 : 0};
  GO_RETURN_IF_ERROR(SumAll(&count));
  return count[0] > 0;
}

StatusOr<std::vector<std::string>> World::Gather(const std::string& text, bool to_all) {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1) {
    const std::string failed = "rank " + std::to_string(rank_) + (to_all ? ": gathering on every rank failed" : ": gathering on rank 0 failed");
    if (text.size() > static_cast<size_t>(INT32_MAX)) return InvalidArgument("a message of more than 2 GB");
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(to_all || root() ? static_cast<size_t>(size_) : 0);
    const int rc = to_all ? MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD)
                          : MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return IoError(failed);
    std::vector<int> offsets(lengths.size());
    int64_t total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    if (total > INT32_MAX) return InvalidArgument("gathering more than 2 GB");
    std::string all(static_cast<size_t>(total), '\0');
    const int rcv = to_all ? MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                                            MPI_CHAR, MPI_COMM_WORLD)
                           : MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                                         MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rcv != MPI_SUCCESS) return IoError(failed);
    std::vector<std::string> texts;
    for (size_t r = 0; r < lengths.size(); ++r) texts.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])));
    return texts;
  }
#endif
  (void)to_all;
  return std::vector<std::string>{text};
}

Status World::Broadcast(std::string* text, int from) {
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1) {
    if (from < 0 || from >= size_) return InvalidArgument("broadcast from rank " + std::to_string(from) + " of " + std::to_string(size_));
    if (text->size() > static_cast<size_t>(INT32_MAX)) return InvalidArgument("a message of more than 2 GB");
    const std::string failed = "rank " + std::to_string(rank_) + ": a broadcast from rank " + std::to_string(from) + " failed";
    int length = static_cast<int>(text->size());
    if (MPI_Bcast(&length, 1, MPI_INT, from, MPI_COMM_WORLD) != MPI_SUCCESS) return IoError(failed);
    text->resize(static_cast<size_t>(length));
    if (length > 0 && MPI_Bcast(text->data(), length, MPI_CHAR, from, MPI_COMM_WORLD) != MPI_SUCCESS) return IoError(failed);
  }
#endif
  (void)text;
  (void)from;
  return Status::Ok();
}

int ThreadsPerRank() {
  const World& world = World::Get();
  if (!world.distributed()) return 0;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / world.local_size());
}

void World::Abort(const std::string& message, int code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
#ifdef GRAPHOPT_HAVE_MPI
  if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

}  // namespace graphopt
