/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ecmp-load-balancing.h"

#include "ethernet-switch.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcmpLoadBalancing");
NS_OBJECT_ENSURE_REGISTERED(EcmpLoadBalancing);

TypeId
EcmpLoadBalancing::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EcmpLoadBalancing")
            .SetParent<LoadBalancingPolicy>()
            .SetGroupName("AiFabric")
            .AddConstructor<EcmpLoadBalancing>()
            .AddAttribute("HashBucketsPerPort",
                          "Resilient ECMP: a route's flows hash into this many buckets per "
                          "port, each bucket bound to a port; when a port goes down only its "
                          "buckets move (spread over the live ports), so only the flows that "
                          "used it change path (0: hash over the live ports, where a failure "
                          "moves most flows). With every port up both choose alike.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&EcmpLoadBalancing::m_bucketsPerPort),
                          MakeUintegerChecker<uint32_t>(0, 1 << 16));
    return tid;
}

EcmpLoadBalancing::EcmpLoadBalancing()
{
    NS_LOG_FUNCTION(this);
}

EcmpLoadBalancing::~EcmpLoadBalancing() = default;

uint32_t
EcmpLoadBalancing::Choose(const uint8_t* head, uint32_t host, const std::vector<uint32_t>& live)
{
    NS_LOG_FUNCTION(this << host << live.size());
    const auto n = static_cast<uint32_t>(live.size());
    if (m_bucketsPerPort == 0)
    {
        const uint32_t hash = m_switch->HashFlow(head);
        NS_LOG_LOGIC("host " << host << ": ECMP hash " << hash << ", port " << live[hash % n]
                             << " of " << n);
        return live[hash % n];
    }
    const std::vector<uint32_t>& ports = m_switch->GetRoute(host);
    const auto p = static_cast<uint32_t>(ports.size());
    const uint32_t bucket = m_switch->HashFlow(head) % (p * m_bucketsPerPort);
    const uint32_t home = ports[bucket % p];
    const bool homeUp = m_switch->IsPortUp(home);
    NS_LOG_LOGIC("host " << host << ": ECMP bucket " << bucket << ", port "
                         << (homeUp ? home : live[(bucket / p) % n])
                         << (homeUp ? "" : " (its own port is down)"));
    return homeUp ? home : live[(bucket / p) % n];
}

} // namespace ns3
