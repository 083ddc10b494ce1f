// The suite's rows over the ranks of an MPI job (dist/world.h). Rank 0 hands the rows
// out one at a time, the costliest first by estimate, to whichever rank is free, a
// thread of its own included: a rank that drew quick rows takes more of them, so the
// estimate only orders the rows and need not be right. Each finished row becomes a
// message (text) on the rank that ran it; rank 0 receives every message, its own
// included, and hands it to `on_message` on its main thread (the one that calls MPI),
// in the order the rows end. In a world of one the rows run in order, in this thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "eval/suite.h"

namespace graphopt {

// Runs options.rows (options.show_progress: a progress bar on rank 0, by rows when
// distributed). `row_message` turns a finished row into its message, on the rank that
// ran it (from a worker thread on rank 0); `on_message`, on rank 0 alone, takes each.
// `costs` has one estimate per row (eval/suite.h EstimateRowSeconds). Returns on rank 0
// once every row's message was taken, on another rank once rank 0 has no row left for
// it. A failing row, or on_message failing, returns the error on its rank; the caller
// ends the job (World::Abort), which also stops the rows still running.
Status RunSuiteOverRanks(const SuiteOptions& options, const std::vector<double>& costs,
                         const std::function<std::string(const RowResult&)>& row_message,
                         const std::function<Status(const std::string&)>& on_message);

}  // namespace graphopt
