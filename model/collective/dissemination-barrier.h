/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_DISSEMINATION_BARRIER_H
#define AI_FABRIC_DISSEMINATION_BARRIER_H

#include "collective-operation.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Barrier as a dissemination barrier (Hensgen, Finkel and Manber 1988): it
 * completes when every rank has entered, and every rank learns it.
 *
 * In round k = 0 .. K-1, K = ceil(log2 n), rank r sends one message of S bytes to
 * rank (r + 2^k) mod n and leaves the round when the message of round k from rank
 * (r - 2^k) mod n has arrived; after K rounds every rank has heard, directly or
 * not, from every other. Any n works (no power of two needed); one rank completes
 * at once. S (the size given to Start) is the size of each message: 8 bytes stands
 * for the flag a barrier sends. Channels and ChunkSize do not apply: a round is one
 * message on channel 0.
 *
 * Collectives here start on every rank at once, so the barrier's time is the cost
 * of its messages: on an idle fabric with equal paths, K x alpha, alpha the time of
 * one S-byte message.
 *
 * busbw factor 0: a barrier carries no data; its figure of merit is its time.
 */
class DisseminationBarrier : public CollectiveOperation
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    DisseminationBarrier();
    ~DisseminationBarrier() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

    /// \param n ranks \return rounds of the barrier, ceil(log2 n)
    static uint32_t GetRounds(uint32_t n);

  protected:
    void DoStart() override;

  private:
    /// Rank `rank` enters round `round`: posts its message, leaves if already heard.
    /// \param rank a rank \param round a round
    void Enter(uint32_t rank, uint32_t round);
    /// Rank `rank` leaves its current round. \param rank a rank
    void Leave(uint32_t rank);
    /// The message of round `round` has arrived at rank `rank`.
    /// \param rank the receiving rank \param round the round
    void OnArrival(uint32_t rank, uint32_t round);

    uint32_t m_rounds{0};          //!< K
    std::vector<uint32_t> m_round; //!< per rank: round it is in (K: done)
    std::vector<uint8_t> m_heard;  //!< per rank x round: its message has arrived
    uint32_t m_ranksLeft{0};       //!< ranks not done
};

} // namespace ns3

#endif /* AI_FABRIC_DISSEMINATION_BARRIER_H */
