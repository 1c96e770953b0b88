/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-reduce-scatter.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingReduceScatter");

NS_OBJECT_ENSURE_REGISTERED(RingReduceScatter);

TypeId
RingReduceScatter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingReduceScatter")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingReduceScatter>();
    return tid;
}

RingReduceScatter::RingReduceScatter()
{
    NS_LOG_FUNCTION(this);
}

RingReduceScatter::~RingReduceScatter() = default;

std::string
RingReduceScatter::GetCollectiveName() const
{
    return "ReduceScatter";
}

double
RingReduceScatter::GetBusBandwidthFactor(uint32_t ranks) const
{
    return (ranks - 1.0) / ranks;
}

uint32_t
RingReduceScatter::GetRingChunks(uint32_t n) const
{
    return n;
}

uint32_t
RingReduceScatter::GetFirstSender(uint32_t chunk, uint32_t n) const
{
    return (chunk + 1) % n;
}

uint32_t
RingReduceScatter::GetHops(uint32_t n) const
{
    return n - 1;
}

uint32_t
RingReduceScatter::GetReducedHops(uint32_t n) const
{
    return n - 1;
}

} // namespace ns3
