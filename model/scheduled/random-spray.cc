/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "random-spray.h"

#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RandomSpray");
NS_OBJECT_ENSURE_REGISTERED(RandomSpray);

TypeId
RandomSpray::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RandomSpray")
                            .SetParent<SprayPolicy>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RandomSpray>();
    return tid;
}

RandomSpray::RandomSpray()
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

RandomSpray::~RandomSpray()
{
}

void
RandomSpray::DoDispose()
{
    m_rng = nullptr;
    SprayPolicy::DoDispose();
}

uint32_t
RandomSpray::Pick(uint32_t dstLeaf,
                  const std::vector<uint32_t>& links,
                  uint32_t wireBytes,
                  uint32_t reserveBytes)
{
    NS_LOG_FUNCTION(this << dstLeaf << links.size() << wireBytes << reserveBytes);
    const uint32_t drawn = m_rng->GetInteger(0, static_cast<uint32_t>(links.size()) - 1);
    const uint32_t port = FirstWithRoom(links, drawn, wireBytes + reserveBytes);
    NS_LOG_LOGIC("leaf " << m_leafIndex << " -> " << dstLeaf << ": drew " << links[drawn]
                         << ", sends on " << port);
    return port;
}

int64_t
RandomSpray::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_rng->SetStream(stream);
    return 1;
}

} // namespace ns3
