/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-queue-pair.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/bth-header.h"
#include "ns3/log.h"
#include "ns3/sack-header.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

RdmaQueuePair::RdmaQueuePair(uint32_t qpn, uint32_t localRank, uint32_t remoteRank, uint32_t mtu)
    : m_qpn(qpn),
      m_localRank(localRank),
      m_remoteRank(remoteRank),
      m_mtu(mtu)
{
    NS_LOG_FUNCTION(this << qpn << localRank << remoteRank << mtu);
    NS_ABORT_MSG_IF(mtu == 0, "RdmaQueuePair: Mtu " << mtu << " must be > 0");
}

void
RdmaQueuePair::SetInitialPsns(uint32_t sendPsn, uint32_t expectedPsn)
{
    NS_LOG_FUNCTION(this << sendPsn << expectedPsn);
    NS_ABORT_MSG_IF(!m_sends.empty() || !m_recvs.empty() || m_sndMax != m_sndUna,
                    "RdmaQueuePair " << m_qpn << ": initial PSNs must be set before use");
    NS_ABORT_MSG_IF(sendPsn > 0xFFFFFF || expectedPsn > 0xFFFFFF,
                    "RdmaQueuePair: InitialPsn " << sendPsn << "/" << expectedPsn
                                                 << " does not fit in 24 bits");
    m_nextPsn = m_sndUna = m_sndNxt = m_sndMax = sendPsn;
    m_scoreboard.Reset(sendPsn);
    m_expected = expectedPsn;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetRemoteQpn() const
{
    return m_remoteQpn;
}

void
RdmaQueuePair::SetRemoteQpn(uint32_t qpn)
{
    m_remoteQpn = qpn;
}

uint32_t
RdmaQueuePair::GetLocalRank() const
{
    return m_localRank;
}

uint32_t
RdmaQueuePair::GetRemoteRank() const
{
    return m_remoteRank;
}

uint32_t
RdmaQueuePair::GetMtu() const
{
    return m_mtu;
}

int64_t
RdmaQueuePair::Unwrap(uint32_t psn24, uint64_t reference)
{
    constexpr int64_t mod = int64_t{1} << 24;
    int64_t d =
        (static_cast<int64_t>(psn24) - static_cast<int64_t>(reference & (mod - 1))) & (mod - 1);
    if (d >= mod / 2)
    {
        d -= mod;
    }
    return static_cast<int64_t>(reference) + d;
}

void
RdmaQueuePair::PostSend(const RdmaCompletion& info, RdmaCompletionCallback onSent)
{
    NS_LOG_FUNCTION(this << info.size);
    NS_ABORT_MSG_IF(info.size == 0, "RdmaQueuePair: message size 0 is not allowed");
    SendMessage m;
    m.info = info;
    m.cb = onSent;
    m.firstPsn = m_nextPsn;
    m.packets = (info.size + m_mtu - 1) / m_mtu;
    NS_LOG_LOGIC("qp " << m_qpn << ": message of " << info.size << " B is PSN " << m.firstPsn
                       << " to " << m.firstPsn + m.packets - 1);
    m_nextPsn += m.packets;
    m_sends.push_back(std::move(m));
}

bool
RdmaQueuePair::HasSendable(uint64_t windowPackets) const
{
    if (failed)
    {
        return false;
    }
    if (m_scoreboard.HasResend())
    {
        return true; // selective repeat: a lost PSN, window or not
    }
    if (m_sndNxt >= m_nextPsn)
    {
        return false;
    }
    return windowPackets == 0 || m_sndNxt - m_sndUna < windowPackets;
}

bool
RdmaQueuePair::HasOutstanding() const
{
    return m_sndUna < m_sndMax;
}

RdmaQueuePair::Segment
RdmaQueuePair::NextSegment()
{
    NS_LOG_FUNCTION(this);
    // Selective repeat: lost PSNs go before new data, each alone (the scoreboard
    // holds only PSNs not known to be received).
    if (m_scoreboard.HasResend())
    {
        const uint64_t psn = m_scoreboard.PopResend();
        NS_LOG_LOGIC("qp " << m_qpn << ": resends PSN " << psn << " alone (selective repeat)");
        Segment s = BuildSegment(FindMessage(psn), psn);
        s.retransmission = true;
        m_scoreboard.OnTransmit(psn);
        return s;
    }
    NS_ASSERT(m_sndNxt < m_nextPsn && m_cursor < m_sends.size());
    const SendMessage& m = m_sends[m_cursor];
    Segment s = BuildSegment(m, m_sndNxt);
    s.retransmission = m_sndNxt < m_sndMax;
    ++m_sndNxt;
    m_sndMax = std::max(m_sndMax, m_sndNxt);
    if (m_sndNxt == m.firstPsn + m.packets)
    {
        ++m_cursor;
    }
    if (m_nakThreshold > 0)
    {
        m_scoreboard.OnTransmit(s.psn);
    }
    return s;
}

const RdmaQueuePair::SendMessage&
RdmaQueuePair::FindMessage(uint64_t psn) const
{
    // Messages are in PSN order: the last one starting at or before the PSN.
    auto it =
        std::upper_bound(m_sends.begin(), m_sends.end(), psn, [](uint64_t p, const SendMessage& m) {
            return p < m.firstPsn;
        });
    NS_ABORT_MSG_IF(it == m_sends.begin(),
                    "RdmaQueuePair " << m_qpn << ": PSN " << psn << " is in no message");
    --it;
    NS_ABORT_MSG_IF(psn >= it->firstPsn + it->packets,
                    "RdmaQueuePair " << m_qpn << ": PSN " << psn << " is in no message");
    return *it;
}

RdmaQueuePair::Segment
RdmaQueuePair::BuildSegment(const SendMessage& m, uint64_t psn) const
{
    const uint64_t index = psn - m.firstPsn;
    NS_ASSERT(psn >= m.firstPsn && index < m.packets);
    Segment s;
    s.psn = psn;
    s.offset = index * m_mtu;
    s.payload = static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.info.size - s.offset));
    s.messageSize = m.info.size;
    if (m.packets == 1)
    {
        s.opcode = BthHeader::RC_WRITE_ONLY;
    }
    else if (index == 0)
    {
        s.opcode = BthHeader::RC_WRITE_FIRST;
    }
    else if (index + 1 == m.packets)
    {
        s.opcode = BthHeader::RC_WRITE_LAST;
    }
    else
    {
        s.opcode = BthHeader::RC_WRITE_MIDDLE;
    }
    return s;
}

