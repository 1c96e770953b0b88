/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dissemination-barrier.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DisseminationBarrier");

NS_OBJECT_ENSURE_REGISTERED(DisseminationBarrier);

TypeId
DisseminationBarrier::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DisseminationBarrier")
                            .SetParent<CollectiveOperation>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DisseminationBarrier>();
    return tid;
}

DisseminationBarrier::DisseminationBarrier()
{
    NS_LOG_FUNCTION(this);
}

DisseminationBarrier::~DisseminationBarrier() = default;

std::string
DisseminationBarrier::GetCollectiveName() const
{
    return "Barrier";
}

double
DisseminationBarrier::GetBusBandwidthFactor(uint32_t /* ranks */) const
{
    return 0.0;
}

uint32_t
DisseminationBarrier::GetRounds(uint32_t n)
{
    uint32_t rounds = 0;
    for (uint64_t reach = 1; reach < n; reach *= 2)
    {
        ++rounds;
    }
    return rounds;
}

void
DisseminationBarrier::DoStart()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = m_comm->GetSize();
    m_rounds = GetRounds(n);
    if (m_rounds == 0)
    {
        NS_LOG_LOGIC("one rank: the barrier is passed");
        Simulator::ScheduleNow(&DisseminationBarrier::Finish, this);
        return;
    }
    m_round.assign(n, 0);
    m_heard.assign(static_cast<size_t>(n) * m_rounds, 0);
    m_ranksLeft = n;
    NS_LOG_LOGIC(n << " ranks, " << m_rounds << " rounds of " << m_bytes << " B");
    for (uint32_t r = 0; r < n; ++r)
    {
        Enter(r, 0);
    }
}

void
DisseminationBarrier::Enter(uint32_t rank, uint32_t round)
{
    NS_LOG_FUNCTION(this << rank << round);
    uint32_t n = m_comm->GetSize();
    m_round[rank] = round;
    uint32_t dst = static_cast<uint32_t>((rank + (uint64_t{1} << round)) % n);
    Send(rank,
         dst,
         m_bytes,
         0,
         round,
         MakeCallback(&DisseminationBarrier::OnArrival, this, dst, round));
    if (m_heard[static_cast<size_t>(rank) * m_rounds + round])
    {
        NS_LOG_LOGIC("rank " << rank << " had already heard round " << round);
        Leave(rank);
    }
}

void
DisseminationBarrier::Leave(uint32_t rank)
{
    NS_LOG_FUNCTION(this << rank);
    uint32_t next = m_round[rank] + 1;
    if (next < m_rounds)
    {
        Enter(rank, next);
        return;
    }
    m_round[rank] = m_rounds;
    NS_LOG_LOGIC("rank " << rank << " passed the barrier; " << m_ranksLeft - 1 << " ranks left");
    if (--m_ranksLeft == 0)
    {
        Finish();
    }
}

void
DisseminationBarrier::OnArrival(uint32_t rank, uint32_t round)
{
    NS_LOG_FUNCTION(this << rank << round);
    m_heard[static_cast<size_t>(rank) * m_rounds + round] = 1;
    if (m_round[rank] == round)
    {
        Leave(rank);
    }
}

} // namespace ns3
