/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "reth-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RethHeader");

NS_OBJECT_ENSURE_REGISTERED(RethHeader);

RethHeader::RethHeader() = default;

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU64(m_va);
    i.WriteHtonU32(m_rkey);
    i.WriteHtonU32(m_dmaLength);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_va = i.ReadNtohU64();
    m_rkey = i.ReadNtohU32();
    m_dmaLength = i.ReadNtohU32();
    return SIZE;
}

void
RethHeader::Print(std::ostream& os) const
{
    os << "va=" << m_va << " rkey=" << m_rkey << " len=" << m_dmaLength;
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_va = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_va;
}

void
RethHeader::SetRKey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RethHeader::GetRKey() const
{
    return m_rkey;
}

void
RethHeader::SetDmaLength(uint32_t length)
{
    m_dmaLength = length;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

} // namespace ns3
