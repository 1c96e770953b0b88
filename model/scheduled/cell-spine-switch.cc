/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-spine-switch.h"

#include "cell-channel.h"
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
                          "Bytes an output queue may hold (0: FlowControlXoff plus what the "
                          "feeding links can still bring after it, the lossless bound; a "
                          "smaller value is refused)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CellSpineSwitch::m_maxQueue),
                          MakeUintegerChecker<uint64_t>())
            // Model choice: about 20 us at 100 Gb/s. The credit windows keep
            // queues far lower; flow control is the safety net for what they do
            // not cover (a spine favoured by failures elsewhere, first bursts), and
            // a low threshold makes it fire often: with many leaves feeding a
            // link each stop overshoots, traffic swings from spine to spine, and
            // the unequal queues reorder cells (a 64:1 incast into fabric-bound
            // links reached 0.95 of its bound with 32 KiB, 0.997 with this).
            .AddAttribute("FlowControlXoff",
                          "Output queue bytes at which the leaves are told to stop sending "
                          "data cells for that link's leaf",
                          UintegerValue(256 * 1024),
                          MakeUintegerAccessor(&CellSpineSwitch::m_xoff),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FlowControlXon",
                          "Output queue bytes, below FlowControlXoff, at which they are told "
                          "to go on",
                          UintegerValue(128 * 1024),
                          MakeUintegerAccessor(&CellSpineSwitch::m_xon),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("QueueDepth",
                            "Output queue bytes after a cell was queued (port, bytes)",
                            MakeTraceSourceAccessor(&CellSpineSwitch::m_depthTrace),
                            "ns3::CellSpineSwitch::QueueDepthTracedCallback")
            .AddTraceSource("CellDrop",
                            "A cell was dropped (input port, cell)",
                            MakeTraceSourceAccessor(&CellSpineSwitch::m_dropTrace),
                            "ns3::CellSpineSwitch::CellTracedCallback")
            .AddTraceSource("FlowControl",
                            "The leaves were told to stop (true) or go on (false) sending "
                            "data cells for a leaf (destination leaf, stop)",
                            MakeTraceSourceAccessor(&CellSpineSwitch::m_fcTrace),
                            "ns3::CellSpineSwitch::FlowControlTracedCallback");
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
    for (auto& e : m_drainCheck)
    {
        e.Cancel();
    }
    m_ports.clear();
    m_reachCbs.clear();
    m_fcCbs.clear();
    Object::DoDispose();
}

void
CellSpineSwitch::Setup(uint32_t leaves, uint32_t index)
{
    NS_LOG_FUNCTION(this << leaves << index);
    NS_ABORT_MSG_IF(leaves == 0, "CellSpineSwitch: leaves must be at least 1, got 0");
    m_index = index;
    m_toLeaf.assign(leaves, std::vector<uint32_t>());
    m_allToLeaf.assign(leaves, std::vector<uint32_t>());
    m_rr.assign(leaves, 0);
    m_stopped.assign(leaves, 0);
    m_drainCheck.assign(leaves, EventId());
}

