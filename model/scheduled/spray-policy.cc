/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "spray-policy.h"

#include "cell-net-device.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SprayPolicy");
NS_OBJECT_ENSURE_REGISTERED(SprayPolicy);

TypeId
SprayPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SprayPolicy").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

SprayPolicy::~SprayPolicy()
{
}

void
SprayPolicy::DoDispose()
{
    m_ports = nullptr;
    Object::DoDispose();
}

void
SprayPolicy::Setup(const std::vector<Ptr<CellNetDevice>>* ports,
                   uint32_t leaves,
                   uint32_t leafIndex,
                   uint32_t maxCellBytes)
{
    NS_LOG_FUNCTION(this << leaves << leafIndex << maxCellBytes);
    m_ports = ports;
    m_leaves = leaves;
    m_leafIndex = leafIndex;
    m_maxCellBytes = maxCellBytes;
}

void
SprayPolicy::Reset()
{
}

int64_t
SprayPolicy::AssignStreams(int64_t /* stream */)
{
    return 0;
}

bool
SprayPolicy::HasRoom(uint32_t port, uint32_t wireBytes) const
{
    return (*m_ports)[port]->HasRoomFor(wireBytes);
}

uint32_t
SprayPolicy::FirstWithRoom(const std::vector<uint32_t>& links,
                           uint32_t from,
                           uint32_t wireBytes) const
{
    const uint32_t n = static_cast<uint32_t>(links.size());
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t port = links[(from + k) % n];
        if (HasRoom(port, wireBytes))
        {
            return port;
        }
    }
    return NO_PORT;
}

} // namespace ns3
