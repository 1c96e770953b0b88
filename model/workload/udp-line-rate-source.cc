/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "udp-line-rate-source.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UdpLineRateSource");
NS_OBJECT_ENSURE_REGISTERED(UdpLineRateSource);

TypeId
UdpLineRateSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UdpLineRateSource")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<UdpLineRateSource>()
            .AddAttribute("PacketSize",
                          "IPv4 packet size in bytes (IPv4 and UDP headers included, 28..9000)",
                          UintegerValue(1462),
                          MakeUintegerAccessor(&UdpLineRateSource::m_packetSize),
                          MakeUintegerChecker<uint32_t>(28, 9000))
            .AddAttribute("Dscp",
                          "IPv4 DSCP (the traffic class is DSCP >> 3)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UdpLineRateSource::m_dscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("MaxBytes",
                          "Stop after this many IPv4 bytes (0: no limit)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UdpLineRateSource::m_maxBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("DestinationPort",
                          "UDP destination port",
                          UintegerValue(4791),
                          MakeUintegerAccessor(&UdpLineRateSource::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("SourcePort",
                          "UDP source port (0: one per flow, 0xC000 | 14 bits of a hash of "
                          "the source and destination addresses, as NICs put flow entropy "
                          "there for ECMP)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UdpLineRateSource::m_sourcePort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("StartJitter",
                          "Each source starts up to this much after its Start time, uniformly "
                          "at random from its stream (AssignStreams), so that sources with "
                          "the same parameters do not lock into phase at a tail-drop queue "
                          "(>= 0; 0: exactly at Start)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&UdpLineRateSource::m_startJitter),
                          MakeTimeChecker())
            .AddAttribute("GapJitter",
                          "Before each packet after the first, an idle gap drawn uniformly in "
                          "[0, GapJitter) from the source's stream, as a real host's timing "
                          "varies (>= 0; 0: back to back, the exact arithmetic the tests "
                          "assert). A start offset alone only decides which of identical "
                          "sources wins every slot of a full tail-drop queue; a gap per "
                          "packet lets them share it, for one more event per packet and "
                          "GapJitter / 2 of idle per packet on average",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&UdpLineRateSource::m_gapJitter),
                          MakeTimeChecker())
            .AddTraceSource("Tx",
                            "A packet was handed to the NIC",
                            MakeTraceSourceAccessor(&UdpLineRateSource::m_txTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

UdpLineRateSource::UdpLineRateSource()
    : m_jitter(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

int64_t
UdpLineRateSource::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_jitter->SetStream(stream);
    return 1;
}

void
UdpLineRateSource::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_startEvent.Cancel();
    m_stopEvent.Cancel();
    m_gapEvent.Cancel();
    m_nic = nullptr;
    Object::DoDispose();
}

void
UdpLineRateSource::Setup(Ptr<RoceNetDevice> nic, Ipv4Address destination)
{
    NS_LOG_FUNCTION(this << nic << destination);
    Setup(nic, std::vector<Ipv4Address>{destination});
}

void
UdpLineRateSource::Setup(Ptr<RoceNetDevice> nic, const std::vector<Ipv4Address>& destinations)
{
    NS_LOG_FUNCTION(this << nic << destinations.size());
    NS_ABORT_MSG_IF(!nic, "UdpLineRateSource: no NIC");
    NS_ABORT_MSG_IF(destinations.empty(), "UdpLineRateSource: no destination");
    m_nic = nic;
    m_dst = destinations;
    m_next = 0;
}

void
UdpLineRateSource::Start(Time at)
{
    NS_LOG_FUNCTION(this << at);
    NS_ABORT_MSG_IF(m_startJitter.IsStrictlyNegative(),
                    "UdpLineRateSource: StartJitter " << m_startJitter.As(Time::US)
                                                      << " must be >= 0");
    NS_ABORT_MSG_IF(m_gapJitter.IsStrictlyNegative(),
                    "UdpLineRateSource: GapJitter " << m_gapJitter.As(Time::NS) << " must be >= 0");
    Time offset;
    if (m_startJitter.IsStrictlyPositive())
    {
        offset = Seconds(m_jitter->GetValue(0, m_startJitter.GetSeconds()));
    }
    NS_LOG_LOGIC("start at " << at << " plus a random offset of " << offset);
    m_startEvent.Cancel();
    m_startEvent =
        Simulator::Schedule(at + offset - Simulator::Now(), &UdpLineRateSource::DoStart, this);
}

void
UdpLineRateSource::Stop(Time at)
{
    NS_LOG_FUNCTION(this << at);
    m_stopEvent.Cancel();
    m_stopEvent = Simulator::Schedule(at - Simulator::Now(), [this]() { m_running = false; });
}

void
UdpLineRateSource::DoStart()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_packetSize > m_nic->GetMtu(),
                    "UdpLineRateSource: PacketSize=" << m_packetSize << " exceeds the NIC's Mtu="
                                                     << m_nic->GetMtu());
    m_running = true;
    m_nic->SetPullCallback(RoceNetDevice::PriorityFromDscp(m_dscp),
                           MakeCallback(&UdpLineRateSource::Pull, this));
    m_nic->NotifyTxReady();
}

uint16_t
UdpLineRateSource::FlowPort(Ipv4Address destination) const
{
    const uint32_t h = m_nic->GetIpv4Address().Get() * 2654435761u ^ destination.Get() * 40503u;
    return static_cast<uint16_t>(0xC000 | ((h ^ (h >> 14)) & 0x3FFF));
}

Ptr<Packet>
UdpLineRateSource::Pull(uint8_t /* priority */)
{
    NS_LOG_FUNCTION(this);
    if (!m_running || (m_maxBytes > 0 && m_bytes + m_packetSize > m_maxBytes))
    {
        return nullptr;
    }
    if (m_gapJitter.IsStrictlyPositive() && m_packets > 0 && !m_gapTaken)
    {
        if (!ai_fabric::IsPending(m_gapEvent))
        {
            const Time gap = Seconds(m_jitter->GetValue(0, m_gapJitter.GetSeconds()));
            NS_LOG_LOGIC("idle " << gap << " before packet " << m_packets);
            m_gapEvent = Simulator::Schedule(gap, &UdpLineRateSource::GapOver, this);
        }
        return nullptr;
    }
    m_gapTaken = false;
    Ptr<Packet> p = Create<Packet>(m_packetSize - 28);
    UdpHeader udp;
    udp.SetSourcePort(m_sourcePort != 0 ? m_sourcePort : FlowPort(m_dst[m_next]));
    udp.SetDestinationPort(m_port);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_nic->GetIpv4Address());
    ip.SetDestination(m_dst[m_next]);
    m_next = (m_next + 1 == m_dst.size()) ? 0 : m_next + 1;
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(m_dscp));
    ip.SetIdentification(static_cast<uint16_t>(m_packets));
    ip.SetPayloadSize(m_packetSize - 20);
    p->AddHeader(ip);
    m_packets++;
    m_bytes += m_packetSize;
    m_txTrace(p);
    return p;
}

void
UdpLineRateSource::GapOver()
{
    NS_LOG_FUNCTION(this);
    m_gapTaken = true;
    m_nic->NotifyTxReady();
}

uint64_t
UdpLineRateSource::GetPacketsSent() const
{
    return m_packets;
}

uint64_t
UdpLineRateSource::GetBytesSent() const
{
    return m_bytes;
}

} // namespace ns3
