/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "egress-reassembly.h"

#include "ns3/ai-fabric-ns3-compat.h"
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
    const auto reason = m_reassembler.AddCell(source, cell, Simulator::Now().GetTimeStep(), m_out);
    if (reason)
    {
        m_discarded(cell, *reason);
    }
    Flush();
    ArmTimer(source);
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
EgressReassembly::ArmTimer(uint32_t source)
{
    if (ai_fabric::IsPending(m_timers[source]) || !m_reassembler.IsPending(source))
    {
        return;
    }
    const int64_t deadline = m_reassembler.GetHeadDeadline(source, m_timeout.GetTimeStep());
    const int64_t now = Simulator::Now().GetTimeStep();
    m_timers[source] = Simulator::Schedule(TimeStep(std::max<int64_t>(0, deadline - now)),
                                           &EgressReassembly::Timer,
                                           this,
                                           source);
}

void
EgressReassembly::Timer(uint32_t source)
{
    NS_LOG_FUNCTION(this << source);
    m_reassembler.Expire(source,
                         Simulator::Now().GetTimeStep(),
                         m_timeout.GetTimeStep(),
                         m_out,
                         m_lost);
    for (const auto& lost : m_lost)
    {
        m_timedOut(lost);
    }
    m_lost.clear();
    Flush();
    ArmTimer(source);
}

} // namespace ns3
