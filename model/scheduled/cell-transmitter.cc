/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-transmitter.h"

#include "cell-net-device.h"
#include "spray-policy.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellTransmitter");

CellTransmitter::CellTransmitter(const std::vector<Ptr<CellNetDevice>>* ports,
                                 Ptr<SprayPolicy> policy,
                                 const CellSegmenter& segmenter,
                                 uint32_t leaves,
                                 uint32_t leafIndex,
                                 uint32_t controlReserve,
                                 uint32_t controlCellBytes,
                                 ReadyCallback ready,
                                 DrainCallback drain)
    : m_ports(ports),
      m_policy(policy),
      m_segmenter(segmenter),
      m_leafIndex(leafIndex),
      m_controlReserve(controlReserve),
      m_controlCellBytes(controlCellBytes),
      m_ready(ready),
      m_drain(drain),
      m_links(leaves),
      m_control(leaves),
      m_pending(leaves),
      m_nextPacketId(leaves, 0),
      m_notices(leaves, 0),
      m_noticeDue(leaves, false),
      m_wakeupAt(Time::Max())
{
}

CellTransmitter::~CellTransmitter()
{
    Cancel();
}

void
CellTransmitter::Cancel()
{
    NS_LOG_FUNCTION(this);
    m_wakeup.Cancel();
    m_wakeupAt = Time::Max();
}

void
CellTransmitter::SetLinks(uint32_t dstLeaf,
                          const std::vector<uint32_t>& dataLinks,
                          const std::vector<uint32_t>& controlLinks)
{
    NS_LOG_FUNCTION(this << dstLeaf << dataLinks.size() << controlLinks.size());
    // A link gone from the usable set (down, or its spine cannot reach the leaf
    // any more) may have taken cells with it; flow control changes data links only.
    // (Flow control calls this often, with the control links unchanged.)
    const bool pathLost =
        controlLinks != m_control[dstLeaf] &&
        std::any_of(m_control[dstLeaf].begin(), m_control[dstLeaf].end(), [&](uint32_t port) {
            return std::find(controlLinks.begin(), controlLinks.end(), port) == controlLinks.end();
        });
    m_links[dstLeaf] = dataLinks;
    m_control[dstLeaf] = controlLinks;
    if (pathLost)
    {
        NotifyPathLoss(dstLeaf);
    }
    if (m_pending[dstLeaf].waiting && !dataLinks.empty())
    {
        // Links towards a leaf that had none: look again now.
        m_wakeup.Cancel();
        m_wakeupAt = Simulator::Now();
        m_wakeup = Simulator::ScheduleNow(&CellTransmitter::Wakeup, this);
    }
}

bool
CellTransmitter::HasRoom(uint32_t dstLeaf) const
{
    const uint32_t full = m_segmenter.GetCellPayload() + m_segmenter.GetCellHeader();
    for (uint32_t port : m_links[dstLeaf])
    {
        if ((*m_ports)[port]->HasRoomFor(full + m_controlReserve))
        {
            return true;
        }
    }
    return false;
}

bool
CellTransmitter::IsReady(uint32_t dstLeaf)
{
    const Pending& p = m_pending[dstLeaf];
    if (p.waiting)
    {
        return false;
    }
    if (!p.active && HasRoom(dstLeaf))
    {
        return true;
    }
    NS_LOG_LOGIC("leaf " << m_leafIndex << ": no room towards leaf " << dstLeaf);
    Wait(dstLeaf);
    return false;
}

void
CellTransmitter::Send(Ptr<Packet> packet, uint32_t dstLeaf, uint32_t dstPort, uint8_t tc)
{
    NS_LOG_FUNCTION(this << packet << dstLeaf << dstPort << +tc);
    Pending& p = m_pending[dstLeaf];
    NS_ASSERT_MSG(!p.active, "a packet towards leaf " << dstLeaf << " is still being sent");
    const uint32_t size = packet->GetSize();
    const uint32_t count = m_segmenter.GetCellCount(size);
    NS_ABORT_MSG_IF(count > std::numeric_limits<uint16_t>::max(),
                    "ScheduledLeafSwitch: a "
                        << size << "-byte packet needs " << count << " cells of CellPayload="
                        << m_segmenter.GetCellPayload() << " (at most 65535)");
    p.cell = FabricCell();
    p.cell.type = FabricCell::DATA;
    p.cell.tc = tc;
    p.cell.srcLeaf = static_cast<uint16_t>(m_leafIndex);
    p.cell.dstLeaf = static_cast<uint16_t>(dstLeaf);
    p.cell.dstPort = static_cast<uint16_t>(dstPort);
    p.cell.cellCount = static_cast<uint16_t>(count);
    p.cell.packetId = m_nextPacketId[dstLeaf]++;
    p.cell.packet = packet;
    p.size = size;
    p.active = true;
    NS_LOG_LOGIC("leaf " << m_leafIndex << ": packet " << packet->GetUid() << " (" << size
                         << " B) to leaf " << dstLeaf << " port " << dstPort << " class " << +tc
                         << " is number " << p.cell.packetId << ", cut into " << count << " cells");
    m_pendingPackets++;
    m_pendingBytes += size;
    if (!Continue(dstLeaf))
    {
        NS_LOG_LOGIC("leaf " << m_leafIndex << ": packet " << packet->GetUid() << " (number "
                             << p.cell.packetId << ") to leaf " << dstLeaf
                             << " waits for room after " << p.cell.cellIndex << " of " << count
                             << " cells");
        m_stalls++;
        Wait(dstLeaf);
    }
}

