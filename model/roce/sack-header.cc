/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "sack-header.h"

#include "ns3/log.h"

#include <ios>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SackHeader");

NS_OBJECT_ENSURE_REGISTERED(SackHeader);

SackHeader::SackHeader() = default;

TypeId
SackHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SackHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<SackHeader>();
    return tid;
}

TypeId
SackHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
SackHeader::GetSerializedSize() const
{
    return SIZE;
}

void
SackHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(0);
    i.WriteU8((m_basePsn >> 16) & 0xFF);
    i.WriteHtonU16(m_basePsn & 0xFFFF);
    i.WriteHtonU64(m_bitmap);
}

uint32_t
SackHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.ReadU8(); // reserved
    m_basePsn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_basePsn |= i.ReadNtohU16();
    m_bitmap = i.ReadNtohU64();
    return SIZE;
}

void
SackHeader::Print(std::ostream& os) const
{
    const auto flags = os.flags();
    os << "SACK base=" << m_basePsn << " bitmap=0x" << std::hex << m_bitmap;
    os.flags(flags);
}

void
SackHeader::SetBasePsn(uint32_t psn)
{
    m_basePsn = psn & 0xFFFFFF;
}

uint32_t
SackHeader::GetBasePsn() const
{
    return m_basePsn;
}

void
SackHeader::SetBitmap(uint64_t bitmap)
{
    m_bitmap = bitmap;
}

uint64_t
SackHeader::GetBitmap() const
{
    return m_bitmap;
}

} // namespace ns3
