/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_ALL_GATHER_H
#define AI_FABRIC_RING_ALL_GATHER_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllGather on a ring: rank j's chunk travels n - 1 hops. S is the output size (n
 * chunks of S/n); every rank sends and receives (n-1)/n x S.
 * busbw = algbw x (n-1)/n (nccl-tests).
 */
class RingAllGather : public RingCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingAllGather();
    ~RingAllGather() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    uint32_t GetRingChunks(uint32_t n) const override;
    uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const override;
    uint32_t GetHops(uint32_t n) const override;
    uint32_t GetReducedHops(uint32_t n) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_RING_ALL_GATHER_H */
