/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HIERARCHICAL_ALL_REDUCE_H
#define AI_FABRIC_HIERARCHICAL_ALL_REDUCE_H

#include "hierarchical-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllReduce in three phases: a ring ReduceScatter of S inside every server (on the
 * scale-up domain), leaving local rank j with shard j (S/G bytes for G ranks per
 * server); a ring AllReduce of shard j on rail j (local rank j of every server, over
 * the NICs); a ring AllGather of S inside every server. Inter-server traffic is S/G
 * per rank instead of the flat ring's 2(n-1)/n x S.
 * Every server must hold the same number of the communicator's ranks.
 * busbw = algbw x 2(n-1)/n (nccl-tests).
 */
class HierarchicalAllReduce : public HierarchicalCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HierarchicalAllReduce();
    ~HierarchicalAllReduce() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    std::vector<Phase> PlanPhases(const Communicator::Hierarchy& h) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_HIERARCHICAL_ALL_REDUCE_H */
