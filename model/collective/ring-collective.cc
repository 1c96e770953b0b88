/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-collective.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingCollective");

NS_OBJECT_ENSURE_REGISTERED(RingCollective);

TypeId
RingCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingCollective").SetParent<CollectiveOperation>().SetGroupName("AiFabric");
    return tid;
}

RingCollective::RingCollective()
{
    NS_LOG_FUNCTION(this);
}

RingCollective::~RingCollective() = default;

uint64_t
RingCollective::GetChunkBytes(uint32_t chunk, uint32_t chunks) const
{
    return SplitBytes(m_bytes, chunks, chunk);
}

uint64_t
RingCollective::GetPieceBytes(uint32_t chunk, uint32_t channel, uint64_t piece) const
{
    uint64_t onChannel = SplitBytes(GetChunkBytes(chunk, m_chunks), m_channels, channel);
    uint64_t offset = piece * m_chunkSize;
    return std::min(m_chunkSize, onChannel - offset);
}

void
RingCollective::DoStart()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = m_comm->GetSize();
    m_chunks = GetRingChunks(n);
    m_hops = GetHops(n);
    m_reducedHops = GetReducedHops(n);
    if (n == 1 || m_hops == 0)
    {
        NS_LOG_LOGIC("one rank: nothing to move");
        Simulator::ScheduleNow(&RingCollective::Finish, this);
        return;
    }
    // Count every piece first: an arrival must never see a partial count.
    for (uint32_t j = 0; j < m_chunks; ++j)
    {
        uint64_t chunkBytes = GetChunkBytes(j, m_chunks);
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            uint64_t onChannel = SplitBytes(chunkBytes, m_channels, c);
            m_piecesLeft += (onChannel + m_chunkSize - 1) / m_chunkSize;
        }
    }
    NS_LOG_LOGIC(m_chunks << " chunks, " << m_hops << " hops, " << m_piecesLeft << " pieces");
    for (uint32_t j = 0; j < m_chunks; ++j)
    {
        uint64_t chunkBytes = GetChunkBytes(j, m_chunks);
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            uint64_t pieces =
                (SplitBytes(chunkBytes, m_channels, c) + m_chunkSize - 1) / m_chunkSize;
            for (uint64_t p = 0; p < pieces; ++p)
            {
                Forward(j, c, p, 0);
            }
        }
    }
}

void
RingCollective::Forward(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop)
{
    NS_LOG_FUNCTION(this << chunk << channel << piece << hop);
    uint32_t n = m_comm->GetSize();
    uint32_t src = (GetFirstSender(chunk, n) + hop) % n;
    uint32_t dst = (src + 1) % n;
    Send(src,
         dst,
         GetPieceBytes(chunk, channel, piece),
         channel,
         hop,
         MakeCallback(&RingCollective::OnArrival, this, chunk, channel, piece, hop));
}

void
RingCollective::OnArrival(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop)
{
    NS_LOG_FUNCTION(this << chunk << channel << piece << hop);
    if (hop < m_reducedHops)
    {
        Time t = GetReductionTime(GetPieceBytes(chunk, channel, piece));
        if (t.IsStrictlyPositive())
        {
            Simulator::Schedule(t, &RingCollective::OnReady, this, chunk, channel, piece, hop);
            return;
        }
    }
    OnReady(chunk, channel, piece, hop);
}

void
RingCollective::OnReady(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop)
{
    NS_LOG_FUNCTION(this << chunk << channel << piece << hop);
    if (hop + 1 < m_hops)
    {
        Forward(chunk, channel, piece, hop + 1);
        return;
    }
    NS_LOG_LOGIC("chunk " << chunk << " channel " << channel << " piece " << piece << " finished; "
                          << m_piecesLeft - 1 << " left");
    if (--m_piecesLeft == 0)
    {
        Finish();
    }
}

} // namespace ns3
