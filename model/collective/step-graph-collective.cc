/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "step-graph-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StepGraphCollective");

NS_OBJECT_ENSURE_REGISTERED(StepGraphCollective);

TypeId
StepGraphCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StepGraphCollective")
                            .SetParent<CollectiveOperation>()
                            .SetGroupName("AiFabric");
    return tid;
}

StepGraphCollective::StepGraphCollective()
{
    NS_LOG_FUNCTION(this);
}

StepGraphCollective::~StepGraphCollective() = default;

void
StepGraphCollective::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_stepList.clear();
    m_transfer.clear();
    m_lanes.clear();
    CollectiveOperation::DoDispose();
}

std::vector<StepGraphCollective::StepId>
StepGraphCollective::AddLane(uint32_t rank, uint32_t steps)
{
    NS_LOG_FUNCTION(this << rank << steps);
    NS_ASSERT(steps > 0 && rank < m_comm->GetSize());
    const auto lane = static_cast<uint32_t>(m_lanes.size());
    const auto first = static_cast<uint32_t>(m_stepList.size());
    m_lanes.push_back({first, steps, 0, false});
    std::vector<StepId> ids;
    for (uint32_t i = 0; i < steps; ++i)
    {
        m_stepList.push_back({rank, lane});
        ids.push_back({rank, first + i});
    }
    return ids;
}

void
StepGraphCollective::AddTransfer(StepId from,
                                 StepId to,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 bool reduced)
{
    NS_LOG_FUNCTION(this << from.id << to.id << bytes << channel << reduced);
    NS_ASSERT(bytes > 0 && from.rank != to.rank);
    m_stepList[from.id].transfers.push_back(static_cast<uint32_t>(m_transfer.size()));
    m_transfer.push_back({to.id, bytes, channel});
    ++m_stepList[to.id].waiting;
    m_stepList[to.id].reducedBytes += reduced ? bytes : 0;
}

void
StepGraphCollective::DoStart()
{
    NS_LOG_FUNCTION(this);
    PlanSteps();
    m_transfersLeft = m_transfer.size();
    m_lanesLeft = static_cast<uint32_t>(m_lanes.size());
    NS_LOG_LOGIC(m_lanes.size() << " lanes, " << m_stepList.size() << " steps, "
                                << m_transfer.size() << " transfers");
    if (m_transfersLeft == 0)
    {
        // One rank (or nothing to move): done once the caller has returned.
        Simulator::ScheduleNow(&StepGraphCollective::Finish, this);
        return;
    }
    for (uint32_t lane = 0; lane < m_lanes.size(); ++lane)
    {
        TryNext(lane);
    }
}

void
StepGraphCollective::TryNext(uint32_t lane)
{
    NS_LOG_FUNCTION(this << lane);
    Lane& l = m_lanes[lane];
    if (l.reducing || l.next == l.count)
    {
        return;
    }
    const uint32_t step = l.first + l.next;
    const Step& s = m_stepList[step];
    if (s.waiting > 0)
    {
        return;
    }
    if (s.reducedBytes > 0 && m_reductionRate.GetBitRate() > 0)
    {
        NS_LOG_LOGIC("step " << step << " at rank " << s.rank << " reduces " << s.reducedBytes
                             << " bytes first");
        ++l.next;
        l.reducing = true;
        Simulator::Schedule(GetReductionTime(s.reducedBytes),
                            &StepGraphCollective::RunStep,
                            this,
                            step);
        return;
    }
    ++l.next;
    RunStep(step);
}

void
StepGraphCollective::RunStep(uint32_t step)
{
    const Step& s = m_stepList[step];
    NS_LOG_FUNCTION(this << step << s.rank << s.transfers.size());
    const uint32_t stepInLane = step - m_lanes[s.lane].first;
    for (uint32_t t : s.transfers)
    {
        const Transfer& x = m_transfer[t];
        Send(s.rank,
             m_stepList[x.to].rank,
             x.bytes,
             x.channel,
             stepInLane,
             MakeCallback(&StepGraphCollective::OnArrival, this, t));
    }
    Lane& l = m_lanes[s.lane];
    l.reducing = false;
    if (l.next == l.count)
    {
        --m_lanesLeft;
        FinishIfDone();
        return;
    }
    TryNext(s.lane);
}

void
StepGraphCollective::FinishIfDone()
{
    NS_LOG_FUNCTION(this);
    if (m_transfersLeft == 0 && m_lanesLeft == 0 && !IsFinished())
    {
        NS_LOG_LOGIC("every step ran and every transfer arrived");
        Finish();
    }
}

void
StepGraphCollective::OnArrival(uint32_t transfer)
{
    const uint32_t to = m_transfer[transfer].to;
    Step& s = m_stepList[to];
    NS_LOG_FUNCTION(this << transfer << to << s.waiting);
    NS_ASSERT(s.waiting > 0);
    --s.waiting;
    --m_transfersLeft;
    if (s.waiting == 0 && m_lanes[s.lane].first + m_lanes[s.lane].next == to)
    {
        TryNext(s.lane);
    }
    FinishIfDone();
}

} // namespace ns3
