/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HIERARCHICAL_REDUCE_SCATTER_H
#define AI_FABRIC_HIERARCHICAL_REDUCE_SCATTER_H

#include "hierarchical-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief ReduceScatter in two phases: a ring ReduceScatter of S inside every server, leaving
 * local rank j with shard j (S/G bytes for G ranks per server), then a ring
 * ReduceScatter of shard j on rail j.
 * Every server must hold the same number of the communicator's ranks.
 * busbw = algbw x (n-1)/n (nccl-tests).
 */
class HierarchicalReduceScatter : public HierarchicalCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HierarchicalReduceScatter();
    ~HierarchicalReduceScatter() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    std::vector<Phase> PlanPhases(const Communicator::Hierarchy& h) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_HIERARCHICAL_REDUCE_SCATTER_H */
