/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PAIRWISE_EXCHANGE_H
#define AI_FABRIC_PAIRWISE_EXCHANGE_H

#include "collective-operation.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The pairwise exchange shared by AlltoAll and AlltoAllv: every rank sends its
 * share to every other rank, with a bounded number of peers at once.
 *
 * GetPairBytes(src, dst) is what rank src sends to rank dst. In round k = 1 .. n-1,
 * rank r sends to rank (r + k) mod n (and receives from (r - k) mod n), so in every
 * round each rank sends to one rank and receives from one rank. A rank's share for
 * itself is a local copy: no link, no time, not counted as sent or received. Rounds
 * of zero bytes are skipped: they post nothing and take no window slot.
 *
 * Window (MaxPeers): each rank has at most MaxPeers rounds outstanding. It posts its
 * first MaxPeers rounds at once, and its next round whenever one of its outstanding
 * rounds has arrived completely, in round order; ranks do not wait for each other.
 * MaxPeers 0 (the default), or any value of n-1 or more, posts every round at once,
 * as NCCL does (its AlltoAll posts a send and a receive for every peer in one group).
 * MaxPeers 1 runs the exchange round by round.
 *
 * A round's bytes are split over the Channels (SplitBytes; each channel its own
 * connection, as in the ring) and, on a channel, into pieces of at most ChunkSize
 * bytes, all posted together (there is nothing to forward, so pieces only bound the
 * size of a message); empty parts are not posted. The round has arrived when its
 * last piece has. The sender learns of the arrival at the instant the last byte is
 * at the receiver (a real NIC learns it one acknowledgement later; not modelled).
 *
 * Events: one arrival per piece, nothing per packet. State: O(n x window) besides
 * what GetPairBytes needs.
 *
 * busbw = algbw x (n-1)/n (nccl-tests' AlltoAll factor).
 */
class PairwiseExchange : public CollectiveOperation
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    PairwiseExchange();
    ~PairwiseExchange() override;

    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    /// Counts the rounds with bytes and posts every rank's first window.
    void DoStart() override;

    /**
     * \param src source rank \param dst destination rank (!= src)
     * \return the bytes src sends to dst (0: nothing)
     */
    virtual uint64_t GetPairBytes(uint32_t src, uint32_t dst) const = 0;

  private:
    /**
     * Post the next round of a rank that has bytes, if any, in a window slot.
     * \param src the rank \param slot the free window slot (< m_window)
     */
    void PostNextRound(uint32_t src, uint32_t slot);
    /**
     * A piece of the round in a slot has arrived.
     * \param src the sending rank \param slot its window slot
     */
    void OnArrival(uint32_t src, uint32_t slot);

    uint32_t m_maxPeers;                //!< rounds outstanding per rank (0: all), attribute
    uint32_t m_window{0};               //!< rounds outstanding per rank, 1 .. n-1
    std::vector<uint32_t> m_nextRound;  //!< per rank: the next round to consider
    std::vector<uint64_t> m_piecesLeft; //!< per rank x slot: pieces not arrived
    uint64_t m_roundsLeft{0};           //!< rounds (with bytes) not arrived, all ranks
};

} // namespace ns3

#endif /* AI_FABRIC_PAIRWISE_EXCHANGE_H */
