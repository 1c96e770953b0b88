/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-loss-recovery.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaLossRecovery");

NS_OBJECT_ENSURE_REGISTERED(RdmaLossRecovery);

TypeId
RdmaLossRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaLossRecovery")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaLossRecovery>();
    return tid;
}

RdmaLossRecovery::RdmaLossRecovery()
{
    NS_LOG_FUNCTION(this);
}

RdmaLossRecovery::~RdmaLossRecovery() = default;

void
RdmaLossRecovery::Validate() const
{
    NS_LOG_FUNCTION(this);
}

uint32_t
RdmaLossRecovery::GetReorderWindow() const
{
    return 0;
}

uint32_t
RdmaLossRecovery::GetNakThreshold() const
{
    return 0;
}

} // namespace ns3
