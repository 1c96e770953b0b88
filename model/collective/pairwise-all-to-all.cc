/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pairwise-all-to-all.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PairwiseAlltoAll");

NS_OBJECT_ENSURE_REGISTERED(PairwiseAlltoAll);

TypeId
PairwiseAlltoAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PairwiseAlltoAll")
                            .SetParent<PairwiseExchange>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PairwiseAlltoAll>();
    return tid;
}

PairwiseAlltoAll::PairwiseAlltoAll()
{
    NS_LOG_FUNCTION(this);
}

PairwiseAlltoAll::~PairwiseAlltoAll() = default;

std::string
PairwiseAlltoAll::GetCollectiveName() const
{
    return "AlltoAll";
}

uint64_t
PairwiseAlltoAll::GetPairBytes(uint32_t /* src */, uint32_t dst) const
{
    return SplitBytes(m_bytes, m_comm->GetSize(), dst);
}

} // namespace ns3
