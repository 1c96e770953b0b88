/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cnp-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CnpHeader");

NS_OBJECT_ENSURE_REGISTERED(CnpHeader);

CnpHeader::CnpHeader() = default;

TypeId
CnpHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CnpHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CnpHeader>();
    return tid;
}

TypeId
CnpHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
CnpHeader::GetSerializedSize() const
{
    return SIZE;
}

void
CnpHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(0, SIZE);
}

uint32_t
CnpHeader::Deserialize(Buffer::Iterator start)
{
    start.Next(SIZE);
    return SIZE;
}

void
CnpHeader::Print(std::ostream& os) const
{
    os << "CNP";
}

} // namespace ns3
