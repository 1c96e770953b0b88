/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCongestionControl")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaCongestionControl>();
    return tid;
}

RdmaCongestionControl::RdmaCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

RdmaCongestionControl::~RdmaCongestionControl() = default;

void
RdmaCongestionControl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_onRateChange = RateChangeCallback();
    Object::DoDispose();
}

void
RdmaCongestionControl::Install(double lineRateBps, Time now, RateChangeCallback onRateChange)
{
    NS_LOG_FUNCTION(this << lineRateBps << now);
    NS_ABORT_MSG_IF(m_lineRateBps > 0, GetInstanceTypeId().GetName() << ": Install called twice");
    NS_ABORT_MSG_IF(!(lineRateBps > 0),
                    GetInstanceTypeId().GetName()
                        << ": line rate " << lineRateBps << " bit/s must be above 0");
    m_lineRateBps = lineRateBps;
    m_onRateChange = onRateChange;
    DoInstall(now);
}

void
RdmaCongestionControl::DoInstall(Time /* now */)
{
}

double
RdmaCongestionControl::GetRate() const
{
    return m_lineRateBps;
}

uint32_t
RdmaCongestionControl::GetWindowPackets() const
{
    return 0;
}

bool
RdmaCongestionControl::UsesCnp() const
{
    return false;
}

bool
RdmaCongestionControl::UsesRtt() const
{
    return false;
}

void
RdmaCongestionControl::OnSend(uint64_t /* bytes */, Time /* now */)
{
}

void
RdmaCongestionControl::OnAck(uint64_t /* ackedPackets */, Time /* rtt */, Time /* now */)
{
}

void
RdmaCongestionControl::OnCnp(Time /* now */)
{
}

void
RdmaCongestionControl::OnTimeout(Time /* now */)
{
}

void
RdmaCongestionControl::NotifyRateChange()
{
    NS_LOG_LOGIC("rate now " << GetRate() << " bit/s");
    if (!m_onRateChange.IsNull())
    {
        m_onRateChange(GetRate());
    }
}

double
RdmaCongestionControl::GetLineRate() const
{
    return m_lineRateBps;
}

} // namespace ns3
