#include "cli/cluster_flag.h"

#include <unistd.h>

#include <cstdlib>

#include "sim/cost_model.h"
#ifdef GRAPHOPT_HAVE_EXEC
#include "exec/local_cluster.h"
#include "exec/profiler.h"
#endif

namespace graphopt {
namespace {

bool LocalName(const std::string& name) { return name == "local" || name.rfind("local:", 0) == 0; }

[[maybe_unused]] Status NoExecutor(const std::string& what) {  // builds without LibTorch
  return InvalidArgument(what + ": this build has no executor (LibTorch was not found)");
}

}  // namespace

StatusOr<Cluster> LoadClusterFlag(const std::string& name) {
#ifdef GRAPHOPT_HAVE_EXEC
  if (LocalName(name)) return LocalCluster(name);
#else
  if (LocalName(name)) return NoExecutor("cluster " + name);
#endif
  return LoadCluster(name);
}

StatusOr<Cluster> LoadClusterAndProfile(const std::string& name, const std::string& profile, Graph* graph) {
  if (profile.empty()) return LoadClusterFlag(name);
#ifdef GRAPHOPT_HAVE_EXEC
  GO_ASSIGN_OR_RETURN(Profile p, ReadProfileJson(profile, *graph));
  GO_RETURN_IF_ERROR(ApplyProfile(p, CostModelOptions().measured_reference_flops, graph).WithContext(profile));
  if (LocalName(name) && p.cluster.name() == name) return p.cluster;
  return LoadClusterFlag(name);
#else
  (void)graph;
  return NoExecutor("--profile " + profile);
#endif
}

StatusOr<std::vector<std::vector<int>>> LocalCoresWithThreads(const std::string& name, char** argv) {
#ifdef GRAPHOPT_HAVE_EXEC
  if (!IsLocalClusterName(name)) return InvalidArgument("--cluster " + name + ": kernels run on this machine's cores: local or local:N");
  GO_ASSIGN_OR_RETURN(std::vector<std::vector<int>> sets, LocalCoreSets(name));
  const std::string want = std::to_string(CoresPerDevice(sets));
  const char* have = std::getenv("OMP_NUM_THREADS");
  if (have == nullptr || want != have) {
    setenv("OMP_NUM_THREADS", want.c_str(), 1);
    execv("/proc/self/exe", argv);
    return InternalError("cannot restart with OMP_NUM_THREADS=" + want + " (set it and run again)");
  }
  return sets;
#else
  (void)argv;
  return NoExecutor("cluster " + name);
#endif
}

}  // namespace graphopt
