/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "hierarchical-all-gather.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalAllGather");

NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllGather);

TypeId
HierarchicalAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalAllGather")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HierarchicalAllGather>();
    return tid;
}

HierarchicalAllGather::HierarchicalAllGather()
{
    NS_LOG_FUNCTION(this);
}

HierarchicalAllGather::~HierarchicalAllGather() = default;

std::string
HierarchicalAllGather::GetCollectiveName() const
{
    return "AllGather";
}

double
HierarchicalAllGather::GetBusBandwidthFactor(uint32_t ranks) const
{
    return (ranks - 1.0) / ranks;
}

std::vector<HierarchicalCollective::Phase>
HierarchicalAllGather::PlanPhases(const Communicator::Hierarchy& h) const
{
    const uint32_t g = static_cast<uint32_t>(h.serverRanks.front().size());
    const std::size_t servers = h.servers.size();
    std::vector<Phase> phases(2);
    phases[0] = {true, "ns3::RingAllGather", {}};
    for (uint32_t j = 0; j < g; ++j)
    {
        phases[0].bytesOfGroup.push_back(SplitBytes(m_bytes, g, j));
    }
    phases[1] = {false, "ns3::RingAllGather", std::vector<uint64_t>(servers, m_bytes)};
    return phases;
}

} // namespace ns3
