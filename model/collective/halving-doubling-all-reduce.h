/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HALVING_DOUBLING_ALL_REDUCE_H
#define AI_FABRIC_HALVING_DOUBLING_ALL_REDUCE_H

#include "step-graph-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllReduce by recursive halving (reduce-scatter) then recursive doubling
 * (all-gather), Rabenseifner's algorithm.
 *
 * With p = 2^k ranks, log2 p exchanges halve the range each rank reduces (partners
 * at distance p/2, p/4, .., 1; each sends the half it gives up and reduces the half
 * it keeps), then log2 p exchanges double it back (distance 1, 2, .., p/2). Every
 * rank sends and receives 2(p-1)/p x S in 2 log2 p messages: on an idle fabric
 * t = 2(p-1)/p x S/B + 2 log2(p) x alpha.
 *
 * With n not a power of two, p is the largest power of two below n and the r = n - p
 * extra ranks fold in first: of ranks 0 .. 2r-1, each even rank sends its whole
 * buffer to the odd rank after it, which reduces it and takes part in the exchanges;
 * at the end it sends the whole result back. Those pairs move S twice more.
 *
 * Each channel carries its share of S (split evenly) as separate exchanges on its own
 * connections; a message is not cut into ChunkSize pieces (each exchange waits for
 * the whole of the previous one). busbw = algbw x 2(n-1)/n (nccl-tests).
 */
class HalvingDoublingAllReduce : public StepGraphCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HalvingDoublingAllReduce();
    ~HalvingDoublingAllReduce() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    void PlanSteps() override;
};

} // namespace ns3

#endif /* AI_FABRIC_HALVING_DOUBLING_ALL_REDUCE_H */
