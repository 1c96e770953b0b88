/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-all-reduce.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduce");

NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllReduce")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingAllReduce>();
    return tid;
}

RingAllReduce::RingAllReduce()
{
    NS_LOG_FUNCTION(this);
}

RingAllReduce::~RingAllReduce() = default;

std::string
RingAllReduce::GetCollectiveName() const
{
    return "AllReduce";
}

double
RingAllReduce::GetBusBandwidthFactor(uint32_t ranks) const
{
    return 2.0 * (ranks - 1) / ranks;
}

uint32_t
RingAllReduce::GetRingChunks(uint32_t n) const
{
    return n;
}

uint32_t
RingAllReduce::GetFirstSender(uint32_t chunk, uint32_t n) const
{
    return (chunk + 1) % n;
}

uint32_t
RingAllReduce::GetHops(uint32_t n) const
{
    return 2 * (n - 1);
}

uint32_t
RingAllReduce::GetReducedHops(uint32_t n) const
{
    return n - 1;
}

} // namespace ns3