bool
RdmaQueuePair::OnAck(uint32_t psn24,
                     bool nak,
                     std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& done,
                     uint32_t sackBase24,
                     uint64_t sackBitmap)
{
    NS_LOG_FUNCTION(this << psn24 << nak << sackBase24 << sackBitmap);
    const bool selective = m_nakThreshold > 0;
    // Everything below newUna is acknowledged: an ACK carries the last PSN received
    // in order, a NAK the PSN the receiver expects.
    int64_t psn = Unwrap(psn24, m_sndUna);
    int64_t newUna = nak ? psn : psn + 1;
    if (newUna < static_cast<int64_t>(m_sndUna) || newUna > static_cast<int64_t>(m_sndMax))
    {
        if (!selective || sackBitmap == 0 || newUna > static_cast<int64_t>(m_sndMax))
        {
            NS_LOG_LOGIC("qp " << m_qpn << ": " << (nak ? "NAK" : "ACK") << " for PSN " << psn
                               << " outside [" << m_sndUna << ", " << m_sndMax << "], ignored");
            return false; // stale or impossible: ignore
        }
        // Overtaken by a newer acknowledgement; what it SACKs was received all the same.
        newUna = static_cast<int64_t>(m_sndUna);
    }
    bool progress = static_cast<uint64_t>(newUna) > m_sndUna;
    NS_LOG_LOGIC("qp " << m_qpn << ": " << (nak ? "NAK" : "ACK") << " PSN " << psn
                       << ", acknowledged up to " << newUna << " (sent up to " << m_sndMax << ")");
    m_sndUna = static_cast<uint64_t>(newUna);
    // Selective repeat: a resend the acknowledgement has made needless goes (with
    // nothing new to send, NextSegment would otherwise run past the last message).
    if (selective)
    {
        m_scoreboard.Acknowledge(m_sndUna);
    }
    while (!m_sends.empty() && m_sends.front().firstPsn + m_sends.front().packets <= m_sndUna)
    {
        done.emplace_back(m_sends.front().info, m_sends.front().cb);
        m_sends.pop_front();
        if (m_cursor > 0)
        {
            --m_cursor;
        }
    }
    if (selective)
    {
        // Selective repeat: mark what the receiver holds, then resend only what the
        // order of transmissions shows lost.
        uint32_t sacked = 0;
        if (sackBitmap != 0)
        {
            const auto base = static_cast<uint64_t>(Unwrap(sackBase24, m_sndUna));
            uint64_t bits = sackBitmap;
            for (uint64_t sackPsn = base; bits != 0; ++sackPsn, bits >>= 1)
            {
                if ((bits & 1) != 0 && m_scoreboard.Sack(sackPsn))
                {
                    ++sacked;
                }
            }
        }
        else if (nak && m_scoreboard.MarkLost(m_sndUna))
        {
            // A NAK without SACK (from a receiver that sends none) names one lost PSN.
            NS_LOG_LOGIC("qp " << m_qpn << ": NAK without SACK, PSN " << m_sndUna
                               << " to be resent");
        }
        const uint32_t lost = m_scoreboard.DetectLosses();
        NS_LOG_LOGIC("qp " << m_qpn << ": " << sacked << " PSNs newly SACKed, " << lost
                           << " found lost");
        return progress || sacked > 0 || (nak && sackBitmap == 0);
    }
    if (nak)
    {
        GoBackN();
        return true;
    }
    if (m_sndNxt < m_sndUna)
    {
        GoBackN(); // cannot happen with an honest receiver; keeps the pointers sane
    }
    return progress;
}