bool
CellTransmitter::Continue(uint32_t dstLeaf)
{
    Pending& p = m_pending[dstLeaf];
    const std::vector<uint32_t>& links = m_links[dstLeaf];
    FabricCell& cell = p.cell;
    while (cell.cellIndex < cell.cellCount)
    {
        if (links.empty())
        {
            return false;
        }
        const uint32_t i = cell.cellIndex;
        cell.offset = m_segmenter.GetCellOffset(p.size, i);
        cell.payload = m_segmenter.GetCellPayload(p.size, i);
        cell.wireBytes = m_segmenter.GetCellWireBytes(p.size, i);
        const uint32_t port = m_policy->Pick(dstLeaf, links, cell.wireBytes, m_controlReserve);
        if (port == SprayPolicy::NO_PORT)
        {
            return false;
        }
        NS_LOG_LOGIC("leaf " << m_leafIndex << ": cell " << i << "/" << cell.cellCount
                             << " of packet " << GetUidOrNone(cell.packet) << " (bytes "
                             << cell.offset << "+" << cell.payload << ", " << cell.wireBytes
                             << " B on the wire) on fabric port " << port);
        (*m_ports)[port]->SendCell(cell);
        m_dataCells++;
        m_pendingBytes -= cell.payload;
        cell.cellIndex++;
    }
    p.active = false;
    p.cell.packet = nullptr;
    m_pendingPackets--;
    m_packets++;
    if (m_noticeDue[dstLeaf])
    {
        NotifyPathLoss(dstLeaf);
    }
    return true;
}

bool
CellTransmitter::SendControl(const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << +cell.type << cell.dstLeaf << cell.dstPort << cell.bytes);
    const std::vector<uint32_t>& links = m_control[cell.dstLeaf];
    if (links.empty())
    {
        return false;
    }
    uint32_t port = m_policy->Pick(cell.dstLeaf, links, cell.wireBytes, 0);
    if (port == SprayPolicy::NO_PORT)
    {
        // Control cells are never held back: the least loaded link takes it.
        uint64_t best = std::numeric_limits<uint64_t>::max();
        for (uint32_t candidate : links)
        {
            const uint64_t backlog = (*m_ports)[candidate]->GetBacklogBytes();
            if (backlog < best)
            {
                best = backlog;
                port = candidate;
            }
        }
    }
    NS_LOG_LOGIC("leaf " << m_leafIndex << ": "
                         << (cell.type == FabricCell::CREDIT_REQUEST ? "request" : "grant")
                         << " cell to leaf " << cell.dstLeaf << " (port " << cell.dstPort
                         << ", class " << +cell.tc << ", cumulative " << cell.bytes
                         << " B) on fabric port " << port);
    (*m_ports)[port]->SendCell(cell);
    return true;
}

void
CellTransmitter::NotifyPathLoss(uint32_t dstLeaf)
{
    NS_LOG_FUNCTION(this << dstLeaf);
    const std::vector<uint32_t>& links = m_control[dstLeaf];
    if (m_nextPacketId[dstLeaf] == 0 || links.empty())
    {
        return; // nothing sent yet, or no path left to tell it on
    }
    if (m_pending[dstLeaf].active)
    {
        // The packet being cut may have lost cells too: tell once it is all sent,
        // so the notice covers it.
        m_noticeDue[dstLeaf] = true;
        return;
    }
    m_noticeDue[dstLeaf] = false;
    FabricCell cell;
    cell.type = FabricCell::PATH_LOSS;
    cell.srcLeaf = static_cast<uint16_t>(m_leafIndex);
    cell.dstLeaf = static_cast<uint16_t>(dstLeaf);
    cell.wireBytes = m_controlCellBytes;
    cell.packetId = m_nextPacketId[dstLeaf] - 1;
    cell.bytes = ++m_notices[dstLeaf];
    cell.cellCount = static_cast<uint16_t>(links.size());
    NS_LOG_LOGIC("leaf " << m_leafIndex << ": path to leaf " << dstLeaf << " lost, notice "
                         << cell.bytes << " (packets up to number " << cell.packetId << ") on "
                         << links.size() << " fabric ports");
    for (uint32_t port : links)
    {
        // Behind the data already queued on the port: fabric links and spine
        // queues are FIFO, so when it arrives every earlier cell on its path has.
        cell.cellIndex = static_cast<uint16_t>(port);
        (*m_ports)[port]->SendCell(cell);
    }
    m_noticesSent++;
}

