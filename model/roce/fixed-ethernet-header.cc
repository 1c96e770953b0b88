/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fixed-ethernet-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FixedEthernetHeader");

FixedEthernetHeader::FixedEthernetHeader()
    : EthernetHeader(false)
{
    Keep();
}

void
FixedEthernetHeader::Set(Mac48Address source, Mac48Address destination, uint16_t lengthType)
{
    if (source == GetSource() && destination == GetDestination() && lengthType == GetLengthType())
    {
        return;
    }
    NS_LOG_FUNCTION(this << source << destination << lengthType);
    SetSource(source);
    SetDestination(destination);
    SetLengthType(lengthType);
    Keep();
}

void
FixedEthernetHeader::Keep()
{
    // EthernetHeader::Serialize's layout without the preamble: destination, source,
    // ethertype in network order.
    GetDestination().CopyTo(m_bytes.data());
    GetSource().CopyTo(m_bytes.data() + 6);
    const uint16_t lengthType = GetLengthType();
    m_bytes[12] = static_cast<uint8_t>(lengthType >> 8);
    m_bytes[13] = static_cast<uint8_t>(lengthType);
}

void
FixedEthernetHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes.data(), SIZE);
}

} // namespace ns3
