/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-broadcast.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingBroadcast");

NS_OBJECT_ENSURE_REGISTERED(RingBroadcast);

TypeId
RingBroadcast::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingBroadcast")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingBroadcast>()
                            .AddAttribute("Root",
                                          "Rank of the root",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&RingBroadcast::m_root),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RingBroadcast::RingBroadcast()
{
    NS_LOG_FUNCTION(this);
}

RingBroadcast::~RingBroadcast() = default;

std::string
RingBroadcast::GetCollectiveName() const
{
    return "Broadcast";
}

double
RingBroadcast::GetBusBandwidthFactor(uint32_t /* ranks */) const
{
    return 1.0;
}

void
RingBroadcast::DoStart()
{
    NS_LOG_FUNCTION(this << m_root);
    NS_ABORT_MSG_IF(m_root >= m_comm->GetSize(),
                    "RingBroadcast: Root " << m_root << " is not a rank (size " << m_comm->GetSize()
                                           << ")");
    RingCollective::DoStart();
}

uint32_t
RingBroadcast::GetRingChunks(uint32_t /* n */) const
{
    return 1;
}

uint32_t
RingBroadcast::GetFirstSender(uint32_t /* chunk */, uint32_t /* n */) const
{
    return m_root;
}

uint32_t
RingBroadcast::GetHops(uint32_t n) const
{
    return n - 1;
}

uint32_t
RingBroadcast::GetReducedHops(uint32_t /* n */) const
{
    return 0;
}

} // namespace ns3
