/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-send-recv.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingSendRecv");

NS_OBJECT_ENSURE_REGISTERED(RingSendRecv);

TypeId
RingSendRecv::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingSendRecv")
                            .SetParent<RingCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingSendRecv>();
    return tid;
}

RingSendRecv::RingSendRecv()
{
    NS_LOG_FUNCTION(this);
}

RingSendRecv::~RingSendRecv() = default;

std::string
RingSendRecv::GetCollectiveName() const
{
    return "SendRecv";
}

double
RingSendRecv::GetBusBandwidthFactor(uint32_t /* ranks */) const
{
    return 1.0;
}

uint32_t
RingSendRecv::GetRingChunks(uint32_t n) const
{
    return n;
}

uint32_t
RingSendRecv::GetFirstSender(uint32_t chunk, uint32_t /* n */) const
{
    return chunk;
}

uint32_t
RingSendRecv::GetHops(uint32_t /* n */) const
{
    return 1;
}

uint32_t
RingSendRecv::GetReducedHops(uint32_t /* n */) const
{
    return 0;
}

uint64_t
RingSendRecv::GetChunkBytes(uint32_t, uint32_t) const
{
    return m_bytes; // every rank sends all of S
}

} // namespace ns3