void
CellSpineSwitch::SetFabric(uint32_t cellBytes,
                           uint32_t controlCellBytes,
                           uint32_t feedingLinks,
                           uint64_t leafQueueLimit,
                           DataRate rate,
                           Time delay)
{
    NS_LOG_FUNCTION(this << cellBytes << controlCellBytes << feedingLinks << leafQueueLimit << rate
                         << delay);
    NS_ABORT_MSG_IF(
        m_xon >= m_xoff,
        "CellSpineSwitch: FlowControlXon=" << m_xon << " must be below FlowControlXoff=" << m_xoff);
    NS_ABORT_MSG_IF(m_xoff < cellBytes,
                    "CellSpineSwitch: FlowControlXoff=" << m_xoff << " is below one cell ("
                                                        << cellBytes << " B)");
    const double bytesPerSecond = rate.GetBitRate() / 8.0;
    m_indicationDelay = delay + Seconds(controlCellBytes / bytesPerSecond);
    // After the threshold, each feeding link can still bring what it sends until
    // its leaf hears (what is on the wire, and what it sends meanwhile), the
    // leaf's fabric-port queue as it was then, a cell being serialised, and a few
    // control cells.
    const uint64_t perLink =
        static_cast<uint64_t>(bytesPerSecond * (delay + m_indicationDelay).GetSeconds()) + 1 +
        leafQueueLimit + cellBytes + 2 * controlCellBytes;
    uint32_t parallel = 1;
    for (const auto& ports : m_allToLeaf)
    {
        parallel = std::max<uint32_t>(parallel, ports.empty() ? 1 : ports.size());
    }
    // Cells for a leaf alternate over its parallel links.
    const uint64_t bound = m_xoff + (feedingLinks * perLink + parallel - 1) / parallel + cellBytes;
    if (m_maxQueue == 0)
    {
        m_maxQueue = bound;
    }
    NS_ABORT_MSG_IF(m_maxQueue < bound,
                    "CellSpineSwitch: MaxQueueBytes="
                        << m_maxQueue << " is below the lossless bound " << bound
                        << " B (FlowControlXoff=" << m_xoff << " + " << feedingLinks
                        << " feeding links x " << perLink << " B each, over " << parallel
                        << " parallel links)");
    NS_LOG_LOGIC("spine " << m_index << ": queue limit " << m_maxQueue << " B, stop at " << m_xoff
                          << " B, go at " << m_xon << " B");
}

void
CellSpineSwitch::AddPort(Ptr<CellNetDevice> device, uint32_t leaf)
{
    NS_LOG_FUNCTION(this << device << leaf);
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
    m_allToLeaf[leaf].push_back(port);
}

void
CellSpineSwitch::Receive(uint32_t port, const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << port << +cell.type << cell.srcLeaf << cell.dstLeaf);
    const std::vector<uint32_t>& links = m_toLeaf[cell.dstLeaf];
    if (links.empty())
    {
        NS_LOG_LOGIC("spine " << m_index << ": no link to leaf " << cell.dstLeaf
                              << ", cell dropped");
        m_dropped[NO_ROUTE]++;
        m_droppedPayload += cell.payload;
        m_dropTrace(port, cell);
        return;
    }
    if (cell.type == FabricCell::PATH_LOSS)
    {
        // Behind the data on every path on to the leaf: one copy per link, each
        // saying how many there are, so the leaf knows when it has them all.
        NS_LOG_LOGIC("spine " << m_index << ": path-loss notice from leaf " << cell.srcLeaf
                              << " for leaf " << cell.dstLeaf << " copied to " << links.size()
                              << " links");
        FabricCell copy = cell;
        copy.dstPort = static_cast<uint16_t>(links.size());
        for (uint32_t out : links)
        {
            m_forwarded++;
            m_ports[out]->SendCell(copy);
        }
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
    if (cell.type == FabricCell::DATA)
    {
        NS_LOG_LOGIC("spine " << m_index << ": cell " << cell.cellIndex << "/" << cell.cellCount
                              << " of packet "
                              << (cell.packet ? static_cast<int64_t>(cell.packet->GetUid()) : -1)
                              << " from leaf " << cell.srcLeaf << " for leaf " << cell.dstLeaf
                              << ": in port " << port << ", out port " << out << ", " << backlog
                              << " B queued there");
    }
    else
    {
        NS_LOG_LOGIC("spine " << m_index << ": "
                              << (cell.type == FabricCell::CREDIT_REQUEST ? "request" : "grant")
                              << " cell from leaf " << cell.srcLeaf << " for leaf " << cell.dstLeaf
                              << ": in port " << port << ", out port " << out);
    }
    // Control cells are never dropped for queue space: they are small, and a lost
    // request or grant would leave a VOQ waiting for credit.
    if (cell.type == FabricCell::DATA && backlog + cell.wireBytes > m_maxQueue)
    {
        NS_LOG_LOGIC("spine " << m_index << ": queue to leaf " << cell.dstLeaf
                              << " full, cell dropped");
        m_dropped[QUEUE_FULL]++;
        m_droppedPayload += cell.payload;
        m_dropTrace(port, cell);
        return;
    }
    const uint64_t depth = backlog + cell.wireBytes;
    m_highWater = std::max(m_highWater, depth);
    m_depthTrace(out, depth);
    m_forwarded++;
    dev->SendCell(cell); // a link gone down but not yet detected loses it (counted there)
    if (depth >= m_xoff && !m_stopped[cell.dstLeaf])
    {
        Indicate(cell.dstLeaf, true);
    }
}

