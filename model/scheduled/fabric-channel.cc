/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the leaf-spine link",
                                          TimeValue(NanoSeconds(500)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Time(0)))
                            .AddTraceSource("LinkState",
                                            "The link went up (true) or down (false)",
                                            MakeTraceSourceAccessor(&FabricChannel::m_stateTrace),
                                            "ns3::TracedValueCallback::Bool");
    return tid;
}

FabricChannel::FabricChannel()
{
    NS_LOG_FUNCTION(this);
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices == 2, "FabricChannel: a link has exactly two ends");
    m_devices[m_nDevices++] = device;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(Ptr<const FabricNetDevice> device) const
{
    NS_ABORT_MSG_IF(m_nDevices != 2, "FabricChannel: link has " << m_nDevices << " ends");
    return m_devices[0] == device ? m_devices[1] : m_devices[0];
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

void
FabricChannel::SetUp(bool up)
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
FabricChannel::IsUp() const
{
    return m_up;
}

uint32_t
FabricChannel::GetEpoch() const
{
    return m_epoch;
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? m_devices[i] : nullptr;
}

} // namespace ns3
