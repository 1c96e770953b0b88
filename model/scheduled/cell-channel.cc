/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-channel.h"

#include "cell-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellChannel");
NS_OBJECT_ENSURE_REGISTERED(CellChannel);

TypeId
CellChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CellChannel")
                            .SetParent<Channel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CellChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the leaf-spine link",
                                          TimeValue(NanoSeconds(500)),
                                          MakeTimeAccessor(&CellChannel::m_delay),
                                          MakeTimeChecker(Time(0)))
                            .AddTraceSource("LinkState",
                                            "The link went up (true) or down (false)",
                                            MakeTraceSourceAccessor(&CellChannel::m_stateTrace),
                                            "ns3::TracedValueCallback::Bool");
    return tid;
}

CellChannel::CellChannel()
{
    NS_LOG_FUNCTION(this);
}

void
CellChannel::Attach(Ptr<CellNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_nDevices == 2, "CellChannel: a link has exactly two ends");
    m_devices[m_nDevices++] = device;
}

Ptr<CellNetDevice>
CellChannel::GetPeer(Ptr<const CellNetDevice> device) const
{
    NS_ABORT_MSG_IF(m_nDevices != 2, "CellChannel: link has " << m_nDevices << " ends");
    return m_devices[0] == device ? m_devices[1] : m_devices[0];
}

bool
CellChannel::CrossesProcesses() const
{
    return false;
}

void
CellChannel::SendToProcess(Ptr<Packet> /* message */, Ptr<CellNetDevice> dst, Time /* arrival */)
{
    NS_ABORT_MSG("CellChannel: a message for node " << dst->GetNode()->GetId()
                                                    << " on a link within one process");
}

Time
CellChannel::GetDelay() const
{
    return m_delay;
}

void
CellChannel::SetUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    if (!up)
    {
        m_epoch++;
    }
    m_stateTrace(up);
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyLinkChange();
    }
}

bool
CellChannel::IsUp() const
{
    return m_up;
}

uint32_t
CellChannel::GetEpoch() const
{
    return m_epoch;
}

std::size_t
CellChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
CellChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? m_devices[i] : nullptr;
}

} // namespace ns3
