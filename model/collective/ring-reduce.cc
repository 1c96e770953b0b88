/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-reduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingReduce");

NS_OBJECT_ENSURE_REGISTERED(RingReduce);

TypeId
RingReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingReduce")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingReduce>()
                            .AddAttribute("Root",
                                          "Rank of the root",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&RingReduce::m_root),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RingReduce::RingReduce()
{
    NS_LOG_FUNCTION(this);
}

RingReduce::~RingReduce() = default;

std::string
RingReduce::GetCollectiveName() const
{
    return "Reduce";
}

double
RingReduce::GetBusBandwidthFactor(uint32_t /* ranks */) const
{
    return 1.0;
}

void
RingReduce::DoStart()
{
    NS_LOG_FUNCTION(this << m_root);
    NS_ABORT_MSG_IF(m_root >= m_comm->GetSize(),
                    "RingReduce: Root " << m_root << " is not a rank (size " << m_comm->GetSize()
                                        << ")");
    RingCollective::DoStart();
}

uint32_t
RingReduce::GetRingChunks(uint32_t /* n */) const
{
    return 1;
}

uint32_t
RingReduce::GetFirstSender(uint32_t /* chunk */, uint32_t n) const
{
    return (m_root + 1) % n;
}

uint32_t
RingReduce::GetHops(uint32_t n) const
{
    return n - 1;
}

uint32_t
RingReduce::GetReducedHops(uint32_t n) const
{
    return n - 1;
}

} // namespace ns3