void
RdmaQueuePair::GoBackN()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_LOGIC("qp " << m_qpn << ": go back N, resends from PSN " << m_sndUna << " (sent up to "
                       << m_sndMax << ")");
    m_scoreboard.ClearResends(); // everything from m_sndUna goes again
    m_sndNxt = m_sndUna;
    m_cursor = 0;
    while (m_cursor < m_sends.size() &&
           m_sends[m_cursor].firstPsn + m_sends[m_cursor].packets <= m_sndNxt)
    {
        ++m_cursor;
    }
}

void
RdmaQueuePair::OnTimeout()
{
    NS_LOG_FUNCTION(this);
    if (m_nakThreshold == 0)
    {
        GoBackN();
        return;
    }
    // Selective repeat: what the receiver has SACKed is not sent again.
    const uint32_t queued = m_scoreboard.MarkAllUnsackedLost();
    NS_LOG_LOGIC("qp " << m_qpn << ": timeout, resends the " << queued << " PSNs of [" << m_sndUna
                       << ", " << m_sndMax << ") not SACKed");
}

uint64_t
RdmaQueuePair::GetSndUna() const
{
    return m_sndUna;
}

uint64_t
RdmaQueuePair::GetSndNxt() const
{
    return m_sndNxt;
}

uint64_t
RdmaQueuePair::GetSndMax() const
{
    return m_sndMax;
}

std::size_t
RdmaQueuePair::GetPendingSends() const
{
    return m_sends.size();
}

