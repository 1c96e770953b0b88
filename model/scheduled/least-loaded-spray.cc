/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "least-loaded-spray.h"

#include "cell-net-device.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeastLoadedSpray");
NS_OBJECT_ENSURE_REGISTERED(LeastLoadedSpray);

TypeId
LeastLoadedSpray::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeastLoadedSpray")
                            .SetParent<SprayPolicy>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LeastLoadedSpray>();
    return tid;
}

LeastLoadedSpray::LeastLoadedSpray()
{
    NS_LOG_FUNCTION(this);
}

LeastLoadedSpray::~LeastLoadedSpray()
{
}

void
LeastLoadedSpray::Setup(const std::vector<Ptr<CellNetDevice>>* ports,
                        uint32_t leaves,
                        uint32_t leafIndex,
                        uint32_t maxCellBytes)
{
    NS_LOG_FUNCTION(this << leaves << leafIndex << maxCellBytes);
    SprayPolicy::Setup(ports, leaves, leafIndex, maxCellBytes);
    m_cursor.assign(leaves, leafIndex);
}

uint32_t
LeastLoadedSpray::Pick(uint32_t dstLeaf,
                       const std::vector<uint32_t>& links,
                       uint32_t wireBytes,
                       uint32_t reserveBytes)
{
    NS_LOG_FUNCTION(this << dstLeaf << links.size() << wireBytes << reserveBytes);
    uint32_t& cursor = m_cursor[dstLeaf];
    const uint32_t n = static_cast<uint32_t>(links.size());
    uint32_t pick = NO_PORT;
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t port = links[(cursor + k) % n];
        const uint64_t backlog = (*m_ports)[port]->GetBacklogBytes();
        if (backlog < best)
        {
            best = backlog;
            pick = port;
        }
    }
    cursor = (cursor + 1) % n;
    if (!HasRoom(pick, wireBytes + reserveBytes))
    {
        NS_LOG_LOGIC("leaf " << m_leafIndex << " -> " << dstLeaf << ": least loaded port " << pick
                             << " full");
        return NO_PORT; // the least loaded link is full: so is every other
    }
    NS_LOG_LOGIC("leaf " << m_leafIndex << " -> " << dstLeaf << ": port " << pick << " (backlog "
                         << best << " B)");
    return pick;
}

} // namespace ns3
