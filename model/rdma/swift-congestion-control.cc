/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "swift-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwiftCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(SwiftCongestionControl);

TypeId
SwiftCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwiftCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<SwiftCongestionControl>()
            .AddAttribute("TargetDelay",
                          "Round-trip delay to hold; above the fabric's base round trip plus "
                          "the receiver's ACK coalescing (AckInterval frame times)",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_target),
                          MakeTimeChecker())
            .AddAttribute("AdditiveIncrease",
                          "Packets of window added per round trip below the target (Swift's "
                          "ai, 1)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_additiveIncrease),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "Multiplicative decrease per unit of relative excess delay (Swift's "
                          "beta, 0.8)",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxDecrease",
                          "Largest decrease at once, a fraction of the rate (Swift's max_mdf, "
                          "0.5)",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_maxDecrease),
                          MakeDoubleChecker<double>())
            .AddAttribute("MinRate",
                          "Lowest rate",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&SwiftCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("PacketBytes",
                          "Wire bytes of a full packet b, the window's unit (4096 B of payload "
                          "and 82 B of headers)",
                          UintegerValue(4178),
                          MakeUintegerAccessor(&SwiftCongestionControl::m_packetBytes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

SwiftCongestionControl::SwiftCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

SwiftCongestionControl::~SwiftCongestionControl() = default;

void
SwiftCongestionControl::DoInstall(Time now)
{
    NS_LOG_FUNCTION(this << now);
    NS_ABORT_MSG_IF(!m_target.IsStrictlyPositive(),
                    "SwiftCongestionControl: TargetDelay " << m_target.As(Time::US)
                                                           << " must be above 0");
    NS_ABORT_MSG_IF(!(m_additiveIncrease > 0),
                    "SwiftCongestionControl: AdditiveIncrease " << m_additiveIncrease
                                                                << " must be above 0");
    NS_ABORT_MSG_IF(!(m_beta > 0), "SwiftCongestionControl: Beta " << m_beta << " must be above 0");
    NS_ABORT_MSG_IF(!(m_maxDecrease > 0 && m_maxDecrease < 1),
                    "SwiftCongestionControl: MaxDecrease " << m_maxDecrease
                                                           << " must be in (0, 1)");
    NS_ABORT_MSG_IF(
        m_minRate.GetBitRate() == 0 || static_cast<double>(m_minRate.GetBitRate()) > GetLineRate(),
        "SwiftCongestionControl: MinRate " << m_minRate << " must be in (0, line rate]");
    NS_ABORT_MSG_IF(m_packetBytes == 0, "SwiftCongestionControl: PacketBytes 0 must be above 0");
    m_rate = GetLineRate();
}

double
SwiftCongestionControl::GetRate() const
{
    return m_rate > 0 ? m_rate : RdmaCongestionControl::GetRate();
}

uint32_t
SwiftCongestionControl::GetWindowPackets() const
{
    const double packets = std::ceil(GetRate() * m_target.GetSeconds() / (8.0 * m_packetBytes));
    return static_cast<uint32_t>(std::max(1.0, packets));
}

bool
SwiftCongestionControl::UsesRtt() const
{
    return true;
}

double
SwiftCongestionControl::Clamp(double rate) const
{
    return std::clamp(rate, static_cast<double>(m_minRate.GetBitRate()), GetLineRate());
}

void
SwiftCongestionControl::OnAck(uint64_t /* ackedPackets */, Time rtt, Time now)
{
    NS_LOG_FUNCTION(this << rtt << now);
    if (rtt.IsNegative())
    {
        return; // no sample (a go-back-N round)
    }
    m_lastRtt = rtt;
    const double before = m_rate;
    const double d = rtt.GetSeconds();
    const Time elapsed = m_lastUpdate.IsNegative() ? Time(0) : now - m_lastUpdate;
    m_lastUpdate = now;
    if (rtt < m_target)
    {
        // AdditiveIncrease packets of window per round trip: b / d per d of time.
        const double b = 8.0 * m_packetBytes;
        m_rate = Clamp(m_rate + m_additiveIncrease * b * elapsed.GetSeconds() / (d * d));
        NS_LOG_LOGIC("delay " << rtt.As(Time::US) << " below target: rate " << m_rate);
    }
    else if (m_lastDecrease.IsNegative() || now - m_lastDecrease >= rtt)
    {
        const double excess = (rtt - m_target).GetSeconds() / d;
        m_rate = Clamp(m_rate * std::max(1.0 - m_beta * excess, 1.0 - m_maxDecrease));
        m_lastDecrease = now;
        NS_LOG_LOGIC("delay " << rtt.As(Time::US) << " above target: rate " << m_rate);
    }
    if (m_rate != before)
    {
        NotifyRateChange();
    }
}

void
SwiftCongestionControl::OnTimeout(Time now)
{
    NS_LOG_FUNCTION(this << now);
    m_rate = Clamp(m_rate * (1.0 - m_maxDecrease));
    m_lastDecrease = now;
    NS_LOG_LOGIC("retransmission timeout: rate " << m_rate);
    NotifyRateChange();
}

Time
SwiftCongestionControl::GetLastRtt() const
{
    return m_lastRtt;
}

} // namespace ns3