bool
RdmaQueuePair::IsSelectiveRepeat() const
{
    return m_nakThreshold > 0;
}

const SackScoreboard&
RdmaQueuePair::GetScoreboard() const
{
    return m_scoreboard;
}

void
RdmaQueuePair::FlushSends(std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& flushed)
{
    NS_LOG_FUNCTION(this);
    NS_LOG_LOGIC("qp " << m_qpn << ": " << m_sends.size() << " messages flushed");
    for (const SendMessage& m : m_sends)
    {
        flushed.emplace_back(m.info, m.cb);
    }
    m_sends.clear();
    m_cursor = 0;
    m_sndUna = m_nextPsn;
    m_sndNxt = m_nextPsn;
    m_sndMax = m_nextPsn;
    m_scoreboard.Reset(m_nextPsn);
}

void
RdmaQueuePair::PostReceive(const RdmaCompletion& info, RdmaCompletionCallback onReceived)
{
    NS_LOG_FUNCTION(this << info.size);
    RecvMessage m;
    m.info = info;
    m.cb = onReceived;
    m_recvs.push_back(std::move(m));
}

void
RdmaQueuePair::SetReorderWindow(uint32_t packets)
{
    NS_LOG_FUNCTION(this << packets);
    NS_ABORT_MSG_IF(m_delivered > 0,
                    "RdmaQueuePair " << m_qpn << ": reorder window set after data arrived");
    m_reorderWindow = packets;
    m_held.assign(packets > 0 ? packets + 1 : 0, 0);
    m_heldLast.assign(m_held.size(), false);
}

void
RdmaQueuePair::SetNakThreshold(uint32_t packets)
{
    NS_LOG_FUNCTION(this << packets);
    NS_ABORT_MSG_IF(packets > m_reorderWindow,
                    "RdmaQueuePair " << m_qpn << ": NakThreshold " << packets
                                     << " above the reorder window " << m_reorderWindow);
    m_nakThreshold = packets;
    if (packets > 0)
    {
        m_scoreboard.SetReorderTolerance(packets);
    }
}

RdmaQueuePair::RxResult
RdmaQueuePair::OnData(uint32_t psn24,
                      uint32_t payload,
                      bool lastOfMessage,
                      std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& completed)
{
    NS_LOG_FUNCTION(this << psn24 << payload << lastOfMessage);
    int64_t psn = Unwrap(psn24, m_expected);
    m_lastRxPsn = static_cast<uint64_t>(std::max<int64_t>(psn, 0));
    // Selective repeat: while NakThreshold packets wait beyond a gap, every arrival is
    // answered with a NAK and its SACK, so that losing one NAK loses nothing.
    const bool nakGap = m_nakThreshold > 0 && m_heldCount >= m_nakThreshold;
    if (psn < static_cast<int64_t>(m_expected))
    {
        NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " below the expected " << m_expected
                           << ", duplicate");
        return nakGap ? RX_DUPLICATE_NAK : RX_DUPLICATE;
    }
    if (psn > static_cast<int64_t>(m_expected))
    {
        const auto ahead = static_cast<uint64_t>(psn) - m_expected;
        if (ahead <= m_reorderWindow)
        {
            // Out-of-order placement: hold it until the gap before it fills.
            const std::size_t slot = static_cast<uint64_t>(psn) % m_held.size();
            if (m_held[slot] != 0)
            {
                NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " held already, duplicate");
                return nakGap ? RX_DUPLICATE_NAK : RX_DUPLICATE;
            }
            NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " placed out of order, " << ahead
                               << " ahead of the expected " << m_expected);
            m_held[slot] = payload + 1;
            m_heldLast[slot] = lastOfMessage;
            ++m_heldCount;
            // Selective repeat: NAK the gap, with a SACK, at every packet that arrives
            // while NakThreshold or more wait beyond it.
            if (m_nakThreshold > 0 && m_heldCount >= m_nakThreshold)
            {
                NS_LOG_LOGIC("qp " << m_qpn << ": " << m_heldCount << " held beyond PSN "
                                   << m_expected << ", NAK");
                m_nakSent = true;
                return RX_PLACED_NAK;
            }
            return RX_PLACED;
        }
        if (m_nakSent || m_reorderWindow > 0)
        {
            NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " out of order (expected "
                               << m_expected << "), dropped");
            return RX_OUT_OF_ORDER_DROP;
        }
        NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " out of order (expected " << m_expected
                           << "), NAK");
        m_nakSent = true;
        return RX_OUT_OF_ORDER_NAK;
    }
    Deliver(payload, lastOfMessage, completed);
    // Then every held packet the gap was keeping back.
    while (!m_held.empty())
    {
        const std::size_t slot = m_expected % m_held.size();
        if (m_held[slot] == 0)
        {
            break;
        }
        const uint32_t held = m_held[slot] - 1;
        const bool last = m_heldLast[slot];
        m_held[slot] = 0;
        --m_heldCount;
        Deliver(held, last, completed);
    }
    if (m_nakThreshold > 0 && m_heldCount >= m_nakThreshold)
    {
        // The gap it filled is followed by another with enough waiting beyond it.
        m_nakSent = true;
        return RX_ACCEPTED_NAK;
    }
    return RX_ACCEPTED;
}

