/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "hierarchical-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalCollective");

NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollective);

TypeId
HierarchicalCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalCollective")
                            .SetParent<CollectiveOperation>()
                            .SetGroupName("AiFabric");
    return tid;
}

HierarchicalCollective::HierarchicalCollective()
{
    NS_LOG_FUNCTION(this);
}

HierarchicalCollective::~HierarchicalCollective() = default;

void
HierarchicalCollective::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_phases.clear();
    m_hierarchy = nullptr;
    CollectiveOperation::DoDispose();
}

void
HierarchicalCollective::DoStart()
{
    NS_LOG_FUNCTION(this);
    m_hierarchy = &m_comm->GetHierarchy();
    m_phases = PlanPhases(*m_hierarchy);
    m_phase = 0;
    StartPhase();
}

void
HierarchicalCollective::StartPhase()
{
    NS_LOG_FUNCTION(this << m_phase);
    if (m_phase == m_phases.size())
    {
        Finish();
        return;
    }
    const Phase& phase = m_phases[m_phase];
    const auto& comms = phase.onRails ? m_hierarchy->rails : m_hierarchy->servers;
    const auto& ranks = phase.onRails ? m_hierarchy->railRanks : m_hierarchy->serverRanks;
    NS_ABORT_MSG_IF(phase.bytesOfGroup.size() != comms.size(),
                    GetInstanceTypeId().GetName()
                        << ": phase " << m_phase << " plans " << phase.bytesOfGroup.size()
                        << " groups, the communicator has " << comms.size());
    m_groupsLeft = 0;
    for (uint64_t bytes : phase.bytesOfGroup)
    {
        // A group with nothing to move (S smaller than the groups) is done already.
        m_groupsLeft += bytes > 0 ? 1 : 0;
    }
    NS_LOG_LOGIC("phase " << m_phase << ": " << phase.algorithm << " on " << m_groupsLeft << " of "
                          << comms.size() << (phase.onRails ? " rails" : " servers"));
    if (m_groupsLeft == 0)
    {
        ++m_phase;
        StartPhase();
        return;
    }
    for (std::size_t g = 0; g < comms.size(); ++g)
    {
        if (phase.bytesOfGroup[g] > 0)
        {
            CreatePhase(phase.algorithm)
                ->Start(comms[g],
                        phase.bytesOfGroup[g],
                        MakeCallback(&HierarchicalCollective::OnGroupDone, this, &ranks[g]));
        }
    }
}

void
HierarchicalCollective::OnGroupDone(const std::vector<uint32_t>* ranks,
                                    const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << m_phase << m_groupsLeft);
    AddPhaseTraffic(result, *ranks);
    if (--m_groupsLeft == 0)
    {
        // Scheduled, not called: a group may finish inside the loop starting the phase.
        ++m_phase;
        Simulator::ScheduleNow(&HierarchicalCollective::StartPhase, this);
    }
}

} // namespace ns3
