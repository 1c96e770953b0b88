/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-queue-pair.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/bth-header.h"
#include "ns3/log.h"

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
    if (!m_resend.empty())
    {
        return true;
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
    // Selective repeat: a PSN a NAK named goes first, alone.
    while (!m_resend.empty())
    {
        const uint64_t psn = m_resend.front();
        m_resend.pop_front();
        if (psn < m_sndUna)
        {
            continue; // acknowledged meanwhile
        }
        for (const SendMessage& m : m_sends)
        {
            if (psn < m.firstPsn + m.packets)
            {
                NS_LOG_LOGIC("qp " << m_qpn << ": resends PSN " << psn
                                   << " alone (selective repeat)");
                Segment s = BuildSegment(m, psn);
                s.retransmission = true;
                return s;
            }
        }
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
    return s;
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
                     std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& done)
{
    NS_LOG_FUNCTION(this << psn24 << nak);
    // Everything below newUna is acknowledged: an ACK carries the last PSN received
    // in order, a NAK the PSN the receiver expects.
    int64_t psn = Unwrap(psn24, m_sndUna);
    int64_t newUna = nak ? psn : psn + 1;
    if (newUna < static_cast<int64_t>(m_sndUna) || newUna > static_cast<int64_t>(m_sndMax))
    {
        NS_LOG_LOGIC("qp " << m_qpn << ": " << (nak ? "NAK" : "ACK") << " for PSN " << psn
                           << " outside [" << m_sndUna << ", " << m_sndMax << "], ignored");
        return false; // stale or impossible: ignore
    }
    bool progress = static_cast<uint64_t>(newUna) > m_sndUna;
    NS_LOG_LOGIC("qp " << m_qpn << ": " << (nak ? "NAK" : "ACK") << " PSN " << psn
                       << ", acknowledged up to " << newUna << " (sent up to " << m_sndMax << ")");
    m_sndUna = static_cast<uint64_t>(newUna);
    // A resend the acknowledgement has made needless must not count as sendable: with
    // nothing new to send, NextSegment would run past the last message.
    m_resend.erase(std::remove_if(m_resend.begin(),
                                  m_resend.end(),
                                  [this](uint64_t resend) { return resend < m_sndUna; }),
                   m_resend.end());
    while (!m_sends.empty() && m_sends.front().firstPsn + m_sends.front().packets <= m_sndUna)
    {
        done.emplace_back(m_sends.front().info, m_sends.front().cb);
        m_sends.pop_front();
        if (m_cursor > 0)
        {
            --m_cursor;
        }
    }
    if (nak)
    {
        if (m_nakThreshold > 0)
        {
            // Selective repeat: resend only the PSN the receiver is missing.
            if (m_sndUna < m_sndNxt &&
                std::find(m_resend.begin(), m_resend.end(), m_sndUna) == m_resend.end())
            {
                NS_LOG_LOGIC("qp " << m_qpn << ": NAK, PSN " << m_sndUna << " to be resent");
                m_resend.push_back(m_sndUna);
            }
            return true;
        }
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
    m_resend.clear(); // everything from m_sndUna goes again
    m_sndNxt = m_sndUna;
    m_cursor = 0;
    while (m_cursor < m_sends.size() &&
           m_sends[m_cursor].firstPsn + m_sends[m_cursor].packets <= m_sndNxt)
    {
        ++m_cursor;
    }
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
    m_resend.clear();
    m_cursor = 0;
    m_sndUna = m_nextPsn;
    m_sndNxt = m_nextPsn;
    m_sndMax = m_nextPsn;
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
}

RdmaQueuePair::RxResult
RdmaQueuePair::OnData(uint32_t psn24,
                      uint32_t payload,
                      bool lastOfMessage,
                      std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& completed)
{
    NS_LOG_FUNCTION(this << psn24 << payload << lastOfMessage);
    int64_t psn = Unwrap(psn24, m_expected);
    if (psn < static_cast<int64_t>(m_expected))
    {
        NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " below the expected " << m_expected
                           << ", duplicate");
        return RX_DUPLICATE;
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
                return RX_DUPLICATE;
            }
            NS_LOG_LOGIC("qp " << m_qpn << ": PSN " << psn << " placed out of order, " << ahead
                               << " ahead of the expected " << m_expected);
            m_held[slot] = payload + 1;
            m_heldLast[slot] = lastOfMessage;
            ++m_heldCount;
            // NAK the gap once, when NakThreshold packets wait beyond it (a resent
            // packet lost again waits for the retransmission timeout).
            if (m_nakThreshold > 0 && !m_nakSent && m_heldCount >= m_nakThreshold)
            {
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
