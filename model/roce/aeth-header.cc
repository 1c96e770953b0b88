/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aeth-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AethHeader");

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

AethHeader::AethHeader() = default;

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
AethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_syndrome);
    i.WriteU8((m_msn >> 16) & 0xFF);
    i.WriteHtonU16(m_msn & 0xFFFF);
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_syndrome = i.ReadU8();
    m_msn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_msn |= i.ReadNtohU16();
    return SIZE;
}

void
AethHeader::Print(std::ostream& os) const
{
    os << (IsAck() ? "ACK" : (IsNak() ? "NAK" : "AETH")) << " syndrome=" << +m_syndrome
       << " msn=" << m_msn;
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

bool
AethHeader::IsAck() const
{
    return m_syndrome <= 0x1F;
}

bool
AethHeader::IsNak() const
{
    return m_syndrome == NAK_PSN_ERROR;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & 0xFFFFFF;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

} // namespace ns3