void
CellSpineSwitch::Indicate(uint32_t leaf, bool stop)
{
    NS_LOG_FUNCTION(this << leaf << stop);
    NS_LOG_LOGIC("spine " << m_index << ": leaves " << (stop ? "stop" : "go on")
                          << " sending data for leaf " << leaf);
    m_stopped[leaf] = stop ? 1 : 0;
    if (stop)
    {
        m_stops++;
        CheckDrained(leaf);
    }
    m_fcTrace(leaf, stop);
    // A leaf in another process of a distributed run hears it as a message on the
    // spine's first link to it, arriving when DeliverIndication runs here.
    for (const auto& [listener, cb] : m_fcCbs)
    {
        const Ptr<CellNetDevice> port = GetMessagePort(listener);
        if (port)
        {
            port->SendIndication(m_index, leaf, stop, m_indicationDelay);
        }
    }
    Simulator::Schedule(m_indicationDelay, &CellSpineSwitch::DeliverIndication, this, leaf, stop);
}

void
CellSpineSwitch::DeliverIndication(uint32_t leaf, bool stop)
{
    NS_LOG_FUNCTION(this << leaf << stop);
    for (auto& [listener, cb] : m_fcCbs)
    {
        if (!GetMessagePort(listener))
        {
            cb(m_index, leaf, stop);
        }
    }
}

Ptr<CellNetDevice>
CellSpineSwitch::GetMessagePort(uint32_t leaf) const
{
    const std::vector<uint32_t>& ports = m_allToLeaf[leaf];
    if (ports.empty() || !m_ports[ports.front()]->GetFabricChannel()->CrossesProcesses())
    {
        return nullptr;
    }
    return m_ports[ports.front()];
}

void
CellSpineSwitch::CheckDrained(uint32_t leaf)
{
    NS_LOG_FUNCTION(this << leaf);
    // Look again when the fullest link towards the leaf has drained to FlowControlXon.
    Time wait = Time(0);
    for (uint32_t port : m_allToLeaf[leaf])
    {
        wait = std::max(wait, m_ports[port]->GetTimeUntilBacklog(m_xon));
    }
    if (wait.IsStrictlyPositive())
    {
        m_drainCheck[leaf] = Simulator::Schedule(wait, &CellSpineSwitch::CheckDrained, this, leaf);
        return;
    }
    Indicate(leaf, false);
}

void
CellSpineSwitch::LinkChanged()
{
    NS_LOG_FUNCTION(this);
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
    NS_LOG_FUNCTION(this);
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

void
CellSpineSwitch::AddFlowControlCallback(uint32_t leaf, FlowControlCallback cb)
{
    NS_ABORT_MSG_IF(leaf >= m_allToLeaf.size(),
                    "CellSpineSwitch: leaf " << leaf << " out of range (Setup with "
                                             << m_allToLeaf.size() << " leaves)");
    m_fcCbs.emplace_back(leaf, cb);
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
    return m_dropped[QUEUE_FULL] + m_dropped[NO_ROUTE];
}

uint64_t
CellSpineSwitch::GetCellsDropped(DropReason reason) const
{
    return m_dropped[reason];
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

uint64_t
CellSpineSwitch::GetMaxQueueBytes() const
{
    return m_maxQueue;
}

uint64_t
CellSpineSwitch::GetFlowControlStops() const
{
    return m_stops;
}

} // namespace ns3
