/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-spine-switch.h"

#include "cell-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellSpineSwitch");
NS_OBJECT_ENSURE_REGISTERED(CellSpineSwitch);

TypeId
CellSpineSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CellSpineSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<CellSpineSwitch>()
            .AddAttribute("LinkDetectionDelay",
                          "Time from a link failing (or recovering) until the spine acts on it",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&CellSpineSwitch::m_detectionDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxQueueBytes",
                          "Bytes an output queue may hold; a data cell beyond is dropped and "
                          "counted (control cells are always queued)",
                          UintegerValue(256 * 1024),
                          MakeUintegerAccessor(&CellSpineSwitch::m_maxQueue),
                          MakeUintegerChecker<uint64_t>(1))
            .AddTraceSource("QueueDepth",
                            "Output queue bytes after a cell was queued (port, bytes)",
                            MakeTraceSourceAccessor(&CellSpineSwitch::m_depthTrace),
                            "ns3::CellSpineSwitch::QueueDepthTracedCallback")
            .AddTraceSource("CellDrop",
                            "A cell was dropped (input port, cell)",
                            MakeTraceSourceAccessor(&CellSpineSwitch::m_dropTrace),
                            "ns3::CellSpineSwitch::CellTracedCallback");
    return tid;
}

CellSpineSwitch::CellSpineSwitch()
{
    NS_LOG_FUNCTION(this);
}

CellSpineSwitch::~CellSpineSwitch()
{
}

void
CellSpineSwitch::DoDispose()
{
    for (auto& e : m_recomputeEvents)
    {
        e.Cancel();
    }
    m_ports.clear();
    m_reachCbs.clear();
    Object::DoDispose();
}

void
CellSpineSwitch::Setup(uint32_t leaves, uint32_t index)
{
    NS_ABORT_MSG_IF(leaves == 0, "CellSpineSwitch: leaves must be at least 1, got 0");
    m_index = index;
    m_toLeaf.assign(leaves, std::vector<uint32_t>());
    m_rr.assign(leaves, 0);
}

void
CellSpineSwitch::SetCellSize(uint32_t cellBytes)
{
    // A queue that cannot hold one full cell drops every data cell of a packet
    // that needs a full cell: nothing but short packets would ever cross.
    NS_ABORT_MSG_IF(m_maxQueue < cellBytes,
                    "CellSpineSwitch: MaxQueueBytes=" << m_maxQueue
                                                      << " is below one cell (CellPayload + "
                                                         "CellHeader = "
                                                      << cellBytes << " B)");
}

void
CellSpineSwitch::AddPort(Ptr<CellNetDevice> device, uint32_t leaf)
{
    NS_ABORT_MSG_IF(leaf >= m_toLeaf.size(),
                    "CellSpineSwitch: leaf " << leaf << " out of range (Setup with "
                                             << m_toLeaf.size() << " leaves)");
    const uint32_t port = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(device);
    m_portLeaf.push_back(leaf);
    device->SetPortIndex(port);
    device->SetCellReceiveCallback(MakeCallback(&CellSpineSwitch::Receive, this));
    device->AddLinkChangeCallback(MakeCallback(&CellSpineSwitch::LinkChanged, this));
    m_toLeaf[leaf].push_back(port);
}

void
CellSpineSwitch::Receive(uint32_t port, const FabricCell& cell)
{
    const std::vector<uint32_t>& links = m_toLeaf[cell.dstLeaf];
    if (links.empty())
    {
        m_dropped++;
        m_droppedPayload += cell.payload;
        m_dropTrace(port, cell);
        return;
    }
    uint32_t& rr = m_rr[cell.dstLeaf];
    if (rr >= links.size())
    {
        rr = 0;
    }
    const uint32_t out = links[rr];
    rr = (rr + 1 == links.size()) ? 0 : rr + 1;
    Ptr<CellNetDevice> dev = m_ports[out];
    const uint64_t backlog = dev->GetBacklogBytes();
    // Control cells are never dropped for queue space: they are small, and a lost
    // request or grant would leave a VOQ waiting for credit.
    if (cell.type == FabricCell::DATA && backlog + cell.wireBytes > m_maxQueue)
    {
        m_dropped++;
        m_droppedPayload += cell.payload;
        m_dropTrace(port, cell);
        return;
    }
    m_highWater = std::max(m_highWater, backlog + cell.wireBytes);
    m_depthTrace(out, backlog + cell.wireBytes);
    m_forwarded++;
    dev->SendCell(cell); // a link gone down but not yet detected loses it (counted there)
}

void
CellSpineSwitch::LinkChanged()
{
    m_recomputeEvents.erase(std::remove_if(m_recomputeEvents.begin(),
                                           m_recomputeEvents.end(),
                                           [](const EventId& e) { return e.IsExpired(); }),
                            m_recomputeEvents.end());
    m_recomputeEvents.push_back(
        Simulator::Schedule(m_detectionDelay, &CellSpineSwitch::Recompute, this));
}

void
CellSpineSwitch::Recompute()
{
    for (auto& list : m_toLeaf)
    {
        list.clear();
    }
    for (uint32_t port = 0; port < m_ports.size(); ++port)
    {
        if (m_ports[port]->IsLinkUp())
        {
            m_toLeaf[m_portLeaf[port]].push_back(port);
        }
    }
    for (auto& cb : m_reachCbs)
    {
        cb();
    }
}

bool
CellSpineSwitch::CanReach(uint32_t leaf) const
{
    return !m_toLeaf[leaf].empty();
}

void
CellSpineSwitch::AddReachabilityCallback(Callback<void> cb)
{
    m_reachCbs.push_back(cb);
}

uint32_t
CellSpineSwitch::GetIndex() const
{
    return m_index;
}

uint32_t
CellSpineSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<CellNetDevice>
CellSpineSwitch::GetPort(uint32_t port) const
{
    return m_ports.at(port);
}

uint64_t
CellSpineSwitch::GetCellsForwarded() const
{
    return m_forwarded;
}

uint64_t
CellSpineSwitch::GetCellsDropped() const
{
    return m_dropped;
}

uint64_t
CellSpineSwitch::GetPayloadDropped() const
{
    return m_droppedPayload;
}

uint64_t
CellSpineSwitch::GetQueueHighWater() const
{
    return m_highWater;
}

} // namespace ns3
