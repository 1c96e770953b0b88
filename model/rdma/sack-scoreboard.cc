/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "sack-scoreboard.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <functional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SackScoreboard");

SackScoreboard::SackScoreboard()
{
    NS_LOG_FUNCTION(this);
}

void
SackScoreboard::Reset(uint64_t una)
{
    NS_LOG_FUNCTION(this << una);
    m_una = m_max = una;
    m_transmissions = 0;
    m_delivered = 0;
    m_latestDelivered.clear();
    m_txOrder.clear();
    m_resend.clear();
}

void
SackScoreboard::SetReorderTolerance(uint32_t packets)
{
    NS_LOG_FUNCTION(this << packets);
    NS_ABORT_MSG_IF(packets == 0, "SackScoreboard: reorder tolerance 0 must be >= 1");
    m_tolerance = packets;
    m_latestDelivered.clear();
    m_latestDelivered.reserve(packets);
}

uint32_t
SackScoreboard::GetReorderTolerance() const
{
    return m_tolerance;
}

SackScoreboard::Slot&
SackScoreboard::At(uint64_t psn)
{
    NS_ASSERT(psn >= m_una && psn < m_max);
    return m_slots[psn & m_mask];
}

const SackScoreboard::Slot&
SackScoreboard::At(uint64_t psn) const
{
    NS_ASSERT(psn >= m_una && psn < m_max);
    return m_slots[psn & m_mask];
}

void
SackScoreboard::Grow()
{
    NS_LOG_FUNCTION(this << m_slots.size());
    std::vector<Slot> slots(std::max<std::size_t>(64, 2 * m_slots.size()));
    const uint64_t mask = slots.size() - 1;
    for (uint64_t psn = m_una; psn < m_max; ++psn)
    {
        slots[psn & mask] = m_slots[psn & m_mask];
    }
    m_slots.swap(slots);
    m_mask = mask;
}

void
SackScoreboard::OnTransmit(uint64_t psn)
{
    NS_LOG_FUNCTION(this << psn);
    NS_ABORT_MSG_IF(psn < m_una || psn > m_max,
                    "SackScoreboard: PSN " << psn << " sent outside [" << m_una << ", " << m_max
                                           << "]");
    if (psn == m_max)
    {
        if (m_max - m_una == m_slots.size())
        {
            Grow();
        }
        ++m_max;
        At(psn) = Slot();
        At(psn).firstTx = m_transmissions + 1;
    }
    At(psn).lastTx = ++m_transmissions;
    m_txOrder.push_back({m_transmissions, psn});
}

bool
SackScoreboard::Acknowledge(uint64_t una)
{
    NS_LOG_FUNCTION(this << una);
    if (una <= m_una)
    {
        return false;
    }
    NS_ABORT_MSG_IF(una > m_max,
                    "SackScoreboard: acknowledgement up to "
                        << una << " beyond the highest PSN sent " << m_max);
    for (uint64_t psn = m_una; psn < una; ++psn)
    {
        const Slot& slot = At(psn);
        if (!slot.sacked)
        {
            RecordDelivered(slot.firstTx);
        }
    }
    m_una = una;
    DropStaleResends();
    return true;
}

void
SackScoreboard::RecordDelivered(uint64_t tx)
{
    m_delivered = std::max(m_delivered, tx);
    // Keep the ReorderTolerance latest: a min-heap of at most that many numbers.
    if (m_latestDelivered.size() < m_tolerance)
    {
        m_latestDelivered.push_back(tx);
        std::push_heap(m_latestDelivered.begin(), m_latestDelivered.end(), std::greater<>());
    }
    else if (tx > m_latestDelivered.front())
    {
        std::pop_heap(m_latestDelivered.begin(), m_latestDelivered.end(), std::greater<>());
        m_latestDelivered.back() = tx;
        std::push_heap(m_latestDelivered.begin(), m_latestDelivered.end(), std::greater<>());
    }
}

