/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "load-balancing-policy.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LoadBalancingPolicy");
NS_OBJECT_ENSURE_REGISTERED(LoadBalancingPolicy);

TypeId
LoadBalancingPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LoadBalancingPolicy").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

LoadBalancingPolicy::LoadBalancingPolicy()
{
    NS_LOG_FUNCTION(this);
}

LoadBalancingPolicy::~LoadBalancingPolicy() = default;

void
LoadBalancingPolicy::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_switch = nullptr;
    Object::DoDispose();
}

void
LoadBalancingPolicy::Setup(const EthernetSwitch* sw)
{
    NS_LOG_FUNCTION(this << sw);
    m_switch = sw;
}

void
LoadBalancingPolicy::SetPathView(const std::vector<Ptr<EthernetSwitch>>& spines,
                                 const std::vector<uint32_t>& /* uplinkSpine */,
                                 const std::vector<std::vector<std::vector<uint32_t>>>& /* down */,
                                 uint32_t hostsPerLeaf)
{
    NS_LOG_FUNCTION(this << spines.size() << hostsPerLeaf);
}

void
LoadBalancingPolicy::RouteSet(uint32_t /* host */, const std::vector<uint32_t>& /* live */)
{
}

void
LoadBalancingPolicy::LivePortsChanged(uint32_t /* host */, const std::vector<uint32_t>& /* live */)
{
}

int64_t
LoadBalancingPolicy::AssignStreams(int64_t /* stream */)
{
    return 0;
}

} // namespace ns3
