/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-robin-spray.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoundRobinSpray");
NS_OBJECT_ENSURE_REGISTERED(RoundRobinSpray);

TypeId
RoundRobinSpray::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoundRobinSpray")
                            .SetParent<SprayPolicy>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoundRobinSpray>();
    return tid;
}

RoundRobinSpray::RoundRobinSpray()
{
    NS_LOG_FUNCTION(this);
}

RoundRobinSpray::~RoundRobinSpray()
{
}

void
RoundRobinSpray::Setup(const std::vector<Ptr<CellNetDevice>>* ports,
                       uint32_t leaves,
                       uint32_t leafIndex,
                       uint32_t maxCellBytes)
{
    NS_LOG_FUNCTION(this << leaves << leafIndex << maxCellBytes);
    SprayPolicy::Setup(ports, leaves, leafIndex, maxCellBytes);
    m_cursor.assign(leaves, leafIndex);
    Reset();
}

void
RoundRobinSpray::Reset()
{
    NS_LOG_FUNCTION(this);
    // Every deficit is zero again: a leaf's row is allocated when a cell next
    // goes there.
    m_width = m_ports->size();
    m_row.assign(m_leaves, NONE);
    m_deficit.clear();
    m_rows = 0;
}

uint32_t
RoundRobinSpray::Pick(uint32_t dstLeaf,
                      const std::vector<uint32_t>& links,
                      uint32_t wireBytes,
                      uint32_t reserveBytes)
{
    NS_LOG_FUNCTION(this << dstLeaf << links.size() << wireBytes << reserveBytes);
    uint32_t& cursor = m_cursor[dstLeaf];
    const uint32_t n = static_cast<uint32_t>(links.size());
    if (cursor >= n)
    {
        cursor %= n; // leaf index >= links: still start where Setup meant
    }
    uint32_t& row = m_row[dstLeaf];
    if (row == NONE)
    {
        row = m_rows++;
        m_deficit.resize(m_deficit.size() + m_width, 0);
    }
    int64_t* deficit = &m_deficit[row * m_width];
    const int64_t need = wireBytes;
    // Every link is visited at most twice: once to use up its deficit, once after
    // a fresh quantum (at least one cell).
    for (uint32_t visits = 0; visits <= 2 * n; ++visits)
    {
        const uint32_t port = links[cursor];
        if (deficit[port] >= need)
        {
            if (HasRoom(port, wireBytes + reserveBytes))
            {
                deficit[port] -= need;
                NS_LOG_LOGIC("leaf " << m_leafIndex << " -> " << dstLeaf << ": port " << port
                                     << " (deficit " << deficit[port] << ")");
                return port;
            }
            NS_LOG_LOGIC("leaf " << m_leafIndex << ": port " << port << " full, turn passes");
            deficit[port] = 0;
        }
        cursor = (cursor + 1 == n) ? 0 : cursor + 1;
        deficit[links[cursor]] += m_maxCellBytes;
    }
    NS_LOG_LOGIC("leaf " << m_leafIndex << " -> " << dstLeaf << ": no port has room");
    return NO_PORT;
}

} // namespace ns3
