/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "hierarchical-reduce-scatter.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalReduceScatter");

NS_OBJECT_ENSURE_REGISTERED(HierarchicalReduceScatter);

TypeId
HierarchicalReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalReduceScatter")
                            .SetParent<HierarchicalCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HierarchicalReduceScatter>();
    return tid;
}

HierarchicalReduceScatter::HierarchicalReduceScatter()
{
    NS_LOG_FUNCTION(this);
}

HierarchicalReduceScatter::~HierarchicalReduceScatter() = default;

std::string
HierarchicalReduceScatter::GetCollectiveName() const
{
    return "ReduceScatter";
}

double
HierarchicalReduceScatter::GetBusBandwidthFactor(uint32_t ranks) const
{
    return (ranks - 1.0) / ranks;
}

std::vector<HierarchicalCollective::Phase>
HierarchicalReduceScatter::PlanPhases(const Communicator::Hierarchy& h) const
{
    const uint32_t g = static_cast<uint32_t>(h.serverRanks.front().size());
    const std::size_t servers = h.servers.size();
    std::vector<Phase> phases(2);
    phases[0] = {false, "ns3::RingReduceScatter", std::vector<uint64_t>(servers, m_bytes)};
    phases[1] = {true, "ns3::RingReduceScatter", {}};
    for (uint32_t j = 0; j < g; ++j)
    {
        phases[1].bytesOfGroup.push_back(SplitBytes(m_bytes, g, j));
    }
    return phases;
}

} // namespace ns3