uint64_t
CellTransmitter::GetPathLossNotices() const
{
    return m_noticesSent;
}

Time
CellTransmitter::WakeDelay(uint32_t dstLeaf) const
{
    Time earliest = Time::Max();
    const uint32_t full = m_segmenter.GetCellPayload() + m_segmenter.GetCellHeader();
    for (uint32_t port : m_links[dstLeaf])
    {
        const Ptr<CellNetDevice>& dev = (*m_ports)[port];
        const uint64_t limit = dev->GetQueueLimit();
        // Wake when half the queue is free (at least a cell), so cells go out
        // in batches.
        const uint64_t level =
            limit - std::min<uint64_t>(limit, std::max<uint64_t>(limit / 2, full));
        earliest = std::min(earliest, dev->GetTimeUntilBacklog(level));
    }
    return earliest;
}

void
CellTransmitter::Wait(uint32_t dstLeaf)
{
    Pending& p = m_pending[dstLeaf];
    if (p.waiting)
    {
        return;
    }
    p.waiting = true;
    m_waiting.push_back(dstLeaf);
    const Time delay = WakeDelay(dstLeaf);
    if (delay == Time::Max())
    {
        return; // no usable link: SetLinks looks again
    }
    const Time at = Simulator::Now() + delay;
    if (at < m_wakeupAt)
    {
        m_wakeup.Cancel();
        m_wakeupAt = at;
        m_wakeup = Simulator::Schedule(delay, &CellTransmitter::Wakeup, this);
    }
}

void
CellTransmitter::ScheduleWakeup()
{
    Time earliest = Time::Max();
    for (uint32_t leaf : m_waiting)
    {
        earliest = std::min(earliest, WakeDelay(leaf));
    }
    if (earliest == Time::Max())
    {
        return;
    }
    m_wakeupAt = Simulator::Now() + earliest;
    m_wakeup = Simulator::Schedule(earliest, &CellTransmitter::Wakeup, this);
}

void
CellTransmitter::Wakeup()
{
    NS_LOG_FUNCTION(this << m_waiting.size());
    m_wakeups++;
    m_wakeupAt = Time::Max();
    std::vector<uint32_t> waiting;
    waiting.swap(m_waiting);
    std::vector<uint32_t> ready;
    for (uint32_t leaf : waiting)
    {
        Pending& p = m_pending[leaf];
        p.waiting = false;
        if (p.active && !Continue(leaf))
        {
            Wait(leaf);
        }
        else if (!HasRoom(leaf))
        {
            Wait(leaf);
        }
        else
        {
            ready.push_back(leaf);
        }
    }
    if (m_waiting.size() > 0 && !ai_fabric::IsPending(m_wakeup))
    {
        ScheduleWakeup();
    }
    for (uint32_t leaf : ready)
    {
        NS_LOG_LOGIC("leaf " << m_leafIndex << ": room towards leaf " << leaf << " again");
        m_ready(leaf);
    }
    if (!ready.empty())
    {
        m_drain();
    }
}

uint64_t
CellTransmitter::GetDataCellsSent() const
{
    return m_dataCells;
}

uint64_t
CellTransmitter::GetPendingPackets() const
{
    return m_pendingPackets;
}

uint64_t
CellTransmitter::GetPendingBytes() const
{
    return m_pendingBytes;
}

uint64_t
CellTransmitter::GetPacketsSent() const
{
    return m_packets;
}

uint32_t
CellTransmitter::GetPacketsNumbered(uint32_t dstLeaf) const
{
    return m_nextPacketId.at(dstLeaf);
}

uint64_t
CellTransmitter::GetStalls() const
{
    return m_stalls;
}

uint64_t
CellTransmitter::GetWakeups() const
{
    return m_wakeups;
}

} // namespace ns3
