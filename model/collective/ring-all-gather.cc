/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-all-gather.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllGather");

NS_OBJECT_ENSURE_REGISTERED(RingAllGather);

TypeId
RingAllGather::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllGather")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingAllGather>();
    return tid;
}

RingAllGather::RingAllGather()
{
    NS_LOG_FUNCTION(this);
}

RingAllGather::~RingAllGather() = default;

std::string
RingAllGather::GetCollectiveName() const
{
    return "AllGather";
}

double
RingAllGather::GetBusBandwidthFactor(uint32_t ranks) const
{
    return (ranks - 1.0) / ranks;
}

uint32_t
RingAllGather::GetRingChunks(uint32_t n) const
{
    return n;
}

uint32_t
RingAllGather::GetFirstSender(uint32_t chunk, uint32_t /* n */) const
{
    return chunk;
}

uint32_t
RingAllGather::GetHops(uint32_t n) const
{
    return n - 1;
}

uint32_t
RingAllGather::GetReducedHops(uint32_t /* n */) const
{
    return 0;
}

} // namespace ns3
