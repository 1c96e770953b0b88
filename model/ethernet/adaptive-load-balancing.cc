/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "adaptive-load-balancing.h"

#include "ethernet-switch.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AdaptiveLoadBalancing");
NS_OBJECT_ENSURE_REGISTERED(AdaptiveLoadBalancing);

TypeId
AdaptiveLoadBalancing::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AdaptiveLoadBalancing")
            .SetParent<LoadBalancingPolicy>()
            .SetGroupName("AiFabric")
            .AddConstructor<AdaptiveLoadBalancing>()
            .AddAttribute("FlowletGap",
                          "Choose per flowlet: a flow's packets keep the port of its first "
                          "while they come less than this apart (0: per packet)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AdaptiveLoadBalancing::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FlowletTableSize",
                          "Flowlet table entries (flows are hashed into it; a collision "
                          "starts a new flowlet)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&AdaptiveLoadBalancing::m_flowletTableSize),
                          MakeUintegerChecker<uint32_t>(1, 1 << 20));
    return tid;
}

AdaptiveLoadBalancing::AdaptiveLoadBalancing()
{
    NS_LOG_FUNCTION(this);
}

AdaptiveLoadBalancing::~AdaptiveLoadBalancing() = default;

uint64_t
AdaptiveLoadBalancing::GetPathBytes(uint32_t port, uint32_t /* host */) const
{
    return m_switch->GetEgressQueueBytes(port);
}

uint32_t
AdaptiveLoadBalancing::ChooseLeastCongested(const uint8_t* head,
                                            uint32_t host,
                                            const std::vector<uint32_t>& live) const
{
    // Ties go to the flow's hash, so flows spread.
    const auto n = static_cast<uint32_t>(live.size());
    const uint32_t hashed = m_switch->HashFlow(head) % n;
    uint32_t best = live[hashed];
    uint64_t bestBytes = std::numeric_limits<uint64_t>::max();
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t candidate = live[(hashed + i) % n];
        const uint64_t bytes = GetPathBytes(candidate, host);
        if (bytes < bestBytes)
        {
            best = candidate;
            bestBytes = bytes;
        }
    }
    return best;
}

uint32_t
AdaptiveLoadBalancing::Choose(const uint8_t* head, uint32_t host, const std::vector<uint32_t>& live)
{
    NS_LOG_FUNCTION(this << host << live.size());
    if (m_flowletGap.IsZero())
    {
        const uint32_t chosen = ChooseLeastCongested(head, host, live);
        NS_LOG_LOGIC("host " << host << ": least congested port " << chosen << " of "
                             << live.size());
        return chosen;
    }
    const uint32_t hash = m_switch->HashFlow(head);
    if (m_flowlets.empty())
    {
        m_flowlets.resize(m_flowletTableSize);
    }
    Flowlet& f = m_flowlets[hash % m_flowlets.size()];
    const Time now = Simulator::Now();
    if (f.hash != hash || f.last.IsNegative() || now - f.last >= m_flowletGap ||
        std::find(live.begin(), live.end(), f.port) == live.end())
    {
        f.hash = hash;
        f.port = ChooseLeastCongested(head, host, live);
        NS_LOG_LOGIC("new flowlet of flow " << hash << ": port " << f.port);
    }
    else
    {
        NS_LOG_LOGIC("flowlet of flow " << hash << " stays on port " << f.port);
    }
    f.last = now;
    return f.port;
}

} // namespace ns3
