/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "egress-reassembly.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EgressReassembly");

EgressReassembly::EgressReassembly(uint32_t sources,
                                   uint32_t window,
                                   Time timeout,
                                   OutputCallback released,
                                   OutputCallback timedOut,
                                   DiscardCallback discarded)
    : m_reassembler(sources, window),
      m_timeout(timeout),
      m_timers(sources),
      m_armed(sources, false),
      m_notices(sources),
      m_released(released),
      m_timedOut(timedOut),
      m_discarded(discarded)
{
}

EgressReassembly::~EgressReassembly()
{
    Cancel();
}

void
EgressReassembly::Cancel()
{
    for (auto& t : m_timers)
    {
        t.Cancel();
    }
    m_armed.assign(m_armed.size(), false);
}

const CellReassembler&
EgressReassembly::GetReassembler() const
{
    return m_reassembler;
}

bool
EgressReassembly::Receive(const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << cell.srcLeaf << cell.packetId << cell.cellIndex);
    const uint32_t source = cell.srcLeaf;
    const int64_t now = Simulator::Now().GetTimeStep();
    const auto reason = m_reassembler.AddCell(source, cell, now, m_out);
    if (reason)
    {
        m_discarded(cell, *reason);
    }
    Flush();
    ArmTimer(source, now);
    return !reason;
}

void
EgressReassembly::ReceivePathLoss(const FabricCell& notice)
{
    NS_LOG_FUNCTION(this << notice.srcLeaf << notice.bytes << notice.packetId);
    Notice& n = m_notices.at(notice.srcLeaf);
    if (notice.bytes < n.number || (notice.bytes == n.number && n.applied))
    {
        return; // superseded, or already acted on
    }
    if (notice.bytes > n.number)
    {
        n = Notice();
        n.number = notice.bytes;
        n.lastId = notice.packetId;
        n.paths = notice.cellCount;
    }
    auto it = std::find_if(n.copies.begin(), n.copies.end(), [&](const auto& c) {
        return c.first == notice.cellIndex;
    });
    if (it == n.copies.end())
    {
        n.copies.emplace_back(notice.cellIndex, 0);
        it = n.copies.end() - 1;
    }
    if (++it->second == notice.dstPort)
    {
        n.pathsDone++;
    }
    NS_LOG_LOGIC("notice " << n.number << " from leaf " << notice.srcLeaf << ": " << n.pathsDone
                           << " of " << n.paths << " paths complete");
    if (n.pathsDone < n.paths)
    {
        return;
    }
    // Every cell sent before the notice on a path still alive has arrived: what
    // is missing of the packets it covers went down with the lost path.
    n.applied = true;
    m_noticesApplied++;
    const uint32_t source = notice.srcLeaf;
    const int64_t now = Simulator::Now().GetTimeStep();
    m_reassembler.GiveUpThrough(source, n.lastId, now, m_out, m_lost);
    for (const auto& lost : m_lost)
    {
        m_timedOut(lost);
    }
    m_lost.clear();
    Flush();
    ArmTimer(source, now);
}

uint64_t
EgressReassembly::GetPathLossNotices() const
{
    return m_noticesApplied;
}

void
EgressReassembly::Flush()
{
    for (const auto& out : m_out)
    {
        m_released(out);
    }
    m_out.clear();
}

void
EgressReassembly::ArmTimer(uint32_t source, int64_t now)
{
    // A flag of its own rather than EventId::IsPending, which asks the simulator
    // (about 290 instructions) and is asked once per data cell.
    if (m_armed[source] || !m_reassembler.IsPending(source))
    {
        return;
    }
    const int64_t deadline = m_reassembler.GetHeadDeadline(source, m_timeout.GetTimeStep());
    m_armed[source] = true;
    m_timers[source] = Simulator::Schedule(TimeStep(std::max<int64_t>(0, deadline - now)),
                                           &EgressReassembly::Timer,
                                           this,
                                           source);
}

void
EgressReassembly::Timer(uint32_t source)
{
    NS_LOG_FUNCTION(this << source);
    m_armed[source] = false;
    const int64_t now = Simulator::Now().GetTimeStep();
    m_reassembler.Expire(source, now, m_timeout.GetTimeStep(), m_out, m_lost);
    for (const auto& lost : m_lost)
    {
        m_timedOut(lost);
    }
    m_lost.clear();
    Flush();
    ArmTimer(source, now);
}

} // namespace ns3
