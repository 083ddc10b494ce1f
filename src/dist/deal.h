// Dealing a job's pieces of work (a pre-training round's graphs) to the ranks so that
// each rank's share costs about the same: the costliest piece first, each to the rank
// with the least cost so far (longest processing time first; within 4/3 of the best
// split). Every rank computes the same deal from the same costs, so no message is
// needed.
#pragma once

#include <vector>

namespace graphopt {

// The rank of each piece (0 .. ranks - 1), from the pieces' estimated costs (any unit,
// >= 0). Ties go to the lower rank and the earlier piece, so the deal is a function of
// its inputs alone. ranks must be >= 1.
std::vector<int> DealByCost(const std::vector<double>& costs, int ranks);

}  // namespace graphopt
