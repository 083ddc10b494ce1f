# Shared by the mpirun tests (sourced): a scratch folder $tmp removed at exit, OpenMPI
# allowed as root, fail (prints every log of $tmp), and kill_rank.

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; for f in "$tmp"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }

# kill_rank JOB PATTERN [READY_FILE]: waits for rank 1 of the mpirun job JOB (the
# process whose command line holds PATTERN) and, once READY_FILE exists (if given) and
# one second more, kills it with SIGKILL; then waits for the job. Sets job_code (its
# exit status) and job_seconds (from the call to the job's end).
kill_rank() {
  local job="$1" pattern="$2" ready="${3:-}" start victim="" pid
  start=$(date +%s)
  for _ in $(seq 1 100); do
    for pid in $(pgrep -f "$pattern" || true); do
      if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$pid; fi
    done
    [ -n "$victim" ] && break
    sleep 0.1
  done
  [ -n "$victim" ] || fail "rank 1 never started"
  if [ -n "$ready" ]; then
    for _ in $(seq 1 300); do [ -e "$ready" ] && break; sleep 0.1; done
    [ -e "$ready" ] || fail "$ready did not appear within 30 s"
  fi
  sleep 1
  kill -9 "$victim"
  job_code=0
  wait "$job" || job_code=$?
  job_seconds=$(( $(date +%s) - start ))
}
