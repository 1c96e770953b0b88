/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_BROADCAST_H
#define AI_FABRIC_RING_BROADCAST_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Broadcast as NCCL's pipelined chain: the root's S bytes travel the ring from the
 * root, n - 1 hops, forwarded piece by piece.
 * busbw = algbw x 1 (nccl-tests).
 */
class RingBroadcast : public RingCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingBroadcast();
    ~RingBroadcast() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    void DoStart() override;
    uint32_t GetRingChunks(uint32_t n) const override;
    uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const override;
    uint32_t GetHops(uint32_t n) const override;
    uint32_t GetReducedHops(uint32_t n) const override;

  private:
    uint32_t m_root; //!< root rank, attribute
};

} // namespace ns3

#endif /* AI_FABRIC_RING_BROADCAST_H */
