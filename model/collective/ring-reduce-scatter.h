/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_REDUCE_SCATTER_H
#define AI_FABRIC_RING_REDUCE_SCATTER_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief ReduceScatter on a ring: chunk j enters at rank j + 1 and is reduced on each of
 * its n - 1 hops, ending at rank j. S is the input size (n chunks of S/n); every rank
 * sends and receives (n-1)/n x S.
 * busbw = algbw x (n-1)/n (nccl-tests).
 */
class RingReduceScatter : public RingCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingReduceScatter();
    ~RingReduceScatter() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    uint32_t GetRingChunks(uint32_t n) const override;
    uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const override;
    uint32_t GetHops(uint32_t n) const override;
    uint32_t GetReducedHops(uint32_t n) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_RING_REDUCE_SCATTER_H */
