/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-channel.h"

#include "roce-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceChannel")
            .SetParent<Channel>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceChannel>()
            .AddAttribute("Delay",
                          "Propagation delay of the wire (each direction)",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&RoceChannel::SetDelay, &RoceChannel::GetDelay),
                          MakeTimeChecker())
            .AddTraceSource("TxRxRoce",
                            "A frame entered the wire: frame, sender, receiver, tx time, delay",
                            MakeTraceSourceAccessor(&RoceChannel::m_txrxTrace),
                            "ns3::RoceChannel::TxRxCallback")
            .AddTraceSource("FrameLost",
                            "A frame was lost because the wire was down: frame",
                            MakeTraceSourceAccessor(&RoceChannel::m_frameLostTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceChannel::RoceChannel()
{
    NS_LOG_FUNCTION(this);
}

void
RoceChannel::SetDelay(Time delay)
{
    NS_LOG_FUNCTION(this << delay);
    NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "RoceChannel: Delay " << delay << " is negative");
    m_delay = delay;
}

Time
RoceChannel::GetDelay() const
{
    return m_delay;
}

void
RoceChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_nDevices >= 2, "RoceChannel: a wire connects exactly two devices");
    NS_ABORT_MSG_IF(!device, "RoceChannel: cannot attach a null device");
    m_dev[m_nDevices++] = device;
}

bool
RoceChannel::TransmitStart(Ptr<const Packet> frame, Ptr<RoceNetDevice> src, Time txTime)
{
    NS_LOG_FUNCTION(this << frame << src << txTime);
    if (m_nDevices < 2)
    {
        return false;
    }
    if (!m_up)
    {
        NS_LOG_LOGIC("wire down: frame " << frame->GetUid() << " lost");
        CountLost(frame);
        return true; // a dead wire swallows what is sent into it
    }
    Ptr<RoceNetDevice> dst = (m_dev[0] == src) ? m_dev[1] : m_dev[0];
    m_txrxTrace(frame, src, dst, txTime, m_delay);
    Carry(frame, dst, txTime + m_delay);
    return true;
}

void
RoceChannel::Carry(Ptr<const Packet> frame, Ptr<RoceNetDevice> dst, Time arrival)
{
    // A copy, so the sender's traced frame stays intact while the receiver strips it.
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   arrival,
                                   &RoceChannel::Deliver,
                                   this,
                                   dst,
                                   frame->Copy(),
                                   m_generation);
}

void
RoceChannel::Deliver(Ptr<RoceNetDevice> dst, Ptr<Packet> frame, uint64_t generation)
{
    NS_LOG_FUNCTION(this << dst << frame << generation);
    if (generation != m_generation)
    {
        NS_LOG_LOGIC("wire went down under frame " << frame->GetUid() << ": lost");
        CountLost(frame); // the wire went down while the frame was on it
        return;
    }
    dst->Receive(frame);
}

void
RoceChannel::SetUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    ++m_generation;
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_dev[i]->NotifyLinkChange();
    }
}

bool
RoceChannel::IsUp() const
{
    return m_up;
}

uint64_t
RoceChannel::GetFramesLost() const
{
    return m_framesLost;
}

uint64_t
RoceChannel::GetDataFramesLost() const
{
    return m_dataFramesLost;
}

void
RoceChannel::CountLost(Ptr<const Packet> frame)
{
    ++m_framesLost;
    uint8_t head[RoceNetDevice::ETHERNET_HEADER_BYTES];
    if (frame->GetSize() < sizeof(head) || frame->CopyData(head, sizeof(head)) != sizeof(head) ||
        static_cast<uint16_t>(head[12] << 8 | head[13]) != PfcHeader::ETHERTYPE)
    {
        ++m_dataFramesLost;
    }
    m_frameLostTrace(frame);
}

Ptr<RoceNetDevice>
RoceChannel::GetPeer(Ptr<const RoceNetDevice> device) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return (m_dev[0] == device) ? m_dev[1] : m_dev[0];
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_nDevices, "RoceChannel: no device " << i);
    return m_dev[i];
}

void
RoceChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    m_nDevices = 0;
    Channel::DoDispose();
}

} // namespace ns3
