/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HIERARCHICAL_ALL_GATHER_H
#define AI_FABRIC_HIERARCHICAL_ALL_GATHER_H

#include "hierarchical-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllGather in two phases: a ring AllGather on rail j of shard j (S/G bytes of output
 * for G ranks per server), then a ring AllGather of S inside every server.
 * Every server must hold the same number of the communicator's ranks.
 * busbw = algbw x (n-1)/n (nccl-tests).
 */
class HierarchicalAllGather : public HierarchicalCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HierarchicalAllGather();
    ~HierarchicalAllGather() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    std::vector<Phase> PlanPhases(const Communicator::Hierarchy& h) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_HIERARCHICAL_ALL_GATHER_H */
