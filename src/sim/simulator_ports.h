// The ports part of one simulation (Simulator::Simulate): which waiting transfers
// start when links share ports (sim/cluster.h; semantics in sim/simulator.h,
// "Transfers"). Not part of the interface: sim/simulator_run.h includes it.
//
// The scheme, exact and cheap: the links with transfers waiting and the busy links are
// bit sets over links, and each link knows the bit set of the links it shares a port
// with (Simulator::link_conflict_bits_). A link is blocked while a link it shares a
// port with is busy, so a dispatch ORs the conflict sets of the busy links; the
// candidates are the waiting links neither busy nor blocked. The candidate whose first
// waiting transfer goes first (TransferLess, ties to the lower link) starts, its
// conflicts join the blocked links, and again until no candidate is left: transfers
// start as if, over and over, the best waiting transfer whose link and ports are all
// free took them. A dispatch costs a word operation per busy link (one word per 64
// links: one for up to 8 devices) and reads the queues of the candidates only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/simulator.h"
#include "sim/simulator_scratch.h"

namespace graphopt {

struct Simulator::Ports {
  using TransferEntry = sim_internal::TransferEntry;
  using TransferLess = sim_internal::TransferLess;

  const Simulator& sim;
  SimScratchState& st;

  // Every port and link free, no transfer waiting: the start of a simulation.
  void Reset() {
    st.ports_changed = false;
    for (auto* bits : {&st.link_waiting, &st.link_busy_bits, &st.link_candidates, &st.link_blocked}) {
      bits->assign(static_cast<size_t>(sim.link_words_), 0);
    }
  }

  static void Set(std::vector<uint64_t>& bits, size_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }
  static void Clear(std::vector<uint64_t>& bits, size_t i) { bits[i >> 6] &= ~(uint64_t{1} << (i & 63)); }

  // The links sharing a port with busy link ul block.
  void Block(size_t ul) {
    const size_t lw = static_cast<size_t>(sim.link_words_);
    const uint64_t* conflicts = sim.link_conflict_bits_.data() + ul * lw;
    for (size_t w = 0; w < lw; ++w) st.link_blocked[w] |= conflicts[w];
  }

  // A transfer joined link ul's queue.
  void Queued(size_t ul) {
    Set(st.link_waiting, ul);
    st.ports_changed = true;
  }

  // Link ul starts a transfer: it and its ports are busy until it ends.
  void Take(size_t ul) { Set(st.link_busy_bits, ul); }

  // The transfer on link ul ends: it and its ports free.
  void Free(size_t ul) {
    Clear(st.link_busy_bits, ul);
    st.ports_changed = true;
  }

  // Whether link a's first waiting transfer goes before link b's.
  bool Before(int32_t a, int32_t b) const {
    const TransferEntry& ta = st.queue[static_cast<size_t>(a)].front();
    const TransferEntry& tb = st.queue[static_cast<size_t>(b)].front();
    if (TransferLess()(tb, ta)) return true;
    if (TransferLess()(ta, tb)) return false;
    return a < b;
  }

  // Starts every transfer that may start now (see the file comment): takes it off its
  // link's queue and calls start(link, transfer), which takes the link and its ports.
  template <typename StartTransfer>
  void Dispatch(StartTransfer&& start) {
    if (!st.ports_changed) return;  // no transfer queued or ended: none can start
    st.ports_changed = false;
    const size_t lw = static_cast<size_t>(sim.link_words_);
    uint64_t any = 0;
    for (size_t w = 0; w < lw; ++w) {
      st.link_candidates[w] = st.link_waiting[w] & ~st.link_busy_bits[w];
      any |= st.link_candidates[w];
    }
    if (any == 0) return;
    const uint64_t* conflicts = sim.link_conflict_bits_.data();
    for (size_t b = 0; b < lw; ++b) {  // blocked word b, accumulated in a register
      uint64_t blocked = 0;
      for (size_t w = 0; w < lw; ++w) {
        for (uint64_t m = st.link_busy_bits[w]; m != 0; m &= m - 1) {
          blocked |= conflicts[(w * 64 + static_cast<size_t>(__builtin_ctzll(m))) * lw + b];
        }
      }
      st.link_blocked[b] = blocked;
    }
    for (;;) {
      int32_t best = -1;
      for (size_t w = 0; w < lw; ++w) {
        for (uint64_t m = st.link_candidates[w] & ~st.link_blocked[w]; m != 0; m &= m - 1) {
          const int32_t link = static_cast<int32_t>(w * 64) + __builtin_ctzll(m);
          if (best < 0 || Before(link, best)) best = link;
        }
      }
      if (best < 0) return;
      const size_t ub = static_cast<size_t>(best);
      Clear(st.link_candidates, ub);
      auto& q = st.queue[ub];
      std::pop_heap(q.begin(), q.end(), TransferLess());
      const TransferEntry e = q.back();
      q.pop_back();
      if (q.empty()) Clear(st.link_waiting, ub);
      start(best, e);
      Block(ub);
    }
  }
};

}  // namespace graphopt
