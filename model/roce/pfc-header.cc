/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pfc-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

PfcHeader::PfcHeader() = default;

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_enableVector);
    for (uint16_t t : m_time)
    {
        i.WriteHtonU16(t);
    }
    i.WriteU8(0, SIZE - 20); // pad to the 60-byte minimum frame
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadNtohU16();
    m_enableVector = i.ReadNtohU16();
    for (auto& t : m_time)
    {
        t = i.ReadNtohU16();
    }
    i.Next(SIZE - 20);
    return SIZE;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC enable=0x" << std::hex << m_enableVector << std::dec;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << +p << "=" << m_time[p];
        }
    }
}

void
PfcHeader::SetPauseTime(uint8_t priority, uint16_t quanta)
{
    NS_ABORT_MSG_IF(priority > 7, "PfcHeader: priority " << +priority << " is not in 0..7");
    m_enableVector |= static_cast<uint16_t>(1u << priority);
    m_time[priority] = quanta;
}

uint16_t
PfcHeader::GetPauseTime(uint8_t priority) const
{
    NS_ABORT_MSG_IF(priority > 7, "PfcHeader: priority " << +priority << " is not in 0..7");
    return m_time[priority];
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    return priority < 8 && (m_enableVector & (1u << priority)) != 0;
}

uint16_t
PfcHeader::GetClassEnableVector() const
{
    return m_enableVector;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

} // namespace ns3