bool
SackScoreboard::Sack(uint64_t psn)
{
    if (psn < m_una || psn >= m_max)
    {
        return false;
    }
    Slot& slot = At(psn);
    if (slot.sacked)
    {
        return false;
    }
    NS_LOG_LOGIC("PSN " << psn << " SACKed (transmissions " << slot.firstTx << " to " << slot.lastTx
                        << ")");
    slot.sacked = true;
    RecordDelivered(slot.firstTx); // the earliest that can have arrived
    if (slot.queued)
    {
        DropStaleResends(); // a resend no longer needed, if it is the next one
    }
    return true;
}

uint32_t
SackScoreboard::DetectLosses()
{
    NS_LOG_FUNCTION(this << m_delivered);
    uint32_t lost = 0;
    // Transmissions in the order they left; a stale entry (its PSN received, or sent
    // again since) goes whatever its number.
    while (!m_txOrder.empty())
    {
        const auto [tx, psn] = m_txOrder.front();
        if (psn >= m_una)
        {
            Slot& slot = At(psn);
            if (!slot.sacked && slot.lastTx == tx)
            {
                if (m_latestDelivered.size() < m_tolerance || m_latestDelivered.front() <= tx)
                {
                    break; // fewer than ReorderTolerance sent after it received yet
                }
                if (!slot.queued)
                {
                    NS_LOG_LOGIC("PSN " << psn << " lost: transmission " << tx << " not received, "
                                        << m_tolerance << " sent after it were (up to "
                                        << m_delivered << ")");
                    slot.queued = true;
                    m_resend.push_back(psn);
                    ++lost;
                }
            }
        }
        m_txOrder.pop_front();
    }
    return lost;
}

bool
SackScoreboard::MarkLost(uint64_t psn)
{
    NS_LOG_FUNCTION(this << psn);
    if (psn < m_una || psn >= m_max)
    {
        return false;
    }
    Slot& slot = At(psn);
    if (slot.sacked || slot.queued)
    {
        return false;
    }
    slot.queued = true;
    m_resend.push_back(psn);
    return true;
}

uint32_t
SackScoreboard::MarkAllUnsackedLost()
{
    NS_LOG_FUNCTION(this);
    ClearResends();
    uint32_t queued = 0;
    for (uint64_t psn = m_una; psn < m_max; ++psn)
    {
        Slot& slot = At(psn);
        if (!slot.sacked)
        {
            slot.queued = true;
            m_resend.push_back(psn);
            ++queued;
        }
    }
    NS_LOG_LOGIC(queued << " of " << m_max - m_una << " unacknowledged PSNs not SACKed, queued");
    return queued;
}

void
SackScoreboard::ClearResends()
{
    NS_LOG_FUNCTION(this);
    while (!m_resend.empty())
    {
        const uint64_t psn = m_resend.front();
        if (psn >= m_una)
        {
            At(psn).queued = false;
        }
        m_resend.pop_front();
    }
}

void
SackScoreboard::DropStaleResends()
{
    while (!m_resend.empty() && (m_resend.front() < m_una || At(m_resend.front()).sacked))
    {
        const uint64_t psn = m_resend.front();
        if (psn >= m_una)
        {
            At(psn).queued = false;
        }
        m_resend.pop_front();
    }
}

bool
SackScoreboard::HasResend() const
{
    return !m_resend.empty();
}

uint64_t
SackScoreboard::PopResend()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT(!m_resend.empty());
    const uint64_t psn = m_resend.front();
    m_resend.pop_front();
    At(psn).queued = false;
    DropStaleResends();
    return psn;
}

uint64_t
SackScoreboard::GetUna() const
{
    return m_una;
}

uint64_t
SackScoreboard::GetMax() const
{
    return m_max;
}

bool
SackScoreboard::IsSacked(uint64_t psn) const
{
    return psn >= m_una && psn < m_max && At(psn).sacked;
}

uint64_t
SackScoreboard::GetTransmissions() const
{
    return m_transmissions;
}

uint64_t
SackScoreboard::GetDeliveredTransmission() const
{
    return m_delivered;
}

} // namespace ns3
