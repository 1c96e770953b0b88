/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "hierarchical-all-reduce.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalAllReduce");

NS_OBJECT_ENSURE_REGISTERED(HierarchicalAllReduce);

TypeId
HierarchicalAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalAllReduce")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HierarchicalAllReduce>();
    return tid;
}

HierarchicalAllReduce::HierarchicalAllReduce()
{
    NS_LOG_FUNCTION(this);
}

HierarchicalAllReduce::~HierarchicalAllReduce() = default;

std::string
HierarchicalAllReduce::GetCollectiveName() const
{
    return "AllReduce";
}

double
HierarchicalAllReduce::GetBusBandwidthFactor(uint32_t ranks) const
{
    return 2.0 * (ranks - 1) / ranks;
}

std::vector<HierarchicalCollective::Phase>
HierarchicalAllReduce::PlanPhases(const Communicator::Hierarchy& h) const
{
    const uint32_t g = static_cast<uint32_t>(h.serverRanks.front().size());
    const std::size_t servers = h.servers.size();
    std::vector<Phase> phases(3);
    phases[0] = {false, "ns3::RingReduceScatter", std::vector<uint64_t>(servers, m_bytes)};
    phases[1] = {true, "ns3::RingAllReduce", {}};
    for (uint32_t j = 0; j < g; ++j)
    {
        phases[1].bytesOfGroup.push_back(SplitBytes(m_bytes, g, j));
    }
    phases[2] = {false, "ns3::RingAllGather", std::vector<uint64_t>(servers, m_bytes)};
    return phases;
}

} // namespace ns3
