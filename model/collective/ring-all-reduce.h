/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_ALL_REDUCE_H
#define AI_FABRIC_RING_ALL_REDUCE_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllReduce as NCCL's ring: a reduce-scatter of n - 1 hops, whose arrivals are
 * reduced, then an all-gather of n - 1 hops. S is the buffer size; every rank sends
 * and receives 2(n-1)/n x S. Time on an idle fabric: 2(n-1) x (alpha + S / (n B)) when
 * a step is one piece per channel, approaching 2(n-1)/n x S / B as pieces pipeline.
 * busbw = algbw x 2(n-1)/n (nccl-tests).
 */
class RingAllReduce : public RingCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingAllReduce();
    ~RingAllReduce() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    uint32_t GetRingChunks(uint32_t n) const override;
    uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const override;
    uint32_t GetHops(uint32_t n) const override;
    uint32_t GetReducedHops(uint32_t n) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_RING_ALL_REDUCE_H */
