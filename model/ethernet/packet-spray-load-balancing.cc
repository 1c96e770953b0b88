/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-spray-load-balancing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacketSprayLoadBalancing");
NS_OBJECT_ENSURE_REGISTERED(PacketSprayLoadBalancing);

TypeId
PacketSprayLoadBalancing::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PacketSprayLoadBalancing")
                            .SetParent<LoadBalancingPolicy>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PacketSprayLoadBalancing>();
    return tid;
}

PacketSprayLoadBalancing::PacketSprayLoadBalancing()
{
    NS_LOG_FUNCTION(this);
}

PacketSprayLoadBalancing::~PacketSprayLoadBalancing() = default;

void
PacketSprayLoadBalancing::RouteSet(uint32_t host, const std::vector<uint32_t>& live)
{
    NS_LOG_FUNCTION(this << host << live.size());
    if (host >= m_next.size())
    {
        m_next.resize(host + 1, 0);
    }
    m_next[host] = 0;
}

void
PacketSprayLoadBalancing::LivePortsChanged(uint32_t host, const std::vector<uint32_t>& live)
{
    NS_LOG_FUNCTION(this << host << live.size());
    if (host < m_next.size() && m_next[host] >= live.size())
    {
        NS_LOG_LOGIC("host " << host << ": cursor restarts at the first port");
        m_next[host] = 0;
    }
}

uint32_t
PacketSprayLoadBalancing::Choose(const uint8_t* /* head */,
                                 uint32_t host,
                                 const std::vector<uint32_t>& live)
{
    NS_LOG_FUNCTION(this << host << live.size());
    const auto n = static_cast<uint32_t>(live.size());
    uint32_t& next = m_next[host];
    const uint32_t chosen = live[next];
    next = (next + 1) % n;
    NS_LOG_LOGIC("host " << host << ": sprayed to port " << chosen << " of " << n);
    return chosen;
}

} // namespace ns3
