/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "icrc-trailer.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IcrcTrailer");

NS_OBJECT_ENSURE_REGISTERED(IcrcTrailer);

IcrcTrailer::IcrcTrailer() = default;

TypeId
IcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IcrcTrailer>();
    return tid;
}

TypeId
IcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
IcrcTrailer::Serialize(Buffer::Iterator end) const
{
    Buffer::Iterator i = end;
    i.Prev(SIZE);
    i.WriteHtonU32(m_icrc);
}

uint32_t
IcrcTrailer::Deserialize(Buffer::Iterator end)
{
    Buffer::Iterator i = end;
    i.Prev(SIZE);
    m_icrc = i.ReadNtohU32();
    return SIZE;
}

void
IcrcTrailer::Print(std::ostream& os) const
{
    os << "icrc=" << m_icrc;
}

void
IcrcTrailer::SetIcrc(uint32_t icrc)
{
    m_icrc = icrc;
}

uint32_t
IcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

} // namespace ns3
