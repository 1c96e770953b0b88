/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "congestion-aware-load-balancing.h"

#include "ethernet-switch.h"

#include "ns3/log.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CongestionAwareLoadBalancing");
NS_OBJECT_ENSURE_REGISTERED(CongestionAwareLoadBalancing);

TypeId
CongestionAwareLoadBalancing::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CongestionAwareLoadBalancing")
                            .SetParent<AdaptiveLoadBalancing>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CongestionAwareLoadBalancing>();
    return tid;
}

CongestionAwareLoadBalancing::CongestionAwareLoadBalancing()
{
    NS_LOG_FUNCTION(this);
}

CongestionAwareLoadBalancing::~CongestionAwareLoadBalancing() = default;

void
CongestionAwareLoadBalancing::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_spines.clear();
    AdaptiveLoadBalancing::DoDispose();
}

void
CongestionAwareLoadBalancing::SetPathView(
    const std::vector<Ptr<EthernetSwitch>>& spines,
    const std::vector<uint32_t>& uplinkSpine,
    const std::vector<std::vector<std::vector<uint32_t>>>& spineDown,
    uint32_t hostsPerLeaf)
{
    NS_LOG_FUNCTION(this << spines.size() << hostsPerLeaf);
    m_spines = spines;
    m_uplinkSpine = uplinkSpine;
    m_spineDown = spineDown;
    m_hostsPerLeaf = hostsPerLeaf;
}

uint64_t
CongestionAwareLoadBalancing::GetPathBytes(uint32_t port, uint32_t host) const
{
    const uint64_t own = m_switch->GetEgressQueueBytes(port);
    if (m_hostsPerLeaf == 0 || port >= m_uplinkSpine.size() ||
        m_uplinkSpine[port] == std::numeric_limits<uint32_t>::max())
    {
        return own;
    }
    const uint32_t spine = m_uplinkSpine[port];
    uint64_t further = std::numeric_limits<uint64_t>::max();
    for (uint32_t down : m_spineDown[spine][host / m_hostsPerLeaf])
    {
        further = std::min(further, m_spines[spine]->GetEgressQueueBytes(down));
    }
    return std::max(own, further);
}

} // namespace ns3