void
RdmaQueuePair::Deliver(uint32_t payload,
                       bool lastOfMessage,
                       std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& completed)
{
    NS_ABORT_MSG_IF(m_recvs.empty(),
                    "RdmaQueuePair " << m_qpn << ": data with no posted message (rank "
                                     << m_remoteRank << " -> " << m_localRank << ")");
    ++m_expected;
    m_nakSent = false;
    m_delivered += payload;
    RecvMessage& m = m_recvs.front();
    m.received += payload;
    NS_ABORT_MSG_IF(m.received > m.info.size,
                    "RdmaQueuePair " << m_qpn << ": received " << m.received
                                     << " bytes for a message of " << m.info.size);
    if (!lastOfMessage)
    {
        return;
    }
    NS_ABORT_MSG_IF(m.received != m.info.size,
                    "RdmaQueuePair " << m_qpn << ": message ended after " << m.received << " of "
                                     << m.info.size << " bytes");
    NS_LOG_LOGIC("qp " << m_qpn << ": message of " << m.info.size << " B received in full");
    completed.emplace_back(m.info, m.cb);
    m_recvs.pop_front();
    ++m_msn;
}

uint64_t
RdmaQueuePair::GetExpectedPsn() const
{
    return m_expected;
}

uint32_t
RdmaQueuePair::GetHeldCount() const
{
    return m_heldCount;
}

RdmaQueuePair::SackInfo
RdmaQueuePair::GetSack() const
{
    SackInfo sack;
    if (m_held.empty())
    {
        sack.basePsn = m_expected + 1;
        return sack; // nothing is ever held
    }
    // The 64 PSNs that end at the last arrival, from just after the expected PSN at
    // the lowest; bit i stands for base + i.
    const uint64_t bits = SackHeader::BITS;
    sack.basePsn = std::max(m_expected + 1, m_lastRxPsn + 1 >= bits ? m_lastRxPsn + 1 - bits : 0);
    std::size_t slot = sack.basePsn % m_held.size();
    for (uint64_t i = 0; i < bits && sack.basePsn + i - m_expected <= m_reorderWindow; ++i)
    {
        if (m_held[slot] != 0)
        {
            sack.bitmap |= uint64_t{1} << i;
        }
        if (++slot == m_held.size())
        {
            slot = 0;
        }
    }
    return sack;
}

uint64_t
RdmaQueuePair::GetMsn() const
{
    return m_msn;
}

uint64_t
RdmaQueuePair::GetDeliveredBytes() const
{
    return m_delivered;
}

} // namespace ns3
