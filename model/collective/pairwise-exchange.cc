/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pairwise-exchange.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PairwiseExchange");

NS_OBJECT_ENSURE_REGISTERED(PairwiseExchange);

TypeId
PairwiseExchange::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PairwiseExchange")
            .SetParent<CollectiveOperation>()
            .SetGroupName("AiFabric")
            .AddAttribute("MaxPeers",
                          "Rounds (peers) a rank has outstanding at once: in round k rank r "
                          "sends to rank (r + k) mod n, and a rank posts its next round when "
                          "one of its outstanding rounds has arrived. 0 (or n-1 and more): "
                          "every peer at once, as NCCL posts them; 1: round by round",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PairwiseExchange::m_maxPeers),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

PairwiseExchange::PairwiseExchange()
{
    NS_LOG_FUNCTION(this);
}

PairwiseExchange::~PairwiseExchange() = default;

double
PairwiseExchange::GetBusBandwidthFactor(uint32_t ranks) const
{
    return (ranks - 1.0) / ranks;
}

void
PairwiseExchange::DoStart()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = m_comm->GetSize();
    // Count every round first: an arrival must never see a partial count.
    m_roundsLeft = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            if (GetPairBytes(r, (r + k) % n) > 0)
            {
                ++m_roundsLeft;
            }
        }
    }
    if (m_roundsLeft == 0)
    {
        NS_LOG_LOGIC("no bytes between distinct ranks: nothing to move");
        Simulator::ScheduleNow(&PairwiseExchange::Finish, this);
        return;
    }
    m_window = (m_maxPeers == 0) ? n - 1 : std::min(m_maxPeers, n - 1);
    m_nextRound.assign(n, 1);
    m_piecesLeft.assign(static_cast<size_t>(n) * m_window, 0);
    NS_LOG_LOGIC(n << " ranks, " << m_roundsLeft << " rounds with bytes, window " << m_window);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t slot = 0; slot < m_window; ++slot)
        {
            PostNextRound(r, slot);
        }
    }
}

void
PairwiseExchange::PostNextRound(uint32_t src, uint32_t slot)
{
    NS_LOG_FUNCTION(this << src << slot);
    uint32_t n = m_comm->GetSize();
    uint32_t k = m_nextRound[src];
    while (k < n && GetPairBytes(src, (src + k) % n) == 0)
    {
        ++k;
    }
    if (k == n)
    {
        NS_LOG_LOGIC("rank " << src << " has no round left for slot " << slot);
        m_nextRound[src] = n;
        return;
    }
    m_nextRound[src] = k + 1;
    uint32_t dst = (src + k) % n;
    uint64_t bytes = GetPairBytes(src, dst);
    uint64_t& piecesLeft = m_piecesLeft[static_cast<size_t>(src) * m_window + slot];
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        piecesLeft += (SplitBytes(bytes, m_channels, c) + m_chunkSize - 1) / m_chunkSize;
    }
    NS_LOG_LOGIC("rank " << src << " round " << k << " -> rank " << dst << ": " << bytes << " B in "
                         << piecesLeft << " pieces, slot " << slot);
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        uint64_t onChannel = SplitBytes(bytes, m_channels, c);
        for (uint64_t offset = 0; offset < onChannel; offset += m_chunkSize)
        {
            Send(src,
                 dst,
                 std::min(m_chunkSize, onChannel - offset),
                 c,
                 k,
                 MakeCallback(&PairwiseExchange::OnArrival, this, src, slot));
        }
    }
}

void
PairwiseExchange::OnArrival(uint32_t src, uint32_t slot)
{
    NS_LOG_FUNCTION(this << src << slot);
    if (--m_piecesLeft[static_cast<size_t>(src) * m_window + slot] > 0)
    {
        return;
    }
    NS_LOG_LOGIC("rank " << src << ": a round arrived (slot " << slot << "); " << m_roundsLeft - 1
                         << " rounds left in all");
    if (--m_roundsLeft == 0)
    {
        Finish();
        return;
    }
    PostNextRound(src, slot);
}

} // namespace ns3
