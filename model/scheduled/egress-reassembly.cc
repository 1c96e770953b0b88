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
